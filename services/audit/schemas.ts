import * as z from 'zod';
import { limitParameter } from '../shared/http/query';
import { cursorParameter, utc } from '../shared/schemas/fields';
import { uuid } from '../shared/time';
import { responseOf } from '../shared/schemas/response';
import type { AuditEntry } from './model';

/** `entityType` and `entityId` name one entity's trail together, or neither is given (422 at the one missing). */
export function entityPairRule(q: { readonly entityType?: string; readonly entityId?: string }, ctx: z.RefinementCtx): void {
  if ((q.entityType === undefined) !== (q.entityId === undefined)) {
    ctx.addIssue({ code: 'custom', path: [q.entityType === undefined ? 'entityType' : 'entityId'], message: 'entityType and entityId go together.' });
  }
}

/** Query of GET /audit: newest first; optionally the trail of one entity of the given types. */
export const auditListQuery = (entityTypes: readonly [string, ...string[]]) =>
  z
    .object({
      entityType: z.enum(entityTypes, { error: `entityType must be one of ${entityTypes.join(', ')}.` }).optional(),
      entityId: uuid().optional(),
      limit: limitParameter(),
      cursor: cursorParameter(),
    })
    .strict()
    .superRefine(entityPairRule);

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const snapshot = z.record(z.string(), scalar).nullable();

export const auditResponseSchema = z
  .object({
    id: z.uuid(),
    occurredAt: utc(),
    actor: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('API_KEY'), keyId: z.string().meta({ description: 'The key id: the public half of the token (never its secret).' }), label: z.string() }),
        z.object({ type: z.literal('SYSTEM'), label: z.string() }),
      ])
      .meta({ description: 'Who made the change: the API key (its key id and label), or an internal system such as the evidence channel. Never a person.' }),
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
 * An audit entry as returned: allowlisted members only. The actor is the API key, by its key
 * id (the public half of the token) and label (decisions.md, "Audit actor"); snapshots beyond
 * the safe fields, addresses, positions, bank data and secrets never are.
 */
export const auditResponse = (e: AuditEntry): z.infer<typeof auditResponseSchema> => responseOf(auditResponseSchema, e, {
  actor: e.actor.type === 'API_KEY' ? { type: 'API_KEY', keyId: e.actor.keyId, label: e.actor.label } : { type: 'SYSTEM', label: e.actor.label },
  references: e.references ?? {},
  reason: e.reason ?? null,
  before: e.before ?? null,
  after: e.after ?? null,
  changedAttributes: [...(e.changedAttributes ?? [])],
  overlap: e.overlap ? { ...e.overlap, overlappedEntryIds: [...e.overlap.overlappedEntryIds] } : null,
  staleExportManifestIds: [...(e.staleExportManifestIds ?? [])],
});
