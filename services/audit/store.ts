import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../shared/ddb/client';
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
  const byEntity = q.entity !== undefined;
  const index = byEntity ? 'GSI2' : 'GSI1';
  const out = await db.doc.send(
    new QueryCommand({
      TableName: db.tableName,
      IndexName: index,
      KeyConditionExpression: `${index}PK = :pk`,
      ExpressionAttributeValues: {
        ':pk': byEntity ? auditKeys.byEntity(organizationId, q.entity!.type, q.entity!.id).GSI2PK : auditKeys.byOrganization(organizationId).GSI1PK,
      },
      ScanIndexForward: false,
      // One more than asked: a next page exists only if it has at least one entry.
      Limit: q.limit + 1,
      ExclusiveStartKey: q.startKey,
    }),
  );
  const raw = out.Items ?? [];
  const page = raw.slice(0, q.limit);
  const lastItem = raw.length > q.limit ? page.at(-1) : undefined;
  const last = lastItem ? Object.fromEntries(['PK', 'SK', `${index}PK`, `${index}SK`].map((k) => [k, lastItem[k]])) : undefined;
  return { items: page.map(auditFromItem), ...(last ? { last } : {}) };
}
