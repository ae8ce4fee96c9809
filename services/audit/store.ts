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
