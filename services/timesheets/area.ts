import { defineArea } from '../shared/area';
import { actionRoute, createRoute, listRoute, readRoute, updateRoute } from '../shared/route-shapes';
import { READ_WRITE } from '../shared/permissions';
import { pageSchema } from '../shared/schemas/fields';
import { correctBodySchema, createBodySchema, listQuerySchema, timeEntryResponseSchema, timeEntryWriteResponseSchema, voidBodySchema } from './schemas';
import { PROBLEMS } from './problems';

/** Time entries: the effective work intervals (scanned or manual), their corrections and voids. */
export const timesheetsArea = defineArea({
  name: 'timesheets',
  api: 'public',
  description: 'Effective time entries: create, correct, void.',
  // Entries, audit, idempotency records and overlap guards in one transaction; ad-hoc
  // coordinates sealed as restricted evidence.
  permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: true },
  problems: PROBLEMS,
  auditEntityTypes: ['time_entry'],
  schemas: { TimeEntry: timeEntryResponseSchema, TimeEntryWriteResult: timeEntryWriteResponseSchema, TimeEntryList: pageSchema(timeEntryResponseSchema) },
  routes: {
    listTimeEntries: listRoute({
      path: '/timesheets',
      scopes: ['timesheets:read'],
      summary: 'List time entries',
      description: 'Time entries overlapping [from, to) (an entry that starts before `from` and ends inside is included), by startedAt then id.',
      query: listQuerySchema,
      schema: pageSchema(timeEntryResponseSchema),
      returns: 'A page of time entries.',
    }),
    createTimeEntry: createRoute({
      path: '/timesheets',
      scopes: ['timesheets:write'],
      summary: 'Add a manual time entry',
      description: 'Adds missed work as one complete, CLOSED, MANUAL entry, atomically with its audit entry.',
      body: createBodySchema,
      idempotencyInTransaction: true,
      schema: timeEntryWriteResponseSchema,
      returns: 'The created entry.',
      problems: ['FEATURE_NOT_ENABLED', PROBLEMS.TIME_ENTRY_OVERLAP],
    }),
    getTimeEntry: readRoute({
      path: '/timesheets/{timeEntryId}',
      scopes: ['timesheets:read'],
      summary: 'Get one time entry',
      description: 'One time entry with its ETag.',
      schema: timeEntryResponseSchema,
      returns: 'The entry.',
    }),
    correctTimeEntry: updateRoute({
      path: '/timesheets/{timeEntryId}',
      scopes: ['timesheets:write'],
      summary: 'Correct a time entry',
      description: 'Corrects an entry (partial body; SCANNED entries accept startedAt, endedAt and breakMinutes only). Makes a new revision.',
      body: correctBodySchema,
      idempotencyKey: 'required',
      idempotencyInTransaction: true,
      schema: timeEntryWriteResponseSchema,
      returns: 'The new revision.',
      problems: ['FEATURE_NOT_ENABLED', PROBLEMS.TIME_ENTRY_OVERLAP, PROBLEMS.TIME_ENTRY_VOIDED],
    }),
    voidTimeEntry: actionRoute({
      path: '/timesheets/{timeEntryId}/void',
      scopes: ['timesheets:write'],
      summary: 'Void a time entry',
      description: 'Voids an entry: a final VOIDED revision. The entry, its work events and its audit history stay readable.',
      body: voidBodySchema,
      idempotencyInTransaction: true,
      schema: timeEntryWriteResponseSchema,
      returns: 'The VOIDED revision.',
      problems: ['FEATURE_NOT_ENABLED', PROBLEMS.TIME_ENTRY_VOIDED],
    }),
  },
});
