import * as z from 'zod';
import { onIndexes } from '../shared/ddb/table-spec';
import type { Key } from '../shared/ddb/read';

/**
 * Shifts and visit confirmations as stored: each type is the output of its item schema, and
 * items are parsed with it on read (keys dropped, a malformed item fails loudly). Keys
 * (docs/areas/planning.md):
 *   shift       PK ORG#<org>#SHIFT#<id>             SK SHIFT
 *   guard       PK ORG#<org>#EMP#<employee>#PLAN    SK GUARD                   (version: serializes publishes of one employee)
 *   published   PK ORG#<org>#EMP#<employee>#PLAN    SK SHIFT#<startsAt>#<id>   (the employee's PUBLISHED shifts: id, interval)
 *   GSI1 ORG#<org>#SHIFTS                 / <startsAt>#<id>   shifts of the organization by start
 *   GSI2 ORG#<org>#EMP#<employee>#SHIFTS  / <startsAt>#<id>   shifts of one employee by start (open shifts have none)
 *   GSI3 ORG#<org>#LOC#<location>#SHIFTS  / <startsAt>#<id>   shifts of one location by start
 *   visit       PK ORG#<org>#VISIT#<id>             SK VISIT
 *   restricted  PK ORG#<org>#VISIT#<id>             SK RESTRICTED             (sealed signature, device, position; never read by the API)
 *   GSI1 ORG#<org>#VISITS                 / <confirmedAt>#<id>
 *   GSI2 ORG#<org>#LOC#<location>#VISITS  / <confirmedAt>#<id>
 * Instants are RFC 3339 UTC with milliseconds (fixed width: positions sort as text). A shift
 * lasts at most 24 hours, so every shift overlapping [from, to) starts in [from - 24 h, to).
 */

export const SHIFT_STATES = ['DRAFT', 'PUBLISHED', 'CANCELLED'] as const;
export type ShiftState = (typeof SHIFT_STATES)[number];

/** The longest shift: bounds every overlap window. */
export const MAX_SHIFT_MS = 24 * 3_600_000;

export const shiftSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    /** null: an open shift, not assigned yet. */
    employeeId: z.string().nullable(),
    locationId: z.string(),
    startsAt: z.string(),
    endsAt: z.string(),
    breakMinutes: z.number().int(),
    taskIds: z.array(z.string()).readonly(),
    notes: z.string().nullable().default(null),
    state: z.enum(SHIFT_STATES),
    publishedAt: z.string().nullable().default(null),
    cancelledAt: z.string().nullable().default(null),
    cancelReason: z.string().nullable().default(null),
    version: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .readonly();
export type Shift = z.output<typeof shiftSchema>;

/** The per-employee guard of published shifts; a missing item reads as version 0. */
export const planGuardSchema = z.object({ organizationId: z.string(), employeeId: z.string(), version: z.number().int().default(0) }).readonly();
export type PlanGuard = z.output<typeof planGuardSchema>;

/** A PUBLISHED shift on its employee's plan: what an overlap check reads consistently. */
export const plannedItemSchema = z.object({ id: z.string(), startsAt: z.string(), endsAt: z.string() }).readonly();
export type PlannedShift = z.output<typeof plannedItemSchema>;

export const VISIT_METHODS = ['CUSTOMER_CONTACT', 'LOCATION_TAG'] as const;
export const VERIFICATION_STATES = ['VERIFIED', 'REVIEW_REQUIRED'] as const;

/** Proof that a visit at a location happened; signatures, devices and positions are sealed apart. */
export const visitConfirmationSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    locationId: z.string(),
    employeeIds: z.array(z.string()).readonly(),
    shiftId: z.string().nullable().default(null),
    confirmedAt: z.string(),
    method: z.enum(VISIT_METHODS),
    verificationState: z.enum(VERIFICATION_STATES),
    recordedAt: z.string(),
  })
  .readonly();
export type VisitConfirmation = z.output<typeof visitConfirmationSchema>;

const planPartition = (org: string, employeeId: string) => `ORG#${org}#EMP#${employeeId}#PLAN`;

export const shiftKeys = {
  shift: (org: string, id: string): Key => ({ PK: `ORG#${org}#SHIFT#${id}`, SK: 'SHIFT' }),
  guard: (org: string, employeeId: string): Key => ({ PK: planPartition(org, employeeId), SK: 'GUARD' }),
  planned: (org: string, employeeId: string, s: Pick<Shift, 'startsAt' | 'id'>): Key => ({ PK: planPartition(org, employeeId), SK: `SHIFT#${s.startsAt}#${s.id}` }),
  planPartition,
  byOrganization: (org: string) => `ORG#${org}#SHIFTS`,
  byEmployee: (org: string, employeeId: string) => `ORG#${org}#EMP#${employeeId}#SHIFTS`,
  byLocation: (org: string, locationId: string) => `ORG#${org}#LOC#${locationId}#SHIFTS`,
  position: (s: Pick<Shift, 'startsAt' | 'id'>) => `${s.startsAt}#${s.id}`,
};

export const visitKeys = {
  visit: (org: string, id: string): Key => ({ PK: `ORG#${org}#VISIT#${id}`, SK: 'VISIT' }),
  restricted: (org: string, id: string): Key => ({ PK: `ORG#${org}#VISIT#${id}`, SK: 'RESTRICTED' }),
  byOrganization: (org: string) => `ORG#${org}#VISITS`,
  byLocation: (org: string, locationId: string) => `ORG#${org}#LOC#${locationId}#VISITS`,
  position: (v: Pick<VisitConfirmation, 'confirmedAt' | 'id'>) => `${v.confirmedAt}#${v.id}`,
};

export function shiftToItem(s: Shift): Record<string, unknown> {
  const position = shiftKeys.position(s);
  return {
    ...shiftKeys.shift(s.organizationId, s.id),
    ...onIndexes(position, {
      GSI1: shiftKeys.byOrganization(s.organizationId),
      GSI2: s.employeeId ? shiftKeys.byEmployee(s.organizationId, s.employeeId) : undefined,
      GSI3: shiftKeys.byLocation(s.organizationId, s.locationId),
    }),
    itemType: 'Shift',
    ...s,
  };
}

export const shiftFromItem = (item: Record<string, unknown>): Shift => shiftSchema.parse(item);

export const guardFromItem = (org: string, employeeId: string, item: Record<string, unknown> | undefined): PlanGuard => planGuardSchema.parse({ ...item, organizationId: org, employeeId });

export const guardToItem = (g: PlanGuard): Record<string, unknown> => ({ ...shiftKeys.guard(g.organizationId, g.employeeId), itemType: 'PlanGuard', version: g.version });

export const plannedToItem = (s: Shift & { employeeId: string }): Record<string, unknown> => ({
  ...shiftKeys.planned(s.organizationId, s.employeeId, s),
  itemType: 'PlannedShift',
  id: s.id,
  startsAt: s.startsAt,
  endsAt: s.endsAt,
});

export const plannedFromItem = (item: Record<string, unknown>): PlannedShift => plannedItemSchema.parse(item);

export function visitToItem(v: VisitConfirmation): Record<string, unknown> {
  const position = visitKeys.position(v);
  return {
    ...visitKeys.visit(v.organizationId, v.id),
    ...onIndexes(position, { GSI1: visitKeys.byOrganization(v.organizationId), GSI2: visitKeys.byLocation(v.organizationId, v.locationId) }),
    itemType: 'VisitConfirmation',
    ...v,
  };
}

export const visitFromItem = (item: Record<string, unknown>): VisitConfirmation => visitConfirmationSchema.parse(item);
