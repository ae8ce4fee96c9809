import * as z from 'zod';
import { hasScope, type Principal } from '../shared/auth/principal';
import { limitParameter } from '../shared/http/query';
import { cursorParameter, freeTextCharacters, fromBeforeTo, reasonText, utc } from '../shared/schemas/fields';
import { instant, uuid } from '../shared/time';
import { workedMinutes, type WriteOutcome } from './domain';
import type { TimeEntry } from './model';

/** Request and response shapes of timesheets (organization-api.md, Time entry). */


const registeredContext = z.object({ kind: z.literal('REGISTERED_LOCATION'), locationId: uuid() }).strict();

const adHocContext = z
  .object({
    kind: z.literal('VEHICLE_AD_HOC'),
    addressLabel: z.string().trim().min(1, { message: 'addressLabel must not be empty.' }).max(300, { message: 'addressLabel is at most 300 characters.' }).check(freeTextCharacters('addressLabel')),
    latitude: z.number().min(-90, { message: 'latitude must be between -90 and 90.' }).max(90, { message: 'latitude must be between -90 and 90.' }),
    longitude: z.number().min(-180, { message: 'longitude must be between -180 and 180.' }).max(180, { message: 'longitude must be between -180 and 180.' }),
  })
  .strict();

export const contextSchema = z.discriminatedUnion('kind', [registeredContext, adHocContext], {
  error: 'context.kind must be REGISTERED_LOCATION (with locationId) or VEHICLE_AD_HOC (with addressLabel, latitude, longitude).',
});

const overlapFields = {
  overlapOverride: z.boolean().optional(),
  overlapReason: z.string().trim().max(1000).check(freeTextCharacters('overlapReason')).optional(),
};

function overlapRule(body: { overlapOverride?: boolean; overlapReason?: string }, ctx: z.RefinementCtx) {
  if (body.overlapOverride === true && !body.overlapReason) {
    ctx.addIssue({ code: 'custom', path: ['overlapReason'], message: 'overlapReason is required and must not be empty when overlapOverride is true.' });
  }
  if (body.overlapOverride !== true && body.overlapReason !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['overlapReason'], message: 'overlapReason is only accepted together with overlapOverride: true.' });
  }
}

export const createBodySchema = z
  .object({
    employeeId: uuid(),
    context: contextSchema,
    startedAt: instant(),
    endedAt: instant(),
    breakMinutes: z.number().int({ message: 'breakMinutes must be a whole number.' }).min(0, { message: 'breakMinutes must be at least 0.' }),
    reason: reasonText('reason'),
    ...overlapFields,
  })
  .strict()
  .superRefine(overlapRule);
export type CreateBody = z.infer<typeof createBodySchema>;

/** Fields a client may know from responses but can never change (422 pointing at them). */
const IMMUTABLE_FIELDS = ['id', 'employeeId', 'origin', 'state', 'revision', 'adjusted', 'workedMinutes', 'sourceEventIds', 'sourceStartedAt', 'sourceEndedAt', 'sourceBreakMinutes', 'createdAt', 'updatedAt'];

/**
 * Immutable fields named in a correction get a precise error each, instead of the strict
 * schema's "unknown field"; nothing else of the body is checked until they are gone.
 */
function refuseImmutableFields(body: unknown, ctx: z.RefinementCtx): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  for (const field of IMMUTABLE_FIELDS.filter((f) => f in body)) {
    ctx.addIssue({
      code: 'custom',
      path: [field],
      message: `${field} cannot be changed by a correction; to change the employee or anchor, void the entry and create a manual replacement.`,
      input: body,
    });
  }
  return body;
}

export const correctBodySchema = z.preprocess(
  refuseImmutableFields,
  z
    .object({
      startedAt: instant().optional(),
      endedAt: instant().optional(),
      breakMinutes: z.number().int({ message: 'breakMinutes must be a whole number.' }).min(0, { message: 'breakMinutes must be at least 0.' }).optional(),
      context: contextSchema.optional(),
      reason: reasonText('reason'),
      ...overlapFields,
    })
    .strict()
    .superRefine((body, ctx) => {
      overlapRule(body, ctx);
      if (body.startedAt === undefined && body.endedAt === undefined && body.breakMinutes === undefined && body.context === undefined) {
        ctx.addIssue({ code: 'custom', path: [], message: 'Nothing to correct: send at least one of startedAt, endedAt, breakMinutes or context besides reason.' });
      }
    }),
);
export type CorrectBody = z.output<typeof correctBodySchema>;

export const voidBodySchema = z.object({ reason: reasonText('reason') }).strict();

export const listQuerySchema = z
  .object({
    from: instant().optional(),
    to: instant().optional(),
    employeeId: uuid().optional(),
    state: z.enum(['OPEN', 'CLOSED', 'VOIDED'], { error: 'state must be OPEN, CLOSED or VOIDED.' }).optional(),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict()
  .superRefine(fromBeforeTo);
export type ListQuery = z.infer<typeof listQuerySchema>;

export const timeEntryResponseSchema = z
  .object({
    id: z.uuid(),
    employeeId: z.uuid(),
    context: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('REGISTERED_LOCATION'), locationId: z.uuid() }),
      z.object({ kind: z.literal('VEHICLE_AD_HOC'), addressLabel: z.string().meta({ description: 'Durable address summary; coordinates are never returned.' }) }),
    ]),
    startedAt: utc(),
    endedAt: utc().nullable(),
    breakMinutes: z.number().int(),
    workedMinutes: z.number().int().nullable().meta({ description: 'floor((endedAt - startedAt) / 60 s) - breakMinutes; null while OPEN.' }),
    origin: z.enum(['SCANNED', 'MANUAL']),
    state: z.enum(['OPEN', 'CLOSED', 'VOIDED']),
    adjusted: z.boolean(),
    revision: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
    sourceEventIds: z.array(z.uuid()).optional().meta({ description: 'Only for keys that also hold work_events:read.' }),
    sourceStartedAt: utc().nullable().optional(),
    sourceEndedAt: utc().nullable().optional(),
    sourceBreakMinutes: z.number().int().nullable().optional(),
  })
  .meta({ id: 'TimeEntry' });
export type TimeEntryResponse = z.infer<typeof timeEntryResponseSchema>;

export const timeEntryWriteResponseSchema = timeEntryResponseSchema
  .extend({ staleExportManifestIds: z.array(z.string()).meta({ description: 'Export manifests this change made stale.' }) })
  .meta({ id: 'TimeEntryWriteResult' });

/** The response body of a time entry. Source fields only for keys that hold work_events:read. */
export function timeEntryResponse(e: TimeEntry, principal: Principal): TimeEntryResponse {
  return {
    id: e.id,
    employeeId: e.employeeId,
    context: e.context,
    startedAt: e.startedAt,
    endedAt: e.endedAt,
    breakMinutes: e.breakMinutes,
    workedMinutes: workedMinutes(e),
    origin: e.origin,
    state: e.state,
    adjusted: e.adjusted,
    revision: e.revision,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    ...(hasScope(principal, 'work_events:read')
      ? {
          sourceEventIds: [...(e.source?.eventIds ?? [])],
          sourceStartedAt: e.source?.startedAt ?? null,
          sourceEndedAt: e.source?.endedAt ?? null,
          sourceBreakMinutes: e.source?.breakMinutes ?? null,
        }
      : {}),
  };
}

/** The response body of a write: the entry, and the export manifests the change made stale. */
export const timeEntryWriteResponse = (o: WriteOutcome, principal: Principal) => ({ ...timeEntryResponse(o.entry, principal), staleExportManifestIds: [...o.staleExportManifestIds] });
