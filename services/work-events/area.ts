import { defineArea } from '../shared/area';
import { listRoute, readRoute } from '../shared/route-shapes';
import { pageSchema } from '../shared/schemas/fields';
import { workEventListQuery, workEventResponseSchema } from './schemas';

/** Scan evidence, read-only: events enter through the evidence channel (services/evidence-ingest), never this API. */
export const workEventsArea = defineArea({
  name: 'work-events',
  api: 'public',
  description: 'Read-only scan evidence.',
  permissions: { table: ['GetItem', 'Query'], cursorSecret: true, restrictedDataKey: false },
  auditEntityTypes: [],
  schemas: { WorkEvent: workEventResponseSchema, WorkEventList: pageSchema(workEventResponseSchema) },
  routes: {
    listWorkEvents: listRoute({
      path: '/work-events',
      scopes: ['work_events:read'],
      summary: 'List work events',
      description: 'Work events (scan evidence) by server timestamp, oldest first. Read-only: evidence enters through the authenticated scan channel, never this API.',
      query: workEventListQuery,
      schema: pageSchema(workEventResponseSchema),
      returns: 'A page of work events.',
    }),
    getWorkEvent: readRoute({
      path: '/work-events/{workEventId}',
      scopes: ['work_events:read'],
      summary: 'Get one work event',
      description: 'One work event, with its ETag (scan evidence never changes: always version 1).',
      schema: workEventResponseSchema,
      returns: 'The work event.',
    }),
  },
});
