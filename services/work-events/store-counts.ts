import type { Db } from '../shared/ddb/client';
import { boundedCount, type BoundedCount } from '../shared/ddb/count';
import { eventKeys } from './model';

/**
 * The dashboard's figure of this area (services/overview): REVIEW_REQUIRED events received
 * since `since`, counted on the sparse GSI3 partition that holds only those events (model.ts).
 */
export const countEventsNeedingReview = (db: Db, organizationId: string, since: string): Promise<BoundedCount> =>
  boundedCount(db, {
    IndexName: 'GSI3',
    KeyConditionExpression: 'GSI3PK = :pk AND GSI3SK >= :since',
    ExpressionAttributeValues: { ':pk': eventKeys.needingReview(organizationId), ':since': since },
  });
