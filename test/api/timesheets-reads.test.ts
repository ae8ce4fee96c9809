import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { TimeEntry } from '../../services/timesheets/domain';
import { timeEntryResponseSchema } from '../../services/timesheets/schemas';
import { entryToItem } from '../../services/timesheets/model';
import { call, expectParameters, expectProblem, startApi, walkPages, withQuery, type ApiFixture, type ApiResponse } from '../support/api';
import { addEmployee, createdEntry, etagOf, getEntryResponse, manualBody, scan, scannedEntry, timesheetsUrl, voidEntry } from './timesheets-fixture';

/**
 * GET /timesheets and GET /timesheets/{id}: interval-overlap ranges (`from` inclusive, `to`
 * exclusive), filters, `limit`, cursors, and the source fields that need work_events:read.
 */
let api: ApiFixture;
let list: (query: Record<string, string | number | undefined>, token?: string, organizationId?: string) => Promise<ApiResponse>;
const ids = (res: { body: { items: { id: string }[] } }) => res.body.items.map((e) => e.id);

/** Entries around the range [2020-03-02T10:00Z, 2020-03-02T14:00Z) of one employee. */
const range = { from: '2020-03-02T10:00:00Z', to: '2020-03-02T14:00:00Z' };
const named: Record<string, string> = {};
let rangeEmployee: string;

/** 60 entries on 2019-01-01, two employees starting at the same instants (ties broken by id). */
const bulk: TimeEntry[] = [];
const bulkRange = { from: '2019-01-01T00:00:00Z', to: '2019-01-03T00:00:00Z' };

beforeAll(async () => {
  api = await startApi();
  list = (query, token = api.demo.keys.admin, organizationId) => call('GET', withQuery(timesheetsUrl(api, organizationId), query), { token });

  rangeEmployee = await addEmployee(api);
  const add = async (name: string, startedAt: string, endedAt: string) => {
    const res = await createdEntry(
      api,
      manualBody(api, { startedAt, endedAt }, { employeeId: rangeEmployee, breakMinutes: 0, overlapOverride: true, overlapReason: 'Range fixture' }),
    );
    named[name] = res.body.id;
    return res;
  };
  await add('longFromDayBefore', '2020-03-01T20:00:00Z', '2020-03-02T10:30:00Z');
  await add('endsAtFrom', '2020-03-02T06:00:00Z', '2020-03-02T10:00:00Z');
  await add('startsBeforeEndsInside', '2020-03-02T08:00:00Z', '2020-03-02T12:00:00Z');
  await add('spansRange', '2020-03-02T09:00:00Z', '2020-03-02T15:00:00Z');
  await add('inside', '2020-03-02T11:00:00Z', '2020-03-02T13:00:00Z');
  const toVoid = await add('voided', '2020-03-02T12:00:00Z', '2020-03-02T12:30:00Z');
  await voidEntry(api, toVoid.body.id, toVoid.headers.get('etag')!, { reason: 'Range fixture' });
  await add('startsInsideEndsAfter', '2020-03-02T13:59:00Z', '2020-03-02T14:30:00Z');
  await add('startsAtTo', '2020-03-02T14:00:00Z', '2020-03-02T16:00:00Z');
  await add('dayAfter', '2020-03-03T08:00:00Z', '2020-03-03T09:00:00Z');
  // OPEN entries of two further employees: one opened before the range, one exactly at its end.
  named.openBefore = (await scan(api, await addEmployee(api), 'CHECK_IN', '2020-03-01T09:00:00Z')).timeEntryId!;
  named.openAtTo = (await scan(api, await addEmployee(api), 'CHECK_IN', range.to)).timeEntryId!;

  const [x, y] = [await addEmployee(api), await addEmployee(api)];
  const at = new Date().toISOString();
  for (let hour = 0; hour < 30; hour += 1) {
    for (const employeeId of [x, y]) {
      const startedAt = new Date(Date.UTC(2019, 0, 1, hour)).toISOString();
      bulk.push({
        id: randomUUID(),
        organizationId: api.demo.organizationId,
        employeeId,
        context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.locations[0] },
        startedAt,
        endedAt: new Date(Date.parse(startedAt) + 30 * 60_000).toISOString(),
        breakMinutes: 0,
        origin: 'MANUAL',
        state: 'CLOSED',
        adjusted: false,
        revision: 1,
        createdAt: at,
        updatedAt: at,
      });
    }
  }
  await Promise.all(bulk.map((e) => api.db.doc.send(new PutCommand({ TableName: api.db.tableName, Item: entryToItem(e) }))));
  bulk.sort((a, b) => (a.startedAt === b.startedAt ? (a.id < b.id ? -1 : 1) : a.startedAt < b.startedAt ? -1 : 1));
});
afterAll(() => api?.close());
afterEach(() => jest.restoreAllMocks());

