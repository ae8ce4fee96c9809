import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../shared/ddb/client';
import { newestFirstPage } from '../shared/ddb/paging';
import { auditFromItem, auditKeys, type AuditEntry } from './model';

export interface AuditPage {
  readonly items: AuditEntry[];
  readonly last?: Record<string, unknown>;
}

export interface AuditQuery {
  readonly limit: number;
  readonly startKey?: Record<string, unknown>;
  /** Restrict to one entity. */
  readonly entity?: { readonly type: string; readonly id: string };
}

/** Newest first; one Query on GSI1 (organization) or GSI2 (one entity). */
export async function listAuditEntries(db: Db, organizationId: string, q: AuditQuery): Promise<AuditPage> {
  const page = q.entity
    ? await newestFirstPage(db, 'GSI2', auditKeys.byEntity(organizationId, q.entity.type, q.entity.id).GSI2PK, q.limit, q.startKey)
    : await newestFirstPage(db, 'GSI1', auditKeys.byOrganization(organizationId).GSI1PK, q.limit, q.startKey);
  return { items: page.items.map(auditFromItem), ...(page.last ? { last: page.last } : {}) };
}

/** Entries read at most per request by a filtered page (entriesOfTypes). */
export const FILTER_READ_BOUND = 500;

/**
 * Newest first, only entries whose entity type is one of `entityTypes` (the activity feed's
 * area filter): Queries of GSI1 with a filter, reading at most FILTER_READ_BOUND entries per
 * call. A page may therefore hold fewer than `limit` entries (even none) and still have a
 * `last` position: the caller pages on until there is none.
 */
export async function listAuditEntriesOfTypes(db: Db, organizationId: string, entityTypes: readonly string[], q: Omit<AuditQuery, 'entity'>): Promise<AuditPage> {
  const items: AuditEntry[] = [];
  let read = 0;
  let start = q.startKey;
  const names = { '#entity': 'entity', '#type': 'type' };
  const values = Object.fromEntries(entityTypes.map((t, i) => [`:t${i}`, t]));
  for (;;) {
    const out = await db.doc.send(
      new QueryCommand({
        TableName: db.tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        FilterExpression: `#entity.#type IN (${Object.keys(values).join(', ')})`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':pk': auditKeys.byOrganization(organizationId).GSI1PK, ...values },
        ScanIndexForward: false,
        // Read no further than needed: at most the entries still wanted, within the bound.
        Limit: Math.min(FILTER_READ_BOUND - read, Math.max(q.limit - items.length, 25)),
        ExclusiveStartKey: start,
      }),
    );
    read += out.ScannedCount ?? 0;
    const page = out.Items ?? [];
    for (const [i, item] of page.entries()) {
      items.push(auditFromItem(item));
      if (items.length === q.limit) {
        const more = i < page.length - 1 || out.LastEvaluatedKey !== undefined;
        return { items, ...(more ? { last: positionOf(item) } : {}) };
      }
    }
    start = out.LastEvaluatedKey;
    if (!start) return { items };
    if (read >= FILTER_READ_BOUND) return { items, last: start };
  }
}

const positionOf = (item: Record<string, unknown>) => ({ PK: item.PK, SK: item.SK, GSI1PK: item.GSI1PK, GSI1SK: item.GSI1SK });
