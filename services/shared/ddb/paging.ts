import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './client';
import { batchGet, type Key } from './read';
import { searchIds } from './search';
import type { IndexName } from './table-spec';

/**
 * Paging of the master-data lists (locations, contacts, materials): a list is either one
 * Query of an index partition in sort-key order, or a `q` search through the word index.
 * The position of the next page goes into the sealed cursor. newestFirstPage serves the
 * newest-first lists (audit entries, export manifests, payroll outbox).
 */
export type PagePosition = { readonly key: Record<string, unknown> } | { readonly searchAfter: string };

export interface Page<T> {
  readonly items: T[];
  /** Where the next page starts; absent on the last page. */
  readonly next?: PagePosition;
}

type Item = Record<string, unknown>;

/** A list query of master data: active or archived entities, optionally searched with `q`. */
export interface ListQuery {
  readonly archived?: boolean;
  readonly q?: string;
  readonly limit: number;
  readonly after?: PagePosition;
}

/** Where a kind of entity is listed: its index partition and search scope for a query, and how to read it. */
export interface Listing<T> {
  readonly partition: (archived: boolean) => string;
  readonly searchScope: (archived: boolean) => string;
  readonly load: (ids: readonly string[]) => Promise<ReadonlyMap<string, T>>;
  readonly fromItem: (item: Item) => T;
}

/**
 * One page of a list: by the partition's sort key (one Query of GSI1), or with `q` through
 * the search index (Query by word prefix, then BatchGetItem), never a Scan.
 */
export async function listPage<T>(db: Db, organizationId: string, query: ListQuery, listing: Listing<T>): Promise<Page<T>> {
  const archived = query.archived ?? false;
  if (query.q !== undefined) return searchPage(db, organizationId, listing.searchScope(archived), query.q, query.limit, query.after, listing.load);
  const page = await indexPage(db, 'GSI1', listing.partition(archived), query.limit, query.after);
  return { items: page.items.map(listing.fromItem), ...(page.next ? { next: page.next } : {}) };
}

/** One page of an index partition: Limit + 1 tells whether a next page has at least one item. */
export async function indexPage(db: Db, index: IndexName, partition: string, limit: number, after?: PagePosition): Promise<Page<Item>> {
  const page = await queryPartition(db, index, partition, limit, after && 'key' in after ? after.key : undefined, false);
  return { items: page.items, ...(page.last ? { next: { key: page.last } } : {}) };
}

/** One page of raw items and the key its next page starts after (absent on the last page). */
export interface KeyedPage {
  readonly items: Item[];
  readonly last?: Record<string, unknown>;
}

/** One page of an index partition, newest first (descending sort key); Limit + 1 as in indexPage. */
export const newestFirstPage = (db: Db, index: IndexName, partition: string, limit: number, startKey?: Record<string, unknown>): Promise<KeyedPage> =>
  queryPartition(db, index, partition, limit, startKey, true);

/** The one Query behind indexPage and newestFirstPage: a next page exists only if it has at least one item. */
async function queryPartition(db: Db, index: IndexName, partition: string, limit: number, startKey: Record<string, unknown> | undefined, newestFirst: boolean): Promise<KeyedPage> {
  const out = await db.doc.send(
    new QueryCommand({
      TableName: db.tableName,
      IndexName: index,
      KeyConditionExpression: `${index}PK = :pk`,
      ExpressionAttributeValues: { ':pk': partition },
      ...(newestFirst ? { ScanIndexForward: false } : {}),
      Limit: limit + 1,
      ExclusiveStartKey: startKey,
    }),
  );
  const raw = out.Items ?? [];
  const items = raw.slice(0, limit);
  const lastItem = raw.length > limit ? items.at(-1) : undefined;
  const last = lastItem ? Object.fromEntries(['PK', 'SK', `${index}PK`, `${index}SK`].map((k) => [k, lastItem[k]])) : undefined;
  return { items, ...(last ? { last } : {}) };
}

/**
 * One page of a base-table partition's items whose sort key starts with `prefix`, in sort-key
 * order (consistent Query); Limit + 1 tells whether a next page (`more`) has at least one item.
 */
export async function prefixPage(db: Db, partition: string, prefix: string, limit: number, startKey?: Record<string, unknown>): Promise<{ readonly items: Item[]; readonly more: boolean }> {
  const out = await db.doc.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': partition, ':prefix': prefix },
      ExclusiveStartKey: startKey,
      ConsistentRead: true,
      Limit: limit + 1,
    }),
  );
  const raw = out.Items ?? [];
  return { items: raw.slice(0, limit), more: raw.length > limit };
}

/** One page of `q` matches in search order: ids from the word index, then the entities themselves. */
export async function searchPage<T>(
  db: Db,
  organizationId: string,
  scope: string,
  q: string,
  limit: number,
  after: PagePosition | undefined,
  load: (ids: readonly string[]) => Promise<ReadonlyMap<string, T>>,
): Promise<Page<T>> {
  const page = await searchIds(db, organizationId, scope, q, limit, after && 'searchAfter' in after ? after.searchAfter : undefined);
  const found = await load(page.entityIds);
  return {
    items: page.entityIds.map((id) => found.get(id)).filter((e): e is T => e !== undefined),
    ...(page.after ? { next: { searchAfter: page.after } } : {}),
  };
}

const BATCH_GET_KEYS = 100;

/** The entities of these ids that exist (BatchGetItem, at most 100 keys a call), by id. */
export async function getByIds<T>(db: Db, ids: readonly string[], keyOf: (id: string) => Key, from: (item: Item) => T): Promise<Map<string, T>> {
  const unique = [...new Set(ids)];
  const found = new Map<string, T>();
  for (let i = 0; i < unique.length; i += BATCH_GET_KEYS) {
    const items = await batchGet(db, unique.slice(i, i + BATCH_GET_KEYS).map(keyOf));
    for (const item of items) if (item) found.set(item.id as string, from(item));
  }
  return found;
}
