import { defineArea } from '../shared/area';
import { actionRoute, createRoute, listRoute, readRoute, updateRoute } from '../shared/route-shapes';
import { READ_WRITE } from '../shared/permissions';
import { pageSchema } from '../shared/schemas/fields';
import { bulkPublishBody, bulkPublishResponseSchema, cancelShiftBody, createShiftBody, publishShiftBody, shiftListQuery, shiftResponseSchema, updateShiftBody, visitListQuery, visitResponseSchema } from './schemas';
import { PROBLEMS } from './problems';

const ACTUAL = "Every shift carries `plannedMinutes`, `actualMinutes` (the employee's effective time entries that overlap it) and `varianceMinutes`.";

/** Planning and field work: shifts (draft, publish, cancel) and the read-only visit confirmations. */
export const planningArea = defineArea({
  name: 'planning',
  api: 'public',
  description: 'Shifts (planned work, published without overlaps) with planned vs actual minutes, and read-only visit confirmations.',
  // Shifts, the employees' plan guards, audit and idempotency records in one transaction per shift.
  permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false },
  problems: PROBLEMS,
  demoSeed: true,
  auditEntityTypes: ['shift'],
  schemas: { Shift: shiftResponseSchema, ShiftList: pageSchema(shiftResponseSchema), ShiftPublishResult: bulkPublishResponseSchema, VisitConfirmation: visitResponseSchema, VisitConfirmationList: pageSchema(visitResponseSchema) },
  routes: {
    listShifts: listRoute({
      path: '/planning/shifts',
      scopes: ['planning:read'],
      summary: 'List shifts',
      description: `Shifts overlapping [from, to) (a shift that starts before \`from\` and ends after it is included), optionally of one employee, one location or one state, by startsAt then id. ${ACTUAL}`,
      query: shiftListQuery,
      schema: pageSchema(shiftResponseSchema),
      returns: 'A page of shifts.',
    }),
    createShift: createRoute({
      path: '/planning/shifts',
      scopes: ['planning:write'],
      summary: 'Plan a shift',
      description:
        'Creates a DRAFT shift of an employee (or an open shift without one) at a location, at most 24 hours long. Employee, location and tasks must be of this organization, active (the employee not deactivated, location and tasks not archived), and the tasks of that location (422 at the field); checked again in the transaction.',
      body: createShiftBody,
      schema: shiftResponseSchema,
      returns: 'The DRAFT shift.',
    }),
    publishShifts: {
      method: 'POST',
      path: '/planning/shifts/publish',
      scopes: ['planning:write'],
      summary: 'Publish the draft shifts of a range',
      description:
        'Publishes every DRAFT shift starting in [from, to), optionally of one employee or location (at most 200; more is 422). Atomic per shift: a shift that would overlap another published shift of its employee is not published and is listed in `rejected` with `SHIFT_OVERLAP` (a bulk publish never overrides), one whose location or a task of which was archived, or whose employee was deactivated, with `SHIFT_LOCATION_ARCHIVED`, `SHIFT_TASK_ARCHIVED` or `SHIFT_EMPLOYEE_INACTIVE`; the others are published. Repeating it publishes nothing twice.',
      body: bulkPublishBody,
      idempotencyKey: 'required',
      success: { status: 200, description: 'What was published and what was not.', schema: bulkPublishResponseSchema, headers: ['Idempotency-Replayed'] },
      problems: [],
    },
    getShift: readRoute({
      path: '/planning/shifts/{shiftId}',
      scopes: ['planning:read'],
      summary: 'Get one shift',
      description: `One shift with its ETag. ${ACTUAL}`,
      schema: shiftResponseSchema,
      returns: 'The shift.',
    }),
    updateShift: updateRoute({
      path: '/planning/shifts/{shiftId}',
      scopes: ['planning:write'],
      summary: 'Change a shift',
      description:
        'Changes a DRAFT or PUBLISHED shift (partial; a change to the current values changes nothing). A changed employee, location or task list is checked as on create (422 at the field). A PUBLISHED shift stays published and must not come to overlap another published shift of its employee (409 SHIFT_OVERLAP unless `overlapOverride` with `overlapReason`). A CANCELLED shift is final.',
      body: updateShiftBody,
      idempotencyKey: 'optional',
      schema: shiftResponseSchema,
      returns: 'The shift after the change.',
      problems: [PROBLEMS.SHIFT_OVERLAP, PROBLEMS.SHIFT_CANCELLED],
    }),
    publishShift: actionRoute({
      path: '/planning/shifts/{shiftId}/publish',
      scopes: ['planning:write'],
      summary: 'Publish a shift',
      description:
        'DRAFT -> PUBLISHED. The location must not have been archived (409 SHIFT_LOCATION_ARCHIVED), nor a task of the shift (409 SHIFT_TASK_ARCHIVED), nor the employee deactivated (409 SHIFT_EMPLOYEE_INACTIVE) since the shift was drafted; checked again in the transaction. Two published shifts of one employee never overlap (checked atomically: of two publishes that would overlap exactly one succeeds); `overlapOverride: true` with `overlapReason` publishes anyway and is audited with the overlapped shifts. The body may be absent.',
      body: publishShiftBody,
      bodyOptional: true,
      schema: shiftResponseSchema,
      returns: 'The PUBLISHED shift.',
      problems: [PROBLEMS.SHIFT_OVERLAP, PROBLEMS.SHIFT_PUBLISHED, PROBLEMS.SHIFT_CANCELLED, PROBLEMS.SHIFT_LOCATION_ARCHIVED, PROBLEMS.SHIFT_TASK_ARCHIVED, PROBLEMS.SHIFT_EMPLOYEE_INACTIVE],
    }),
    cancelShift: actionRoute({
      path: '/planning/shifts/{shiftId}/cancel',
      scopes: ['planning:write'],
      summary: 'Cancel a shift',
      description: 'DRAFT or PUBLISHED -> CANCELLED, with a reason. The shift stays readable; a cancelled shift is final.',
      body: cancelShiftBody,
      schema: shiftResponseSchema,
      returns: 'The CANCELLED shift.',
      problems: [PROBLEMS.SHIFT_CANCELLED],
    }),
    listVisitConfirmations: listRoute({
      path: '/visit-confirmations',
      scopes: ['work_events:read'],
      summary: 'List visit confirmations',
      description: 'Proofs that a visit happened (confirmed by a customer contact or a location tag), by confirmedAt then id, optionally of one location or employee, or one verification state, within [from, to). Read-only: written by the evidence channel.',
      query: visitListQuery,
      schema: pageSchema(visitResponseSchema),
      returns: 'A page of visit confirmations.',
    }),
    getVisitConfirmation: readRoute({
      path: '/visit-confirmations/{visitConfirmationId}',
      scopes: ['work_events:read'],
      summary: 'Get one visit confirmation',
      description: 'One visit confirmation with its ETag (a confirmation never changes: always version 1). Signatures, device ids, positions and secrets are never returned.',
      schema: visitResponseSchema,
      returns: 'The visit confirmation.',
    }),
  },
});