describe('GET /timesheets range (interval overlap, from inclusive, to exclusive)', () => {
  const inRange = ['longFromDayBefore', 'startsBeforeEndsInside', 'spansRange', 'inside', 'voided', 'startsInsideEndsAfter'];

  it('returns the entries that overlap the range, in startedAt order, for one employee', async () => {
    const res = await list({ ...range, employeeId: rangeEmployee });
    expect(res.status).toBe(200);
    expect(res.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids(res)).toEqual(inRange.map((n) => named[n]));
    expect(res.body.nextCursor).toBeNull();
  });

  it('includes an entry that starts before from and ends inside, but not one ending exactly at from or starting at to', async () => {
    const found = ids(await list({ ...range, employeeId: rangeEmployee }));
    expect(found).toContain(named.startsBeforeEndsInside);
    expect(found).not.toContain(named.endsAtFrom);
    expect(found).not.toContain(named.startsAtTo);
    expect(found).not.toContain(named.dayAfter);
  });

  it('treats OPEN entries as open-ended across the organization', async () => {
    const res = await list(range);
    expect(ids(res)).toEqual([named.openBefore, ...inRange.map((n) => named[n])]);
    expect(ids(res)).not.toContain(named.openAtTo);
  });

  it('reads instants with an offset as the same range', async () => {
    const res = await list({ from: '2020-03-02T11:00:00+01:00', to: '2020-03-02T09:00:00-05:00', employeeId: rangeEmployee });
    expect(ids(res)).toEqual(inRange.map((n) => named[n]));
  });

  it('filters by state', async () => {
    expect(ids(await list({ ...range, state: 'OPEN' }))).toEqual([named.openBefore]);
    expect(ids(await list({ ...range, state: 'VOIDED' }))).toEqual([named.voided]);
    expect(ids(await list({ ...range, state: 'CLOSED', employeeId: rangeEmployee }))).toEqual(inRange.filter((n) => n !== 'voided').map((n) => named[n]));
  });

  it('walks a merged range (OPEN and ended entries) page by page without loss or repeats', async () => {
    const pages = await walkPages(withQuery(timesheetsUrl(api), { ...range, limit: 2 }), api.demo.keys.admin);
    expect(pages).toHaveLength(4);
    expect(pages.flatMap((p) => p.body.items.map((e: { id: string }) => e.id))).toEqual([named.openBefore, ...inRange.map((n) => named[n])]);
  });

  it('serves lists with Queries only, never a Scan', async () => {
    const send = jest.spyOn(DynamoDBDocumentClient.prototype, 'send');
    await list({ ...range, employeeId: rangeEmployee });
    await list(range);
    await list({ state: 'OPEN' });
    await list({});
    const commands = send.mock.calls.map(([command]) => (command as object).constructor.name);
    expect(commands).toContain('QueryCommand');
    expect(commands).not.toContain('ScanCommand');
  });
});

