import { randomUUID } from 'node:crypto';
import { sealRestricted } from '../shared/crypto/restricted';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPosition, nextCursor } from '../shared/http/list';
import { created, ok, type HttpResult } from '../shared/http/request';
import type { Principal } from '../shared/auth/principal';
import { timesheetsArea } from './area';
import { correctTimeEntry, createTimeEntry, etagOf, voidTimeEntry, type TimesheetPorts, type WriteOutcome } from './domain';
import { entryKeys } from './model';
import { timeEntryResponse, timeEntryWriteResponse } from './schemas';
import { getEntry, readOrgMaxDurationMs, timesheetsStore } from './store';
import { reportsExports } from './store-exports';
import { listEntries } from './store-lists';

const writeResult = (outcome: WriteOutcome, status: 200 | 201, request: { readonly principal: Principal; readonly orgPath: string }): HttpResult => {
  const body = timeEntryWriteResponse(outcome, request.principal);
  const etag = etagOf(outcome.entry);
  return status === 201 ? created(body, { ETag: etag, Location: `${request.orgPath}/timesheets/${outcome.entry.id}` }) : ok(body, { ETag: etag });
};

export const handler = areaHandler(timesheetsArea, {
  problemMetrics: { TIME_ENTRY_OVERLAP: 'OverlapRejections' },
  ports: (unit): TimesheetPorts => ({ store: timesheetsStore(defaultDb(), unit, reportsExports), now: () => new Date(), newId: randomUUID, seal: sealRestricted }),
  operations: {
    async listTimeEntries(request) {
      const { query, principal } = request;
      const { binding, position } = await listPosition<{ after: string }>(request);
      const db = defaultDb();
      // The organization's longest interval bounds the window of a range that starts at `from`.
      const maxDurationMs = query.from ? await readOrgMaxDurationMs(db, principal.organizationId) : 0;
      const filter = { organizationId: principal.organizationId, employeeId: query.employeeId, state: query.state, from: query.from, to: query.to, after: position?.after };
      const page = await listEntries(db, filter, query.limit ?? DEFAULT_LIMIT, maxDurationMs);
      const last = page.items.at(-1);
      return ok({
        items: page.items.map((e) => timeEntryResponse(e, principal)),
        nextCursor: await nextCursor(binding, page.hasMore && last ? { after: entryKeys.position(last) } : undefined),
      });
    },

    async getTimeEntry(request) {
      const entry = await getEntry(defaultDb(), request.principal.organizationId, request.params.timeEntryId);
      if (!entry) throw new NotFoundError(`Time entry ${request.params.timeEntryId}`);
      return ok(timeEntryResponse(entry, request.principal), { ETag: etagOf(entry) });
    },

    async createTimeEntry(request) {
      const outcome = await createTimeEntry(request.ports, request.actor, request.body);
      request.metrics.count('TimeEntriesCreated');
      return writeResult(outcome, 201, request);
    },

    async correctTimeEntry(request) {
      const outcome = await correctTimeEntry(request.ports, request.actor, request.params.timeEntryId, request.ifMatch, request.body);
      request.metrics.count('TimeEntriesCorrected');
      return writeResult(outcome, 200, request);
    },

    async voidTimeEntry(request) {
      const outcome = await voidTimeEntry(request.ports, request.actor, request.params.timeEntryId, request.ifMatch, request.body.reason);
      request.metrics.count('TimeEntriesVoided');
      return writeResult(outcome, 200, request);
    },
  },
});
