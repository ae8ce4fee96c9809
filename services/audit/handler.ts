import { z } from 'zod';
import { defaultDb } from '../shared/ddb/client';
import { createHandler } from '../shared/http/handler';
import { cursorBinding, DEFAULT_LIMIT, nextCursor, readCursor } from '../shared/http/list';
import { limitParameter } from '../shared/http/query';
import { ok } from '../shared/http/request';
import { parseQuery } from '../shared/http/validation';
import { uuid } from '../shared/time';
import { listAuditEntries, type AuditEntry } from './store';

/** The entity types of audit entries (AuditEntry.entity.type). */
export const AUDIT_ENTITY_TYPES = ['time_entry', 'employee', 'organization', 'location', 'contact', 'material', 'stock_adjustment', 'report_job', 'export_manifest'] as const;

/** Query of GET /audit: newest first; optionally the trail of one entity. */
export const auditListQuery = z
  .object({
    entityType: z.enum(AUDIT_ENTITY_TYPES, { error: `entityType must be one of ${AUDIT_ENTITY_TYPES.join(', ')}.` }).optional(),
    entityId: uuid().optional(),
    limit: limitParameter(),
    cursor: z.string().max(2048).optional(),
  })
  .strict()
  .superRefine((q, ctx) => {
    if ((q.entityType === undefined) !== (q.entityId === undefined)) {
      ctx.addIssue({ code: 'custom', path: [q.entityType === undefined ? 'entityType' : 'entityId'], message: 'entityType and entityId go together.' });
    }
  });

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const snapshot = z.record(z.string(), scalar).nullable();

export const auditResponseSchema = z
  .object({
    id: z.uuid(),
    occurredAt: z.string().meta({ format: 'date-time' }),
    actor: z.object({ type: z.enum(['API_KEY', 'SYSTEM']), label: z.string() }),
    action: z.string(),
    entity: z.object({ type: z.string(), id: z.string() }),
    references: z.record(z.string(), z.string()),
    reason: z.string().nullable(),
    before: snapshot,
    after: snapshot,
    changedAttributes: z.array(z.string()),
    overlap: z.object({ override: z.literal(true), reason: z.string(), overlappedEntryIds: z.array(z.string()) }).nullable(),
    staleExportManifestIds: z.array(z.string()),
    requestId: z.string().meta({ description: 'The X-Request-Id of the response that made the change.' }),
  })
  .meta({ id: 'AuditEntry' });

/**
 * An audit entry as returned: allowlisted members only. The actor is shown by its label;
 * key ids, snapshots beyond the safe fields, addresses, positions and bank data never are.
 */
export const auditResponse = (e: AuditEntry): z.infer<typeof auditResponseSchema> => ({
  id: e.id,
  occurredAt: e.occurredAt,
  actor: { type: e.actor.type, label: e.actor.label },
  action: e.action,
  entity: e.entity,
  references: e.references ?? {},
  reason: e.reason ?? null,
  before: e.before ?? null,
  after: e.after ?? null,
  changedAttributes: [...(e.changedAttributes ?? [])],
  overlap: e.overlap ? { ...e.overlap, overlappedEntryIds: [...e.overlap.overlappedEntryIds] } : null,
  staleExportManifestIds: [...(e.staleExportManifestIds ?? [])],
  requestId: e.requestId,
});

export const handler = createHandler({
  area: 'audit',
  operations: {
    async listAuditEntries(request) {
      const query = parseQuery(auditListQuery, request.query);
      const binding = cursorBinding(request, query);
      const startKey = await readCursor<Record<string, unknown>>(binding, query.cursor);
      const page = await listAuditEntries(defaultDb(), request.principal.organizationId, {
        limit: query.limit ?? DEFAULT_LIMIT,
        startKey,
        ...(query.entityType && query.entityId ? { entity: { type: query.entityType, id: query.entityId } } : {}),
      });
      return ok({ items: page.items.map(auditResponse), nextCursor: await nextCursor(binding, page.last) });
    },
  },
});