describe('GET /timesheets limit and cursor', () => {
  it('returns 50 entries by default with a cursor to the rest', async () => {
    const res = await list(bulkRange);
    expect(ids(res)).toEqual(bulk.slice(0, 50).map((e) => e.id));
    expect(res.body.nextCursor).toEqual(expect.any(String));
  });

  it('returns up to 200 entries', async () => {
    const res = await list({ ...bulkRange, limit: 200 });
    expect(ids(res)).toEqual(bulk.map((e) => e.id));
    expect(res.body.nextCursor).toBeNull();
  });

  it('walks every entry once, in startedAt-then-id order', async () => {
    const pages = await walkPages(withQuery(timesheetsUrl(api), { ...bulkRange, limit: 7 }), api.demo.keys.admin);
    expect(pages).toHaveLength(Math.ceil(bulk.length / 7));
    expect(pages.slice(0, -1).every((p) => p.body.items.length === 7)).toBe(true);
    expect(pages.flatMap((p) => p.body.items.map((e: { id: string }) => e.id))).toEqual(bulk.map((e) => e.id));
  });

  it('walks one employee the same way', async () => {
    const employeeId = bulk[0].employeeId;
    const pages = await walkPages(withQuery(timesheetsUrl(api), { ...bulkRange, employeeId, limit: 4 }), api.demo.keys.admin);
    expect(pages.flatMap((p) => p.body.items.map((e: { id: string }) => e.id))).toEqual(bulk.filter((e) => e.employeeId === employeeId).map((e) => e.id));
  });

  it.each([['0'], ['201'], ['-1'], ['abc'], ['1.5'], ['']])('returns 422 for limit=%s', async (limit) => {
    expectParameters(await call('GET', `${timesheetsUrl(api)}?limit=${limit}`, { token: api.demo.keys.admin }), ['limit']);
  });

  it('returns 422 for an altered cursor', async () => {
    const first = await list({ ...bulkRange, limit: 5 });
    const cursor: string = first.body.nextCursor;
    const i = Math.floor(cursor.length / 2);
    const altered = `${cursor.slice(0, i)}${cursor[i] === 'A' ? 'B' : 'A'}${cursor.slice(i + 1)}`;
    expectParameters(await list({ ...bulkRange, limit: 5, cursor: altered }), ['cursor']);
    expectParameters(await list({ ...bulkRange, limit: 5, cursor: 'not-a-cursor' }), ['cursor']);
  });

  it('returns 422 for a cursor of another query', async () => {
    const first = await list({ ...bulkRange, limit: 5 });
    const cursor = first.body.nextCursor;
    expectParameters(await list({ ...bulkRange, limit: 5, state: 'CLOSED', cursor }), ['cursor']);
    expectParameters(await list({ from: bulkRange.from, limit: 5, cursor }), ['cursor']);
    const events = await call('GET', withQuery(`${api.orgUrl()}/work-events`, { limit: 1 }), { token: api.demo.keys.admin });
    expectParameters(await list({ limit: 1, cursor: events.body.nextCursor }), ['cursor']);
  });

  it('returns 422 for a cursor of another organization', async () => {
    const other = api.demo.otherOrganizationId;
    const body = manualBody(api, { startedAt: '2019-01-01T08:00:00Z', endedAt: '2019-01-01T09:00:00Z' }, {
      employeeId: api.demo.otherOrganizationEmployees[0],
      context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.otherOrganizationLocations[0] },
    });
    const created = await call('POST', timesheetsUrl(api, other), { token: api.demo.keys.otherOrganization, idempotencyKey: randomUUID(), body });
    expect(created.status).toBe(201);
    const theirs = await list({ limit: 1 }, api.demo.keys.otherOrganization, other);
    expect(theirs.body.nextCursor).toEqual(expect.any(String));
    expectParameters(await list({ limit: 1, cursor: theirs.body.nextCursor }), ['cursor']);
  });
});

describe('GET /timesheets query rules', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['from is not an instant', { from: 'yesterday' }, 'from'],
    ['from has no offset', { from: '2020-03-02T10:00:00' }, 'from'],
    ['to is not after from', { from: range.to, to: range.from }, 'to'],
    ['to equals from', { from: range.from, to: range.from }, 'to'],
    ['state is unknown', { state: 'DONE' }, 'state'],
    ['employeeId is not a UUID', { employeeId: 'ada' }, 'employeeId'],
    ['an unknown parameter is sent', { sort: 'startedAt' }, 'sort'],
  ];
  it.each(cases)('returns 422 when %s', async (_name, query, parameter) => {
    expectParameters(await list(query), [parameter]);
  });

  it('returns 422 for a parameter given twice', async () => {
    expectParameters(await call('GET', `${timesheetsUrl(api)}?state=OPEN&state=CLOSED`, { token: api.demo.keys.admin }), ['state']);
  });
});

