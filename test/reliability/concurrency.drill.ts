import { randomUUID } from 'node:crypto';
import { call, itemsOfType, startApi, type ApiFixture, type ApiResponse } from '../support/api';
import { addEmployee, concurrently, dayInterval, expectConsistent, manualBody, post, record, tally, timesheetsUrl } from './support';

/**
 * Concurrency drills through the local gateway (real authorizer, handlers and transactions on
 * DynamoDB Local): requests issued at once that race for the same employee, the same
 * Idempotency-Key, the same ETag or the same SCIM externalId. DynamoDB Local serializes
 * transactions (it never raises TransactionConflict), so these drills prove the conditions of
 * each transaction item, not the retry on TransactionConflict (unit-tested with a synthetic
 * cancellation in test/unit/transaction.test.ts).
 */
const N = 16;
let api: ApiFixture;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());
afterAll(async () => {
  // Whatever the drills raced, the table must hold every invariant afterwards.
  await expectConsistent(api.db);
});

const entriesOf = async (employeeId: string) => (await itemsOfType(api.db, 'TimeEntry')).filter((e) => e.employeeId === employeeId);
const codeOf = (r: ApiResponse) => (r.body as { code?: string } | undefined)?.code;

describe('overlapping creates for one employee', () => {
  it('commits exactly one of 16 overlapping intervals; the others get 409 TIME_ENTRY_OVERLAP', async () => {
    const employeeId = await addEmployee(api.db, api.demo.organizationId);
    const responses = await concurrently(N, (i) => post(api, manualBody(api, employeeId, dayInterval(0, `08:${String(i).padStart(2, '0')}`, '16:00'))));
    record('overlapping creates', { concurrent: N, outcome: tally(responses) });

    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of responses.filter((x) => x.status !== 201)) expect([r.status, codeOf(r)]).toEqual([409, 'TIME_ENTRY_OVERLAP']);
    expect(await entriesOf(employeeId)).toHaveLength(1);
  });

  it('commits 16 disjoint intervals of one employee, or answers 503 TRANSACTION_CONFLICT with Retry-After', async () => {
    const employeeId = await addEmployee(api.db, api.demo.organizationId);
    const responses = await concurrently(N, (i) => post(api, manualBody(api, employeeId, dayInterval(10 + i))));
    record('disjoint creates, one employee', { concurrent: N, outcome: tally(responses) });

    const created = responses.filter((r) => r.status === 201);
    for (const r of responses.filter((x) => x.status !== 201)) {
      expect([r.status, codeOf(r)]).toEqual([503, 'TRANSACTION_CONFLICT']);
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    const stored = await entriesOf(employeeId);
    expect(stored.map((e) => e.id).sort()).toEqual(created.map((r) => r.body.id).sort());
    // The guard serializes one employee's writes; most of them must still get through.
    expect(created.length).toBeGreaterThanOrEqual(N / 2);
  });

  it('commits 16 creates for 16 employees at once, all of them', async () => {
    const employees = await Promise.all(Array.from({ length: N }, () => addEmployee(api.db, api.demo.organizationId)));
    const responses = await concurrently(N, (i) => post(api, manualBody(api, employees[i], dayInterval(40))));
    record('creates, one per employee', { concurrent: N, outcome: tally(responses) });
    expect(tally(responses)).toEqual({ '201': N });
  });
});

describe('same Idempotency-Key', () => {
  it('creates one entry from 16 identical requests; the rest replay it or are told it is in progress', async () => {
    const employeeId = await addEmployee(api.db, api.demo.organizationId);
    const key = randomUUID();
    const body = manualBody(api, employeeId, dayInterval(60));
    const responses = await concurrently(N, () => post(api, body, { idempotencyKey: key }));
    record('same key, same body', { concurrent: N, outcome: tally(responses) });

    const ok = responses.filter((r) => r.status === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.body.id)).size).toBe(1);
    expect(ok.filter((r) => r.headers.get('idempotency-replayed') !== 'true')).toHaveLength(1);
    for (const r of responses.filter((x) => x.status !== 201)) expect([r.status, codeOf(r)]).toEqual([409, 'IDEMPOTENCY_REQUEST_IN_PROGRESS']);
    expect(await entriesOf(employeeId)).toHaveLength(1);

    const replay = await post(api, body, { idempotencyKey: key });
    expect({ status: replay.status, replayed: replay.headers.get('idempotency-replayed'), id: replay.body.id, etag: replay.headers.get('etag') }).toEqual({
      status: 201,
      replayed: 'true',
      id: ok[0].body.id,
      etag: ok[0].headers.get('etag'),
    });
  });

  it('applies at most one of 16 different bodies sent with one key; the rest are 409', async () => {
    const employeeId = await addEmployee(api.db, api.demo.organizationId);
    const key = randomUUID();
    const responses = await concurrently(N, (i) => post(api, manualBody(api, employeeId, dayInterval(70 + i)), { idempotencyKey: key }));
    record('same key, different bodies', { concurrent: N, outcome: tally(responses) });

    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of responses.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_REQUEST_IN_PROGRESS']).toContain(codeOf(r));
    }
    expect(await entriesOf(employeeId)).toHaveLength(1);
  });
});

