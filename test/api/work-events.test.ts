import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { putEmployee } from '../../services/employees/store';
import { workEventResponseSchema } from '../../services/work-events/schemas';
import { eventToItem, type WorkEvent } from '../../services/work-events/model';
import { call, expectParameters, expectProblem, itemsOfType, startApi, walkPages, withQuery, type ApiFixture } from '../support/api';

/**
 * GET /work-events and GET /work-events/{id}: read-only scan evidence with its verification
 * state, never QR ids, device ids, positions or validation metadata. The demo seed ingests
 * every scan WITH restricted data (QR id, device id, position, accuracy), so any leak shows.
 */
let api: ApiFixture;
let eventsUrl: string;
const list = (query: Record<string, string | number | undefined>, token = api.demo.keys.admin) => call('GET', withQuery(eventsUrl, query), { token });
const getEvent = (id: string, token = api.demo.keys.admin) => call('GET', `${eventsUrl}/${id}`, { token });
const ids = (res: { body: { items: { id: string }[] } }) => res.body.items.map((e) => e.id);

/** What the seed's restricted data looks like (services/local/seed.ts). */
const RESTRICTED = [/qr-/i, /device-/i, /53\.551/, /9\.993/, /accuracy/i, /qrPublicId/i, /deviceId/i, /latitude/i, /longitude/i, /validation/i, /sealed/i, /ciphertext/i, /restricted/i];
const leaks = (text: string) => RESTRICTED.filter((r) => r.test(text)).map(String);

/** 55 further events of one employee, written directly (the channel is tested elsewhere). */
const bulk: WorkEvent[] = [];
let bulkEmployee: string;

beforeAll(async () => {
  api = await startApi();
  eventsUrl = `${api.orgUrl()}/work-events`;
  bulkEmployee = randomUUID();
  const at = new Date().toISOString();
  await putEmployee(api.db, { id: bulkEmployee, organizationId: api.demo.organizationId, userName: 'bulk@test.example', emails: [], active: true, createdAt: at, updatedAt: at, version: 1 });
  for (let i = 0; i < 55; i += 1) {
    // Pairs share a server timestamp: ties are broken by id.
    const serverTimestamp = new Date(Date.UTC(2019, 5, 1, 0, Math.floor(i / 2))).toISOString();
    bulk.push({
      id: randomUUID(),
      organizationId: api.demo.organizationId,
      employeeId: bulkEmployee,
      locationId: api.demo.locations[1],
      taskId: null,
      type: i % 2 === 0 ? 'CHECK_IN' : 'CHECK_OUT',
      clientTimestamp: serverTimestamp,
      serverTimestamp,
      offline: i % 3 === 0,
      verificationState: i % 5 === 0 ? 'REVIEW_REQUIRED' : 'VERIFIED',
      timeEntryId: null,
    });
  }
  await Promise.all(bulk.map((e) => api.db.doc.send(new PutCommand({ TableName: api.db.tableName, Item: eventToItem(e) }))));
  bulk.sort((a, b) => (a.serverTimestamp === b.serverTimestamp ? (a.id < b.id ? -1 : 1) : a.serverTimestamp < b.serverTimestamp ? -1 : 1));
});
afterAll(() => api?.close());
afterEach(() => jest.restoreAllMocks());