describe('source fields (need work_events:read)', () => {
  const SOURCE = ['sourceEventIds', 'sourceStartedAt', 'sourceEndedAt', 'sourceBreakMinutes'];

  it('shows the evidence of a SCANNED entry to a key with work_events:read', async () => {
    const scanned = await scannedEntry(api.db, api.demo.employees[0], 'CLOSED');
    for (const token of [api.demo.keys.admin, api.demo.keys.readOnly]) {
      const one = await getEntryResponse(api, scanned.id, token);
      expect(one.body).toMatchObject({
        origin: 'SCANNED',
        sourceEventIds: scanned.source.eventIds,
        sourceStartedAt: scanned.source.startedAt,
        sourceEndedAt: scanned.source.endedAt,
        sourceBreakMinutes: 0,
      });
      expect(one.body.sourceEventIds).toHaveLength(2);
      const listed = await list({ employeeId: api.demo.employees[0] }, token);
      expect(listed.body.items.find((e: { id: string }) => e.id === scanned.id)).toMatchObject({ sourceEventIds: scanned.source.eventIds });
    }
  });

  it('omits them for a key without work_events:read, in the entry and in the list', async () => {
    const token = api.demo.keys.timesheetsNoWorkEvents;
    const scanned = await scannedEntry(api.db, api.demo.employees[0], 'CLOSED');
    const one = await getEntryResponse(api, scanned.id, token);
    expect(one.status).toBe(200);
    for (const field of SOURCE) expect(one.body).not.toHaveProperty(field);
    const listed = await list({}, token);
    expect(listed.body.items.length).toBeGreaterThan(0);
    for (const item of listed.body.items) for (const field of SOURCE) expect(item).not.toHaveProperty(field);
    expect(listed.text).not.toContain(scanned.source.eventIds[0]);
  });
});

describe('GET /timesheets/{timeEntryId}', () => {
  it('answers with the published TimeEntry shape and no other member, with and without source fields', async () => {
    for (const token of [api.demo.keys.admin, api.demo.keys.timesheetsNoWorkEvents]) {
      const all = await list({ limit: 200 }, token);
      expect(all.body.items.length).toBeGreaterThan(0);
      for (const item of all.body.items) expect(timeEntryResponseSchema.strict().safeParse(item).error).toBeUndefined();
      const one = await getEntryResponse(api, all.body.items[0].id, token);
      expect(timeEntryResponseSchema.strict().safeParse(one.body).error).toBeUndefined();
    }
  });

  it('returns the entry with its current ETag', async () => {
    const res = await getEntryResponse(api, named.voided);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(etagOf(named.voided, 2));
    expect(res.body).toMatchObject({ id: named.voided, state: 'VOIDED', revision: 2, employeeId: rangeEmployee });
  });

  it('returns 404 for an entry of another organization', async () => {
    const theirs = await list({}, api.demo.keys.otherOrganization, api.demo.otherOrganizationId);
    expect(theirs.body.items.length).toBeGreaterThan(0);
    for (const entry of theirs.body.items) expectProblem(await getEntryResponse(api, entry.id), 404, 'RESOURCE_NOT_FOUND');
    expect(ids(await list({}))).not.toEqual(expect.arrayContaining([theirs.body.items[0].id]));
  });

  it('returns 403 to a key without timesheets:read and to a key of another organization', async () => {
    expectProblem(await list({}, api.demo.keys.scim), 403, 'SCOPE_REQUIRED');
    expectProblem(await list({}, api.demo.keys.otherOrganization), 403, 'ACCESS_DENIED');
  });
});
