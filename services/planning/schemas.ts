import * as z from 'zod';
import { limitParameter } from '../shared/http/query';
import { cursorParameter, freeTextCharacters, fromBeforeTo, nothingToChange, nullableText, reasonText, utc } from '../shared/schemas/fields';
import { instant, uuid } from '../shared/time';
import { responseOf } from '../shared/schemas/response';
import type { PlanVsActual, RangePublished, Shift } from './domain';
import { SHIFT_STATES, VERIFICATION_STATES, VISIT_METHODS, type VisitConfirmation } from './model';

/** Request and response shapes of shifts and visit confirmations. */


const breakMinutes = z.number().int({ message: 'breakMinutes must be a whole number.' }).min(0, { message: 'breakMinutes must be at least 0.' });

const taskIds = z
  .array(uuid())
  .max(20, { message: 'A shift references at most 20 tasks.' })
  .refine((ids) => new Set(ids).size === ids.length, { message: 'taskIds must not repeat a task.' })
  .meta({ description: 'Tasks of the shift\'s location (active).' });

const overlapFields = {
  overlapOverride: z.boolean().optional().meta({ description: 'Publish although the shift overlaps another published shift of the employee (with overlapReason).' }),
  overlapReason: z.string().trim().min(1).max(1000).check(freeTextCharacters('overlapReason')).optional(),
};

function overlapRule(body: { overlapOverride?: boolean; overlapReason?: string }, ctx: z.RefinementCtx) {
  if (body.overlapOverride === true && !body.overlapReason) ctx.addIssue({ code: 'custom', path: ['overlapReason'], message: 'overlapReason is required and must not be empty when overlapOverride is true.' });
  if (body.overlapOverride !== true && body.overlapReason !== undefined) ctx.addIssue({ code: 'custom', path: ['overlapReason'], message: 'overlapReason is only accepted together with overlapOverride: true.' });
}

export const createShiftBody = z
  .object({
    employeeId: uuid().nullable().optional().meta({ description: 'The employee; null or absent: an open shift.' }),
    locationId: uuid(),
    startsAt: instant(),
    endsAt: instant().meta({ description: 'Exclusive end; at most 24 hours after startsAt.' }),
    breakMinutes: breakMinutes.optional().meta({ description: 'Default 0; shorter than the shift.' }),
    taskIds: taskIds.optional(),
    notes: nullableText('notes', 2000),
  })
  .strict();

export const updateShiftBody = z
  .object({
    employeeId: uuid().nullable().optional(),
    locationId: uuid().optional(),
    startsAt: instant().optional(),
    endsAt: instant().optional(),
    breakMinutes: breakMinutes.optional(),
    taskIds: taskIds.optional(),
    notes: nullableText('notes', 2000),
    ...overlapFields,
  })
  .strict()
  .refine((b) => Object.entries(b).some(([k, v]) => v !== undefined && !k.startsWith('overlap')), nothingToChange())
  .superRefine(overlapRule);

export const publishShiftBody = z.object({ ...overlapFields }).strict().superRefine(overlapRule);

export const cancelShiftBody = z.object({ reason: reasonText('reason') }).strict();

export const bulkPublishBody = z
  .object({
    from: instant().meta({ description: 'Inclusive: DRAFT shifts starting at or after it.' }),
    to: instant().meta({ description: 'Exclusive: DRAFT shifts starting before it.' }),
    employeeId: uuid().optional(),
    locationId: uuid().optional(),
  })
  .strict()
  .superRefine(fromBeforeTo);

export const shiftListQuery = z
  .object({
    from: instant().optional().meta({ description: 'Inclusive: shifts that end after it.' }),
    to: instant().optional().meta({ description: 'Exclusive: shifts that start before it.' }),
    employeeId: uuid().optional(),
    locationId: uuid().optional(),
    state: z.enum(SHIFT_STATES).optional(),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict()
  .superRefine(fromBeforeTo);

export const shiftResponseSchema = z
  .object({
    id: z.uuid(),
    employeeId: z.uuid().nullable().meta({ description: 'null: an open shift.' }),
    locationId: z.uuid(),
    startsAt: utc(),
    endsAt: utc(),
    breakMinutes: z.number().int(),
    taskIds: z.array(z.uuid()),
    notes: z.string().nullable(),
    state: z.enum(SHIFT_STATES),
    publishedAt: utc().nullable(),
    cancelledAt: utc().nullable(),
    cancelReason: z.string().nullable(),
    plannedMinutes: z.number().int().meta({ description: 'floor((endsAt - startsAt) / 1 min) - breakMinutes.' }),
    actualMinutes: z
      .number()
      .int()
      .nullable()
      .meta({ description: "Worked minutes of the employee's effective (not voided) closed time entries that overlap the shift, each counted whole; null for an open shift." }),
    varianceMinutes: z.number().int().nullable().meta({ description: 'actualMinutes - plannedMinutes; null when actualMinutes is.' }),
    actualIncomplete: z.boolean().meta({ description: 'An OPEN time entry overlaps the shift: actualMinutes will still grow.' }),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Shift' });

export const bulkPublishResponseSchema = z
  .object({
    publishedShiftIds: z.array(z.uuid()),
    rejected: z.array(
      z.object({
        shiftId: z.uuid(),
        code: z.string().meta({ description: 'The problem code a single publish would answer (e.g. SHIFT_OVERLAP).' }),
        detail: z.string(),
        overlappingShiftIds: z.array(z.uuid()).optional(),
      }),
    ),
  })
  .meta({ id: 'ShiftPublishResult' });

export const shiftResponse = (s: Shift, actual: PlanVsActual): z.infer<typeof shiftResponseSchema> => responseOf(shiftResponseSchema, s, {
  plannedMinutes: actual.plannedMinutes,
  actualMinutes: actual.actualMinutes,
  varianceMinutes: actual.varianceMinutes,
  actualIncomplete: actual.actualIncomplete,
});

export const bulkPublishResponse = (r: RangePublished): z.infer<typeof bulkPublishResponseSchema> => ({
  publishedShiftIds: [...r.publishedShiftIds],
  rejected: r.rejected.map((x) => ({ shiftId: x.shiftId, code: x.code, detail: x.detail, ...(x.overlappingShiftIds ? { overlappingShiftIds: [...x.overlappingShiftIds] } : {}) })),
});

export const visitListQuery = z
  .object({
    locationId: uuid().optional(),
    employeeId: uuid().optional(),
    verificationState: z.enum(VERIFICATION_STATES).optional(),
    from: instant().optional().meta({ description: 'Inclusive lower bound of confirmedAt.' }),
    to: instant().optional().meta({ description: 'Exclusive upper bound of confirmedAt.' }),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict()
  .superRefine(fromBeforeTo);

export const visitResponseSchema = z
  .object({
    id: z.uuid(),
    locationId: z.uuid(),
    employeeIds: z.array(z.uuid()),
    shiftId: z.uuid().nullable(),
    confirmedAt: utc(),
    method: z.enum(VISIT_METHODS).meta({ description: 'CUSTOMER_CONTACT: confirmed by a contact of the customer; LOCATION_TAG: a tag at the location.' }),
    verificationState: z.enum(VERIFICATION_STATES),
    recordedAt: utc(),
  })
  .meta({ id: 'VisitConfirmation', description: 'Never carries signatures, device ids, positions or secrets: those stay sealed.' });

export const visitResponse = (v: VisitConfirmation): z.infer<typeof visitResponseSchema> => responseOf(visitResponseSchema, v, {
  employeeIds: [...v.employeeIds],
});
