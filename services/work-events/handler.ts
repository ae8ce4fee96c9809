import { z } from 'zod';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { createHandler } from '../shared/http/handler';
import { DEFAULT_LIMIT, listRequest, nextCursor } from '../shared/http/list';
import { ok, type ApiRequest } from '../shared/http/request';

import { limitParameter } from '../shared/http/query';
import { instant, isUuid, uuid } from '../shared/time';
import { eventKeys, getWorkEvent, listWorkEvents, type WorkEvent } from './store';

/** Query of GET /work-events (decisions: sorted by server timestamp; from inclusive, to exclusive). */
export const workEventListQuery = z
  .object({
    from: instant().optional(),
    to: instant().optional(),
    employeeId: uuid().optional(),
    verificationState: z.enum(['VERIFIED', 'REVIEW_REQUIRED'], { error: 'verificationState must be VERIFIED or REVIEW_REQUIRED.' }).optional(),
    limit: limitParameter(),
    cursor: z.string().max(2048).optional(),
  })
  .strict()
  .superRefine((q, ctx) => {
    if (q.from !== undefined && q.to !== undefined && q.from >= q.to) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be after from.' });
  });

export const workEventResponseSchema = z
  .object({
    id: z.uuid(),
    employeeId: z.uuid(),
    locationId: z.uuid(),
    taskId: z.uuid().nullable(),
    type: z.enum(['CHECK_IN', 'CHECK_OUT']),
    clientTimestamp: z.string().meta({ format: 'date-time' }),
    serverTimestamp: z.string().meta({ format: 'date-time' }),
    offline: z.boolean(),
    verificationState: z.enum(['VERIFIED', 'REVIEW_REQUIRED']),
    timeEntryId: z.uuid().nullable().meta({ description: 'The SCANNED entry this event projected into.' }),
  })
  .meta({ id: 'WorkEvent' });

/** A work event as returned: never QR ids or secrets, device ids, positions or validation metadata. */
export const workEventResponse = (e: WorkEvent): z.infer<typeof workEventResponseSchema> => ({
  id: e.id,
  employeeId: e.employeeId,
  locationId: e.locationId,
  taskId: e.taskId,
  type: e.type,
  clientTimestamp: e.clientTimestamp,
  serverTimestamp: e.serverTimestamp,
  offline: e.offline,
  verificationState: e.verificationState,
  timeEntryId: e.timeEntryId,
});

const db = () => defaultDb();

function eventId(request: ApiRequest): string {
  const id = request.pathParameters.workEventId ?? '';
  if (!isUuid(id)) throw new NotFoundError(`Work event ${id}`);
  return id.toLowerCase();
}

export const handler = createHandler({
  area: 'work-events',
  operations: {
    async listWorkEvents(request) {
      const { query, binding, position: position } = await listRequest<typeof workEventListQuery, { after: string }>(request, workEventListQuery);
      const limit = query.limit ?? DEFAULT_LIMIT;
      const page = await listWorkEvents(
        db(),
        { organizationId: request.principal.organizationId, employeeId: query.employeeId, verificationState: query.verificationState, from: query.from, to: query.to, after: position?.after },
        limit,
      );
      const last = page.items.at(-1);
      return ok({ items: page.items.map(workEventResponse), nextCursor: await nextCursor(binding, page.hasMore && last ? { after: eventKeys.position(last) } : undefined) });
    },

    async getWorkEvent(request) {
      const id = eventId(request);
      const event = await getWorkEvent(db(), request.principal.organizationId, id);
      if (!event) throw new NotFoundError(`Work event ${id}`);
      return ok(workEventResponse(event));
    },
  },
});
