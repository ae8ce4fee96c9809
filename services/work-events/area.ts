import { defineArea } from '../shared/area';
import { workEventListQuery, workEventListSchema, workEventResponseSchema } from './schemas';

/** Scan evidence, read-only: events enter through the evidence channel (services/evidence-ingest), never this API. */
export const workEventsArea = defineArea({
  name: 'work-events',
  api: 'public',
  description: 'Read-only scan evidence.',
  permissions: { table: ['GetItem', 'Query'], cursorSecret: true, restrictedDataKey: false },
  auditEntityTypes: [],
  schemas: { WorkEvent: workEventResponseSchema, WorkEventList: workEventListSchema },
  routes: {
    listWorkEvents: {
      method: 'GET',
      path: '/work-events',
      scopes: ['work_events:read'],
      summary: 'List work events',
      description: 'Work events (scan evidence) by server timestamp, oldest first. Read-only: evidence enters through the authenticated scan channel, never this API.',
      query: workEventListQuery,
      success: { status: 200, description: 'A page of work events.', schema: workEventListSchema },
      problems: [],
    },
    getWorkEvent: {
      method: 'GET',
      path: '/work-events/{workEventId}',
      scopes: ['work_events:read'],
      summary: 'Get one work event',
      description: 'One work event.',
      success: { status: 200, description: 'The work event.', schema: workEventResponseSchema },
      problems: [],
    },
  },
});