describe('GET /work-events', () => {
  it('lists the organization events with verification state and no restricted data', async () => {
    const res = await list({ employeeId: api.demo.employees[0] });
    expect(res.status).toBe(200);
    expect(res.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.items).toHaveLength(2);
    const [checkIn, checkOut] = res.body.items;
    expect(checkIn).toMatchObject({ employeeId: api.demo.employees[0], locationId: api.demo.locations[0], type: 'CHECK_IN', verificationState: 'VERIFIED', offline: false });
    expect(checkOut).toMatchObject({ type: 'CHECK_OUT', verificationState: 'VERIFIED', timeEntryId: checkIn.timeEntryId });
    for (const e of res.body.items) {
      expect(e.clientTimestamp).toMatch(/Z$/);
      expect(e.serverTimestamp).toMatch(/Z$/);
    }
    expect(leaks(res.text)).toEqual([]);
  });

  it('never leaks restricted data of any seeded event, in the list or one by one', async () => {
    const all = await list({ limit: 200 });
    expect(all.body.items.length).toBeGreaterThanOrEqual(4);
    expect(leaks(all.text)).toEqual([]);
    // The published WorkEvent shape, and no member beyond it.
    for (const e of all.body.items) expect(workEventResponseSchema.strict().safeParse(e).error).toBeUndefined();
    for (const e of all.body.items.filter((i: WorkEvent) => i.employeeId !== bulkEmployee)) {
      const one = await getEvent(e.id);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(e);
      expect(one.headers.get('etag')).toBe(`"work-event:${e.id}:v1"`);
      expect(leaks(one.text)).toEqual([]);
    }
    // The restricted data exists, sealed, in items of their own.
    expect((await itemsOfType(api.db, 'RestrictedEvidence')).filter((i) => i.kind === 'SCAN').length).toBeGreaterThanOrEqual(4);
  });

  it('shows a REVIEW_REQUIRED event, never projected into a time entry', async () => {
    const res = await list({ employeeId: api.demo.employees[2] });
    expect(res.body.items).toEqual([expect.objectContaining({ type: 'CHECK_IN', verificationState: 'REVIEW_REQUIRED', timeEntryId: null })]);
    const entries = await call('GET', withQuery(`${api.orgUrl()}/timesheets`, { employeeId: api.demo.employees[2] }), { token: api.demo.keys.admin });
    expect(entries.body.items).toEqual([]);
    expect((await itemsOfType(api.db, 'TimeEntry')).filter((e) => e.employeeId === api.demo.employees[2])).toEqual([]);
  });

  it('filters by verification state', async () => {
    const review = await list({ verificationState: 'REVIEW_REQUIRED', limit: 200 });
    expect(review.body.items.length).toBeGreaterThan(0);
    expect(review.body.items.every((e: WorkEvent) => e.verificationState === 'REVIEW_REQUIRED')).toBe(true);
    expect(ids(review)).toEqual(expect.arrayContaining(bulk.filter((e) => e.verificationState === 'REVIEW_REQUIRED').map((e) => e.id)));
  });

  it('keeps events of other organizations out', async () => {
    const mine = await list({ limit: 200 });
    const theirs = await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}/work-events`, { token: api.demo.keys.otherOrganization });
    expect(theirs.body.items.length).toBe(2);
    expect(ids(mine)).not.toEqual(expect.arrayContaining([ids(theirs)[0]]));
    expect(mine.body.items.every((e: WorkEvent) => e.employeeId !== api.demo.otherOrganizationEmployees[0])).toBe(true);
  });

  it('orders by server timestamp, then id, and walks every event once', async () => {
    const pages = await walkPages(withQuery(eventsUrl, { employeeId: bulkEmployee, limit: 6 }), api.demo.keys.admin);
    expect(pages).toHaveLength(Math.ceil(bulk.length / 6));
    expect(pages.flatMap((p) => p.body.items.map((e: WorkEvent) => e.id))).toEqual(bulk.map((e) => e.id));
  });

  it('returns 50 events by default with a cursor, and up to 200', async () => {
    const first = await list({ employeeId: bulkEmployee });
    expect(ids(first)).toEqual(bulk.slice(0, 50).map((e) => e.id));
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const all = await list({ employeeId: bulkEmployee, limit: 200 });
    expect(all.body.items).toHaveLength(55);
    expect(all.body.nextCursor).toBeNull();
  });

  it('reads from as inclusive and to as exclusive on the server timestamp', async () => {
    const pivot = bulk[10].serverTimestamp; // bulk[10] and bulk[11] share it
    const from = await list({ employeeId: bulkEmployee, from: pivot, limit: 200 });
    expect(ids(from)).toEqual(bulk.slice(10).map((e) => e.id));
    const to = await list({ employeeId: bulkEmployee, to: pivot, limit: 200 });
    expect(ids(to)).toEqual(bulk.slice(0, 10).map((e) => e.id));
  });

  it.each([['0'], ['201'], ['x']])('returns 422 for limit=%s', async (limit) => {
    expectParameters(await call('GET', `${eventsUrl}?limit=${limit}`, { token: api.demo.keys.admin }), ['limit']);
  });

  it('returns 422 for an altered cursor, a cursor of another query and one of another organization', async () => {
    const first = await list({ employeeId: bulkEmployee, limit: 5 });
    const cursor: string = first.body.nextCursor;
    const altered = `${cursor.slice(0, 10)}${cursor[10] === 'x' ? 'y' : 'x'}${cursor.slice(11)}`;
    expectParameters(await list({ employeeId: bulkEmployee, limit: 5, cursor: altered }), ['cursor']);
    expectParameters(await list({ limit: 5, cursor }), ['cursor']);
    const theirs = await call('GET', withQuery(`${api.orgUrl(api.demo.otherOrganizationId)}/work-events`, { limit: 1 }), { token: api.demo.keys.otherOrganization });
    expectParameters(await list({ limit: 1, cursor: theirs.body.nextCursor }), ['cursor']);
  });

  it('returns 422 for malformed filters', async () => {
    expectParameters(await list({ verificationState: 'PENDING' }), ['verificationState']);
    expectParameters(await list({ employeeId: 'someone' }), ['employeeId']);
    expectParameters(await list({ from: '2020-01-01' }), ['from']);
    expectParameters(await list({ deviceId: 'x' }), ['deviceId']);
  });

  it('serves the list with Queries only, never a Scan', async () => {
    const send = jest.spyOn(DynamoDBDocumentClient.prototype, 'send');
    await list({});
    await list({ employeeId: bulkEmployee, verificationState: 'VERIFIED', from: '2019-01-01T00:00:00Z', to: '2030-01-01T00:00:00Z' });
    const commands = send.mock.calls.map(([command]) => (command as object).constructor.name);
    expect(commands).toContain('QueryCommand');
    expect(commands).not.toContain('ScanCommand');
  });
});

describe('GET /work-events/{workEventId}', () => {
  it('returns 404 for an unknown id and for an id that is not a UUID', async () => {
    expectProblem(await getEvent(randomUUID()), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await getEvent('qr-4e5f6071'), 404, 'RESOURCE_NOT_FOUND');
  });

  it('returns 404 for an event of another organization', async () => {
    const foreign = (await itemsOfType(api.db, 'WorkEvent')).filter((e) => e.organizationId === api.demo.otherOrganizationId);
    expect(foreign.length).toBe(2);
    for (const e of foreign) expectProblem(await getEvent(e.id), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('access to work events', () => {
  it('returns 403 SCOPE_REQUIRED to a key without work_events:read and 200 to a read-only key', async () => {
    expectProblem(await list({}, api.demo.keys.timesheetsNoWorkEvents), 403, 'SCOPE_REQUIRED');
    expect((await list({}, api.demo.keys.readOnly)).status).toBe(200);
  });

  it('returns 403 ACCESS_DENIED to a key of another organization', async () => {
    const [own] = (await itemsOfType(api.db, 'WorkEvent')).filter((e) => e.organizationId === api.demo.organizationId);
    expectProblem(await list({}, api.demo.keys.otherOrganization), 403, 'ACCESS_DENIED');
    expectProblem(await getEvent(own.id, api.demo.keys.otherOrganization), 403, 'ACCESS_DENIED');
  });

  it('is read-only: writes are 405 with Allow: GET', async () => {
    const [own] = (await itemsOfType(api.db, 'WorkEvent')).filter((e) => e.organizationId === api.demo.organizationId);
    const body = { employeeId: api.demo.employees[0], locationId: api.demo.locations[0], type: 'CHECK_IN', clientTimestamp: '2025-01-01T08:00:00Z', offline: false, verificationState: 'VERIFIED' };
    const attempts = [
      await call('POST', eventsUrl, { token: api.demo.keys.admin, body, idempotencyKey: randomUUID() }),
      await call('PATCH', `${eventsUrl}/${own.id}`, { token: api.demo.keys.admin, body: { verificationState: 'VERIFIED' } }),
      await call('DELETE', `${eventsUrl}/${own.id}`, { token: api.demo.keys.admin }),
    ];
    for (const res of attempts) {
      expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).toBe('GET');
    }
    expect((await itemsOfType(api.db, 'WorkEvent')).length).toBe(8 + bulk.length);
  });
});
