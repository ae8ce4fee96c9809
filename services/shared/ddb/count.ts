import { QueryCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
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

/**
 * Pages one Query until its key range is exhausted or `cap` items were READ, handing each
 * page to `page`; true when the bound stopped it. The loop under `boundedCount`, for a figure
 * that needs the items themselves (e.g. distinct employees of the shifts running now).
 */
export async function boundedQuery(
  db: Db,
  input: Omit<QueryCommandInput, 'TableName' | 'Limit' | 'ExclusiveStartKey'>,
  page: (out: QueryCommandOutput) => void,
  cap = COUNT_CAP,
): Promise<{ readonly capped: boolean }> {
  let read = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.doc.send(new QueryCommand({ ...input, TableName: db.tableName, Limit: cap - read, ExclusiveStartKey: start }));
    page(out);
    read += out.ScannedCount ?? 0;
    start = out.LastEvaluatedKey;
  } while (start && read < cap);
  return { capped: start !== undefined };
}

export async function boundedCount(db: Db, input: Omit<QueryCommandInput, 'TableName' | 'Select' | 'Limit' | 'ExclusiveStartKey' | 'ProjectionExpression'>, cap = COUNT_CAP): Promise<BoundedCount> {
  let count = 0;
  const { capped } = await boundedQuery(db, { ...input, Select: 'COUNT' }, (out) => (count += out.Count ?? 0), cap);
  return { count, capped };
}
