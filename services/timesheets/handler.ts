import { legacyAreaNamed } from '../legacy-areas';
import { randomUUID } from 'node:crypto';
import { sealRestricted } from '../shared/crypto/restricted';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { createHandler } from '../shared/http/handler';
import { committedWrite } from '../shared/http/idempotent';
import { DEFAULT_LIMIT, listRequest, nextCursor } from '../shared/http/list';
import { requireIdempotencyKey, requireIfMatch } from '../shared/http/preconditions';
import { created, ok, type ApiRequest, type HttpResult } from '../shared/http/request';
import { parseBody } from '../shared/http/validation';
import { isUuid } from '../shared/time';
import { correctTimeEntry, createTimeEntry, voidTimeEntry, type Actor, type TimesheetDeps, type WriteOutcome } from './commands';
import { etagOf } from './domain';
import {
  assertNoImmutableFields,
  correctBodySchema,
  createBodySchema,
  listQuerySchema,
  timeEntryResponse,
  voidBodySchema,
} from './schemas';
import { entryKeys, getEntry, listEntries, readOrgMaxDurationMs } from './store';

let deps: TimesheetDeps | undefined;
const timesheetDeps = (): TimesheetDeps => (deps ??= { db: defaultDb(), now: () => new Date(), newId: randomUUID, seal: sealRestricted });

const actorOf = (request: ApiRequest): Actor => ({ principal: request.principal, requestId: request.requestId });

const entryPath = (request: ApiRequest, id: string) => `/v1/organizations/${request.principal.organizationId}/timesheets/${id}`;

function writeResult(request: ApiRequest, outcome: WriteOutcome, status: 200 | 201): HttpResult {
  const body = { ...timeEntryResponse(outcome.entry, request.principal), staleExportManifestIds: outcome.staleExportManifestIds };
  const headers = { ETag: etagOf(outcome.entry) };
  return status === 201 ? created(body, { ...headers, Location: entryPath(request, outcome.entry.id) }) : ok(body, headers);
}

function entryId(request: ApiRequest): string {
  const id = request.pathParameters.timeEntryId ?? '';
  if (!isUuid(id)) throw new NotFoundError(`Time entry ${id}`);
  return id.toLowerCase();
}

export const handler = createHandler({
  area: legacyAreaNamed('timesheets'),
  operations: {
    async listTimeEntries(request) {
      const { query, binding, position: position } = await listRequest<typeof listQuerySchema, { after: string }>(request, listQuerySchema);
      const limit = query.limit ?? DEFAULT_LIMIT;
      const { db } = timesheetDeps();
      const organizationId = request.principal.organizationId;
      const maxDurationMs = query.from ? await readOrgMaxDurationMs(db, organizationId) : 0;
      const page = await listEntries(db, { organizationId, employeeId: query.employeeId, state: query.state, from: query.from, to: query.to, after: position?.after }, limit, maxDurationMs);
      const last = page.items.at(-1);
      return ok({
        items: page.items.map((e) => timeEntryResponse(e, request.principal)),
        nextCursor: await nextCursor(binding, page.hasMore && last ? { after: entryKeys.position(last) } : undefined),
      });
    },

    async getTimeEntry(request) {
      const id = entryId(request);
      const entry = await getEntry(timesheetDeps().db, request.principal.organizationId, id);
      if (!entry) throw new NotFoundError(`Time entry ${id}`);
      return ok(timeEntryResponse(entry, request.principal), { ETag: etagOf(entry) });
    },

    async createTimeEntry(request) {
      const key = requireIdempotencyKey(request);
      const body = parseBody(createBodySchema, request.body);
      const d = timesheetDeps();
      return committedWrite<WriteOutcome>(d.db, request, key, (extra) => createTimeEntry(d, actorOf(request), body, extra), (o) => writeResult(request, o, 201));
    },

    async correctTimeEntry(request) {
      const key = requireIdempotencyKey(request);
      const id = entryId(request);
      const ifMatch = requireIfMatch(request);
      assertNoImmutableFields(request.body);
      const body = parseBody(correctBodySchema, request.body);
      const d = timesheetDeps();
      return committedWrite<WriteOutcome>(d.db, request, key, (extra) => correctTimeEntry(d, actorOf(request), id, ifMatch, body, extra), (o) => writeResult(request, o, 200));
    },

    async voidTimeEntry(request) {
      const key = requireIdempotencyKey(request);
      const id = entryId(request);
      const ifMatch = requireIfMatch(request);
      const body = parseBody(voidBodySchema, request.body);
      const d = timesheetDeps();
      return committedWrite<WriteOutcome>(d.db, request, key, (extra) => voidTimeEntry(d, actorOf(request), id, ifMatch, body.reason, extra), (o) => writeResult(request, o, 200));
    },
  },
});
