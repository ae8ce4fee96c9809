import { setTimeout as sleep } from 'node:timers/promises';
import { BatchGetCommand, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Db } from './client';

export type Key = { readonly PK: string; readonly SK: string };
type Item = Record<string, unknown>;

const keyString = (k: { PK: unknown; SK: unknown }) => `${String(k.PK)}\u0000${String(k.SK)}`;

/** The item at `key` (a consistent read) parsed by `from`, or undefined when there is none. */
export async function getOne<T>(db: Db, key: Key, from: (item: Item) => T): Promise<T | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: key, ConsistentRead: true }));
  return out.Item ? from(out.Item) : undefined;
}

/**
 * Reads up to 100 items in one BatchGetItem (retrying unprocessed keys); the result maps
 * each requested key to its item, or undefined.
 */
export async function batchGet(db: Db, keys: readonly Key[], consistent = true): Promise<(Item | undefined)[]> {
  const unique = [...new Map(keys.map((k) => [keyString(k), k])).values()];
  const found = new Map<string, Item>();
  let pending: Key[] = unique;
  for (let attempt = 0; pending.length > 0; attempt += 1) {
    if (attempt > 5) throw new Error('BatchGetItem left keys unprocessed after retries.');
    const out = await db.doc.send(new BatchGetCommand({ RequestItems: { [db.tableName]: { Keys: pending, ConsistentRead: consistent } } }));
    for (const item of out.Responses?.[db.tableName] ?? []) found.set(keyString(item as Key), item);
    pending = (out.UnprocessedKeys?.[db.tableName]?.Keys as Key[] | undefined) ?? [];
    if (pending.length > 0) await sleep(20 * 2 ** attempt);
  }
  return keys.map((k) => found.get(keyString(k)));
}

/**
 * A ProjectionExpression of whole top-level attributes, every name through a placeholder
 * (`#p0`, ...: some, like `state`, are reserved words). A page that names what it maps reads
 * no key or index attribute: fewer bytes from DynamoDB to parse and unmarshal per item.
 */
export function projectionOf(names: readonly string[]): { ProjectionExpression: string; ExpressionAttributeNames: Record<string, string> } {
  return {
    ProjectionExpression: names.map((_, i) => `#p${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#p${i}`, name])),
  };
}

export interface CollectResult {
  readonly items: Item[];
  /** False when the query may hold more matching items after the last one returned. */
  readonly exhausted: boolean;
}

/**
 * Runs a Query page by page until `max` items passed its filter or the key range is
 * exhausted. Filters apply after DynamoDB's Limit, so one page may return fewer items.
 * `probe` (default) reads one item more than `max`, so that `exhausted` is exact; a caller
 * that already asks for one more than it shows (a list page: limit + 1) passes `probe: false`
 * and DynamoDB reads no item that nobody looks at.
 */
export async function collect(db: Db, input: Omit<QueryCommandInput, 'TableName' | 'Limit' | 'ExclusiveStartKey'>, max: number, { probe = true }: { readonly probe?: boolean } = {}): Promise<CollectResult> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const out = await db.doc.send(
      new QueryCommand({ ...input, TableName: db.tableName, Limit: Math.max(max - items.length, 1) + (probe ? 1 : 0), ExclusiveStartKey: start }),
    );
    for (const item of out.Items ?? []) {
      if (items.length < max) items.push(item);
      else return { items, exhausted: false };
    }
    start = out.LastEvaluatedKey;
  } while (start && items.length < max);
  return { items, exhausted: start === undefined };
}

/** Every item of a bounded key range (e.g. an overlap window). */
export async function collectAll(db: Db, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>, onPage?: PageProgress): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  let pages = 0;
  do {
    const out = await db.doc.send(new QueryCommand({ ...input, TableName: db.tableName, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
    pages += 1;
    onPage?.(items.length, pages);
  } while (start);
  return items;
}

/** Told after each page of a long read (the operator CLI shows it): items so far, pages so far. */
export type PageProgress = (items: number, pages: number) => void;

/**
 * The key condition of a range of positions (`<timestamp>#<id>`, all the same width) from `lo`
 * (inclusive) to `to` (exclusive: a position starting at `to` sorts after `to` itself), on
 * the `<index>PK`/`<index>SK` pair. Undefined when the range is empty.
 */
export function positionRange(index: string, pk: string, lo?: string, to?: string): { key: string; values: Record<string, unknown> } | undefined {
  if (lo !== undefined && to !== undefined && lo > to) return undefined;
  const values: Record<string, unknown> = { ':pk': pk };
  let key = `${index}PK = :pk`;
  if (lo !== undefined && to !== undefined) {
    key += ` AND ${index}SK BETWEEN :lo AND :to`;
    Object.assign(values, { ':lo': lo, ':to': to });
  } else if (lo !== undefined) {
    key += ` AND ${index}SK >= :lo`;
    values[':lo'] = lo;
  } else if (to !== undefined) {
    key += ` AND ${index}SK < :to`;
    values[':to'] = to;
  }
  return { key, values };
}