describe('one ETag, many changes', () => {
  async function createdEntry(day: number) {
    const employeeId = await addEmployee(api.db, api.demo.organizationId);
    const res = await post(api, manualBody(api, employeeId, dayInterval(day)));
    expect(res.status).toBe(201);
    return { id: res.body.id as string, etag: res.headers.get('etag')! };
  }
  const patch = (id: string, etag: string, body: unknown) =>
    call('PATCH', `${timesheetsUrl(api)}/${id}`, { token: api.demo.keys.admin, idempotencyKey: randomUUID(), ifMatch: etag, body });

  it('lets exactly one of 16 corrections with the same If-Match win; the others get 412 ETAG_MISMATCH', async () => {
    const entry = await createdEntry(100);
    const responses = await concurrently(N, (i) => patch(entry.id, entry.etag, { breakMinutes: i + 1, reason: `correction ${i}` }));
    record('corrections, one ETag', { concurrent: N, outcome: tally(responses) });

    const won = responses.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    for (const r of responses.filter((x) => x.status !== 200)) expect([r.status, codeOf(r)]).toEqual([412, 'ETAG_MISMATCH']);
    const [stored] = (await itemsOfType(api.db, 'TimeEntry')).filter((e) => e.id === entry.id);
    expect({ revision: stored.revision, breakMinutes: stored.breakMinutes }).toEqual({ revision: 2, breakMinutes: won[0].body.breakMinutes });
    const audits = (await itemsOfType(api.db, 'AuditEntry')).filter((a) => a.entity?.id === entry.id);
    // One audit entry per revision: the create's and the winner's (its requestId is the winner's X-Request-Id).
    expect(audits).toHaveLength(2);
    expect(audits.map((a) => a.requestId)).toContain(won[0].requestId);
  });

  it('lets exactly one of 8 corrections and 8 voids with the same If-Match win', async () => {
    const entry = await createdEntry(110);
    const responses = await concurrently(N, (i) =>
      i % 2 === 0
        ? patch(entry.id, entry.etag, { breakMinutes: i + 1, reason: `correction ${i}` })
        : call('POST', `${timesheetsUrl(api)}/${entry.id}/void`, { token: api.demo.keys.admin, idempotencyKey: randomUUID(), ifMatch: entry.etag, body: { reason: `void ${i}` } }),
    );
    record('corrections and voids, one ETag', { concurrent: N, outcome: tally(responses) });

    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of responses.filter((x) => x.status !== 200)) {
      // A loser that reads the entry after a winning void sees it VOIDED (409, decisions.md)
      // before it compares the ETag; otherwise its ETag is stale (412).
      expect([[412, 'ETAG_MISMATCH'], [409, 'TIME_ENTRY_VOIDED']]).toContainEqual([r.status, codeOf(r)]);
    }
    const [stored] = (await itemsOfType(api.db, 'TimeEntry')).filter((e) => e.id === entry.id);
    expect(stored.revision).toBe(2);
  });
});

describe('SCIM creates with one externalId', () => {
  const scimUrl = () => `${api.orgUrl()}/scim/v2/Users`;
  const user = (externalId: string, userName: string) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    externalId,
    userName,
    active: true,
    emails: [{ value: userName, type: 'work', primary: true }],
  });
  const postUser = (body: unknown) =>
    call('POST', scimUrl(), { token: api.demo.keys.scim, rawBody: JSON.stringify(body), headers: { 'Content-Type': 'application/scim+json' } });

  it('provisions one of 16 users that share an externalId; the others get 409 uniqueness', async () => {
    const externalId = `drill-${randomUUID()}`;
    const responses = await concurrently(N, (i) => postUser(user(externalId, `user-${i}-${randomUUID()}@drill.example`)));
    record('SCIM creates, one externalId', { concurrent: N, outcome: tally(responses) });

    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of responses.filter((x) => x.status !== 201)) expect([r.status, r.body?.scimType]).toEqual([409, 'uniqueness']);
    expect((await itemsOfType(api.db, 'Employee')).filter((e) => e.externalId === externalId)).toHaveLength(1);
  });

  it('provisions one of 16 users that share a userName', async () => {
    const userName = `shared-${randomUUID()}@drill.example`;
    const responses = await concurrently(N, (i) => postUser(user(`drill-${i}-${randomUUID()}`, userName)));
    record('SCIM creates, one userName', { concurrent: N, outcome: tally(responses) });

    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of responses.filter((x) => x.status !== 201)) expect([r.status, r.body?.scimType]).toEqual([409, 'uniqueness']);
    expect((await itemsOfType(api.db, 'Employee')).filter((e) => String(e.userName).toLowerCase() === userName)).toHaveLength(1);
  });
});
