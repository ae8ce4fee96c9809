import type { Db } from '../shared/ddb/client';
import { boundedCount, type BoundedCount } from '../shared/ddb/count';
import { entryKeys } from './model';

/**
 * The dashboard's figure of this area (services/overview): OPEN entries, counted on the sparse
 * GSI3 partition that holds exactly the organization's OPEN entries (model.ts), bounded.
 * Kept here so that the index stays this area's business.
 */
export const countOpenEntries = (db: Db, organizationId: string): Promise<BoundedCount> =>
  boundedCount(db, { IndexName: 'GSI3', KeyConditionExpression: 'GSI3PK = :pk', ExpressionAttributeValues: { ':pk': entryKeys.open(organizationId) } });
