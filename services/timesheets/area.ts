import { defineArea } from '../shared/area';
import { READ_WRITE } from '../shared/permissions';
import { pageSchema } from '../shared/schemas/fields';
import { correctBodySchema, createBodySchema, listQuerySchema, timeEntryResponseSchema, timeEntryWriteResponseSchema, voidBodySchema } from './schemas';
import { PROBLEMS } from './problems';

const timeEntryList = pageSchema(timeEntryResponseSchema);

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
  schemas: { TimeEntry: timeEntryResponseSchema, TimeEntryWriteResult: timeEntryWriteResponseSchema, TimeEntryList: timeEntryList },
  routes: {
    listTimeEntries: {
      method: 'GET',
      path: '/timesheets',
      scopes: ['timesheets:read'],
      summary: 'List time entries',
      description: 'Time entries overlapping [from, to) (an entry that starts before `from` and ends inside is included), by startedAt then id.',
      query: listQuerySchema,
      success: { status: 200, description: 'A page of time entries.', schema: timeEntryList },
      problems: [],
    },
    createTimeEntry: {
      method: 'POST',
      path: '/timesheets',
      scopes: ['timesheets:write'],
      summary: 'Add a manual time entry',
      description: 'Adds missed work as one complete, CLOSED, MANUAL entry, atomically with its audit entry.',
      body: createBodySchema,
      idempotencyKey: 'required',
      idempotencyInTransaction: true,
      success: { status: 201, description: 'The created entry.', schema: timeEntryWriteResponseSchema, headers: ['ETag', 'Location', 'Idempotency-Replayed'] },
      problems: ['FEATURE_NOT_ENABLED', PROBLEMS.TIME_ENTRY_OVERLAP],
    },
    getTimeEntry: {
      method: 'GET',
      path: '/timesheets/{timeEntryId}',
      scopes: ['timesheets:read'],
      summary: 'Get one time entry',
      description: 'One time entry with its ETag.',
      success: { status: 200, description: 'The entry.', schema: timeEntryResponseSchema, headers: ['ETag'] },
      problems: [],
    },
    correctTimeEntry: {
      method: 'PATCH',
      path: '/timesheets/{timeEntryId}',
      scopes: ['timesheets:write'],
      summary: 'Correct a time entry',
      description: 'Corrects an entry (partial body; SCANNED entries accept startedAt, endedAt and breakMinutes only). Makes a new revision.',
      body: correctBodySchema,
      idempotencyKey: 'required',
      idempotencyInTransaction: true,
      ifMatch: 'required',
      success: { status: 200, description: 'The new revision.', schema: timeEntryWriteResponseSchema, headers: ['ETag', 'Idempotency-Replayed'] },
      problems: ['FEATURE_NOT_ENABLED', PROBLEMS.TIME_ENTRY_OVERLAP, PROBLEMS.TIME_ENTRY_VOIDED],
    },
    voidTimeEntry: {
      method: 'POST',
      path: '/timesheets/{timeEntryId}/void',
      scopes: ['timesheets:write'],
      summary: 'Void a time entry',
      description: 'Voids an entry: a final VOIDED revision. The entry, its work events and its audit history stay readable.',
      body: voidBodySchema,
      idempotencyKey: 'required',
      idempotencyInTransaction: true,
      ifMatch: 'required',
      success: { status: 200, description: 'The VOIDED revision.', schema: timeEntryWriteResponseSchema, headers: ['ETag', 'Idempotency-Replayed'] },
      problems: ['FEATURE_NOT_ENABLED', PROBLEMS.TIME_ENTRY_VOIDED],
    },
  },
});
