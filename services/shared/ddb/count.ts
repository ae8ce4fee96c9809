import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Db } from './client';

/**
 * Bounded counting for dashboards: one Query with `Select: 'COUNT'`, paged until the key range
 * is exhausted or `cap` items were READ (DynamoDB's ScannedCount, which is what a filter costs
 * as well). Never a Scan: every count names one index partition (usually a sparse one that
 * holds exactly the items to count), so the reads are at most ceil(cap / 1 MB page) Queries.
 */
export const COUNT_CAP = 1000;

export interface BoundedCount {
  /** Items that matched (key condition and filter), up to the read bound. */
  readonly count: number;
  /** True when the bound stopped the count: the real figure is `count` or more. */
  readonly capped: boolean;
}

export async function boundedCount(db: Db, input: Omit<QueryCommandInput, 'TableName' | 'Select' | 'Limit' | 'ExclusiveStartKey' | 'ProjectionExpression'>, cap = COUNT_CAP): Promise<BoundedCount> {
  let count = 0;
  let read = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.doc.send(new QueryCommand({ ...input, TableName: db.tableName, Select: 'COUNT', Limit: cap - read, ExclusiveStartKey: start }));
    count += out.Count ?? 0;
    read += out.ScannedCount ?? 0;
    start = out.LastEvaluatedKey;
  } while (start && read < cap);
  return { count, capped: start !== undefined };
}
