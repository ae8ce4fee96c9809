import { defaultDb } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPosition, nextCursor } from '../shared/http/list';
import { ok } from '../shared/http/request';
import { workEventsArea } from './area';
import { eventKeys, workEventEtag } from './model';
import { workEventResponse } from './schemas';
import { getWorkEvent, listWorkEvents } from './store';

export const handler = areaHandler(workEventsArea, {
  ports: () => ({ db: defaultDb() }),
  operations: {
    async listWorkEvents({ query, principal, route, ports }) {
      const { binding, position } = await listPosition<{ after: string }>({ query, principal, route });
      const filter = { organizationId: principal.organizationId, employeeId: query.employeeId, verificationState: query.verificationState, from: query.from, to: query.to, after: position?.after };
      const page = await listWorkEvents(ports.db, filter, query.limit ?? DEFAULT_LIMIT);
      const last = page.items.at(-1);
      return ok({ items: page.items.map(workEventResponse), nextCursor: await nextCursor(binding, page.hasMore && last ? { after: eventKeys.position(last) } : undefined) });
    },

    async getWorkEvent({ params, principal, ports }) {
      const event = await getWorkEvent(ports.db, principal.organizationId, params.workEventId);
      if (!event) throw new NotFoundError(`Work event ${params.workEventId}`);
      return ok(workEventResponse(event), { ETag: workEventEtag(event) });
    },
  },
});
