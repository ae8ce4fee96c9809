import { randomUUID } from 'node:crypto';
import { sealRestricted } from '../shared/crypto/restricted';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { createHandler } from '../shared/http/handler';
import { idempotentWrite, toStored } from '../shared/http/idempotent';
import { cursorBinding, DEFAULT_LIMIT, nextCursor, readCursor } from '../shared/http/list';
import { requireIdempotencyKey, requireIfMatch } from '../shared/http/preconditions';
import { created, ok, type ApiRequest, type HttpResult } from '../shared/http/request';
import { parseBody, parseQuery } from '../shared/http/validation';
import type { JsonValue } from '../shared/json';
import { isUuid } from '../shared/time';
import { correctTimeEntry, createTimeEntry, voidTimeEntry, type Actor, type ExtraItems, type TimesheetDeps, type WriteOutcome } from './commands';
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

/** The input an Idempotency-Key is bound to: path parameters, body and If-Match. */
const idempotencyInput = (request: ApiRequest): JsonValue => ({
  path: request.pathParameters,
  body: (request.body ?? null) as JsonValue,
  ifMatch: request.headers['if-match'] ?? null,
});

function writeResult(request: ApiRequest, outcome: WriteOutcome, status: 200 | 201): HttpResult {
  const body = { ...timeEntryResponse(outcome.entry, request.principal), staleExportManifestIds: outcome.staleExportManifestIds };
  const headers = { ETag: etagOf(outcome.entry) };
  return status === 201 ? created(body, { ...headers, Location: entryPath(request, outcome.entry.id) }) : ok(body, headers);
}

/**
 * A create, correction or void: runs once per Idempotency-Key, and the idempotency record of
 * its response is committed in the command's own transaction.
 */
function committedWrite(
  request: ApiRequest,
  key: string,
  status: 200 | 201,
  run: (d: TimesheetDeps, extra: ExtraItems) => Promise<WriteOutcome>,
): Promise<HttpResult> {
  const d = timesheetDeps();
  return idempotentWrite(d.db, request, key, idempotencyInput(request), async (complete) => {
    const outcome = await run(d, async (planned) => [await complete(toStored(writeResult(request, planned, status)))]);
    return writeResult(request, outcome, status);
  });
}

function entryId(request: ApiRequest): string {
  const id = request.pathParameters.timeEntryId ?? '';
  if (!isUuid(id)) throw new NotFoundError(`Time entry ${id}`);
  return id.toLowerCase();
}

export const handler = createHandler({
  area: 'timesheets',
  operations: {
    async listTimeEntries(request) {
      const query = parseQuery(listQuerySchema, request.query);
      const binding = cursorBinding(request, query);
      const position = await readCursor<{ after: string }>(binding, query.cursor);
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
      return committedWrite(request, key, 201, (d, extra) => createTimeEntry(d, actorOf(request), body, extra));
    },

    async correctTimeEntry(request) {
      const key = requireIdempotencyKey(request);
      const id = entryId(request);
      const ifMatch = requireIfMatch(request);
      assertNoImmutableFields(request.body);
      const body = parseBody(correctBodySchema, request.body);
      return committedWrite(request, key, 200, (d, extra) => correctTimeEntry(d, actorOf(request), id, ifMatch, body, extra));
    },

    async voidTimeEntry(request) {
      const key = requireIdempotencyKey(request);
      const id = entryId(request);
      const ifMatch = requireIfMatch(request);
      const body = parseBody(voidBodySchema, request.body);
      return committedWrite(request, key, 200, (d, extra) => voidTimeEntry(d, actorOf(request), id, ifMatch, body.reason, extra));
    },
  },
});
