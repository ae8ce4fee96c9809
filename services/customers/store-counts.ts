import type { Db } from '../shared/ddb/client';
import { boundedCount, type BoundedCount } from '../shared/ddb/count';
import { customerKeys } from './model';

/**
 * The dashboard's figure of this area (services/overview): unresolved feedback, i.e. OPEN and
 * ACKNOWLEDGED. Feedback sits on GSI2 by state (model.ts), so each state is one bounded count
 * of its own partition; the two are added, and capped if either was.
 */
export async function countUnresolvedFeedback(db: Db, organizationId: string): Promise<BoundedCount> {
  const counts = await Promise.all(
    (['OPEN', 'ACKNOWLEDGED'] as const).map((state) =>
      boundedCount(db, { IndexName: 'GSI2', KeyConditionExpression: 'GSI2PK = :pk', ExpressionAttributeValues: { ':pk': customerKeys.feedbackInState(organizationId, state) } }),
    ),
  );
  return { count: counts.reduce((n, c) => n + c.count, 0), capped: counts.some((c) => c.capped) };
}
