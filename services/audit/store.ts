import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../shared/ddb/client';
import type { TxItem } from '../shared/ddb/transaction';

/**
 * The organization's audit trail. Every create, correction, void and SCIM change writes one
 * entry in the same transaction as the change. Content is allowlisted by type: snapshots
 * carry only scalar, safe fields chosen by the writing domain (never coordinates, typed
 * addresses, bank data, secrets or names), and the actor is the API key.
 */
export type AuditScalar = string | number | boolean | null;
export type AuditSnapshot = Readonly<Record<string, AuditScalar>>;

export interface AuditEntry {
  readonly id: string;
  readonly organizationId: string;
  readonly occurredAt: string;
  /** The API key that made the change, or the internal evidence channel. Never a person. */
  readonly actor: { readonly type: 'API_KEY'; readonly keyId: string; readonly label: string } | { readonly type: 'SYSTEM'; readonly label: string };
  /** e.g. `time_entry.created`, `scim_user.deactivated` */
  readonly action: string;
  readonly entity: { readonly type: string; readonly id: string };
  /** Further references (e.g. the employee of a time entry). */
  readonly references?: Readonly<Record<string, string>>;
  readonly reason?: string;
  readonly before?: AuditSnapshot;
  readonly after?: AuditSnapshot;
  /** Names of the attributes a change touched, without their values. */
  readonly changedAttributes?: readonly string[];
  readonly overlap?: { readonly override: true; readonly reason: string; readonly overlappedEntryIds: readonly string[] };
  readonly staleExportManifestIds?: readonly string[];
  /** Equals the X-Request-Id of the response. */
  readonly requestId: string;
}

export const auditKeys = {
  entry: (organizationId: string, id: string) => ({ PK: `ORG#${organizationId}#AUDIT#${id}`, SK: 'AUDIT' }),
  /** GSI1: the organization's trail, newest first with ScanIndexForward=false. */
  byOrganization: (organizationId: string, occurredAt?: string, id?: string) => ({
    GSI1PK: `ORG#${organizationId}#AUDIT`,
    ...(occurredAt && id ? { GSI1SK: `${occurredAt}#${id}` } : {}),
  }),
  /** GSI2: the trail of one entity. */
  byEntity: (organizationId: string, entityType: string, entityId: string, occurredAt?: string, id?: string) => ({
    GSI2PK: `ORG#${organizationId}#AUDIT#${entityType}#${entityId}`,
    ...(occurredAt && id ? { GSI2SK: `${occurredAt}#${id}` } : {}),
  }),
};

export const AUDIT_LABEL = 'audit';

export function auditItem(entry: AuditEntry): TxItem {
  return {
    label: AUDIT_LABEL,
    op: {
      Put: {
        Item: {
          ...auditKeys.entry(entry.organizationId, entry.id),
          ...auditKeys.byOrganization(entry.organizationId, entry.occurredAt, entry.id),
          ...auditKeys.byEntity(entry.organizationId, entry.entity.type, entry.entity.id, entry.occurredAt, entry.id),
          itemType: 'AuditEntry',
          ...entry,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  };
}

export function auditFromItem(item: Record<string, unknown>): AuditEntry {
  const { PK: _a, SK: _b, GSI1PK: _c, GSI1SK: _d, GSI2PK: _e, GSI2SK: _f, itemType: _g, ...rest } = item;
  return rest as unknown as AuditEntry;
}

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
