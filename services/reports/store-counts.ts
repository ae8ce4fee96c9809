import type { Db } from '../shared/ddb/client';
import { boundedCount, type BoundedCount } from '../shared/ddb/count';
import { reportKeys } from './model';

/**
 * The dashboard's figure of this area (services/overview): PUBLISHED export manifests that a
 * later change made stale and no replacement superseded yet. Counted on the sparse GSI2
 * partition the stale mark puts a manifest on (store-manifests.ts); the status filter leaves
 * out a PENDING manifest marked while being generated (it is abandoned, never published).
 */
export const countStaleManifests = (db: Db, organizationId: string): Promise<BoundedCount> =>
  boundedCount(db, {
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :pk',
    FilterExpression: '#status = :published',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': reportKeys.staleManifests(organizationId), ':published': 'PUBLISHED' },
  });
