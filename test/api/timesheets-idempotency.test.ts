import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { setTimesheetCorrections } from '../../services/organization/public';
import * as transaction from '../../services/shared/ddb/transaction';
import { locationKeys } from '../../services/locations/public';
import { call, countByType, expectProblem, itemsOfType, scanTable, startApi, type ApiFixture, type ApiResponse } from '../support/api';
import { addEmployee, auditItemsOf, correctEntry, createEntry, createdEntry, dayInterval, etagOf, getEntryResponse, manualBody, storedEntriesOf, timesheetsUrl, voidEntry } from './timesheets-fixture';

/**
 * Idempotency (decisions.md) and atomicity (issue 3 items 4 and 6) of timesheet writes,
 * against DynamoDB Local. Faults are injected around the REAL commit, so DynamoDB Local's
 * transaction is what is tested.
 */
let api: ApiFixture;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());
afterEach(() => jest.restoreAllMocks());

const realCommit = transaction.commit;
let nextDay = 0;
const freshBody = (over: Record<string, unknown> = {}) => manualBody(api, dayInterval((nextDay += 1)), over);
const etag = (res: ApiResponse) => res.headers.get('etag')!;

describe('replay of a completed request', () => {
  it('replays the original 201 with ETag, Location and body, and applies the create once', async () => {
    const key = randomUUID();
    const body = freshBody();
    const first = await createEntry(api, body, { idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();

    const again = await createEntry(api, body, { idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(again.body).toEqual(first.body);
    expect(await storedEntriesOf(api.db, body.employeeId).then((es) => es.filter((e) => e.startedAt === first.body.startedAt))).toHaveLength(1);
    expect(await auditItemsOf(api.db, first.body.id)).toHaveLength(1);
  });

  it('replays the original response even after the entry changed', async () => {
    const key = randomUUID();
    const body = freshBody();
    const first = await createEntry(api, body, { idempotencyKey: key });
    expect((await correctEntry(api, first.body.id, etag(first), { breakMinutes: 0, reason: 'No break' })).status).toBe(200);
    const again = await createEntry(api, body, { idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ revision: 1, breakMinutes: 30 });
  });

  it('replays a correction (same key, body and If-Match) although its ETag is stale by now', async () => {
    const entry = await createdEntry(api, freshBody());
    const key = randomUUID();
    const first = await correctEntry(api, entry.body.id, etag(entry), { breakMinutes: 20, reason: 'Short lunch' }, { idempotencyKey: key });
    expect(first.status).toBe(200);
    const again = await correctEntry(api, entry.body.id, etag(entry), { breakMinutes: 20, reason: 'Short lunch' }, { idempotencyKey: key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe(etagOf(entry.body.id, 2));
    expect(again.body).toEqual(first.body);
    expect((await getEntryResponse(api, entry.body.id)).body.revision).toBe(2);
    expect(await auditItemsOf(api.db, entry.body.id)).toHaveLength(2);
  });

  it('replays a void', async () => {
    const entry = await createdEntry(api, freshBody());
    const key = randomUUID();
    const first = await voidEntry(api, entry.body.id, etag(entry), { reason: 'Duplicate' }, { idempotencyKey: key });
    const again = await voidEntry(api, entry.body.id, etag(entry), { reason: 'Duplicate' }, { idempotencyKey: key });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await auditItemsOf(api.db, entry.body.id)).toHaveLength(2);
  });
});

describe('reuse of a key with another input', () => {
  it('returns 409 IDEMPOTENCY_KEY_REUSED for another body and applies nothing', async () => {
    const key = randomUUID();
    const body = freshBody();
    const first = await createdEntry(api, body, { idempotencyKey: key });
    const before = await countByType(api.db);
    const other = { ...freshBody(), employeeId: body.employeeId };
    expectProblem(await createEntry(api, other, { idempotencyKey: key }), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await countByType(api.db)).toEqual(before);
    expect((await storedEntriesOf(api.db, body.employeeId)).filter((e) => e.startedAt === new Date(other.startedAt).toISOString())).toEqual([]);
    expect((await getEntryResponse(api, first.body.id)).body.revision).toBe(1);
  });

  it('returns 409 IDEMPOTENCY_KEY_REUSED for the same correction body under another If-Match', async () => {
    const entry = await createdEntry(api, freshBody());
    const key = randomUUID();
    const first = await correctEntry(api, entry.body.id, etag(entry), { breakMinutes: 20, reason: 'Short lunch' }, { idempotencyKey: key });
    const before = await countByType(api.db);
    expectProblem(await correctEntry(api, entry.body.id, etag(first), { breakMinutes: 20, reason: 'Short lunch' }, { idempotencyKey: key }), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await countByType(api.db)).toEqual(before);
    expect((await getEntryResponse(api, entry.body.id)).body.revision).toBe(2);
  });

  it('scopes keys per API key and per route', async () => {
    const key = randomUUID();
    const employeeId = await addEmployee(api);
    const body = freshBody({ employeeId });
    const first = await createdEntry(api, body, { idempotencyKey: key });
    // Another API key with the same Idempotency-Key and body runs its own create (which overlaps).
    const otherKey = await createEntry(api, body, { idempotencyKey: key, token: api.demo.keys.timesheetsNoWorkEvents });
    expect(otherKey.headers.get('idempotency-replayed')).toBeNull();
    expectProblem(otherKey, 409, 'TIME_ENTRY_OVERLAP');
    // The same Idempotency-Key on another route is another request.
    const corrected = await correctEntry(api, first.body.id, etag(first), { breakMinutes: 0, reason: 'No break' }, { idempotencyKey: key });
    expect(corrected.status).toBe(200);
    expect(corrected.headers.get('idempotency-replayed')).toBeNull();
  });
});

describe('the Idempotency-Key header', () => {
  it('is required on create, correction and void: 400 IDEMPOTENCY_KEY_REQUIRED, nothing written', async () => {
    const entry = await createdEntry(api, freshBody());
    const before = await countByType(api.db);
    const token = api.demo.keys.admin;
    const url = `${timesheetsUrl(api)}/${entry.body.id}`;
    expectProblem(await call('POST', timesheetsUrl(api), { token, body: freshBody() }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    expectProblem(await call('PATCH', url, { token, ifMatch: etag(entry), body: { breakMinutes: 5, reason: 'x' } }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    expectProblem(await call('POST', `${url}/void`, { token, ifMatch: etag(entry), body: { reason: 'x' } }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    expect(await countByType(api.db)).toEqual(before);
  });

  const badKeys: [string, string][] = [
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['holding a control character', 'abc\tdef'],
  ];
  it.each(badKeys)('returns 400 VALIDATION_ERROR for a key %s, nothing written', async (_name, key) => {
    const before = await countByType(api.db);
    const res = await createEntry(api, freshBody(), { idempotencyKey: key });
    const body = expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(body.errors).toEqual([{ header: 'Idempotency-Key', detail: expect.any(String) }]);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('accepts a key of 255 printable ASCII characters', async () => {
    expect((await createEntry(api, freshBody(), { idempotencyKey: `${'~'.repeat(250)} !x#$` })).status).toBe(201);
  });

  it('stays usable after a rejected request (a rejection applies nothing)', async () => {
    const key = randomUUID();
    const employeeId = await addEmployee(api);
    const existing = await createdEntry(api, freshBody({ employeeId }));
    const overlapping = { ...manualBody(api, { startedAt: existing.body.startedAt, endedAt: existing.body.endedAt }), employeeId };
    expectProblem(await createEntry(api, overlapping, { idempotencyKey: key }), 409, 'TIME_ENTRY_OVERLAP');
    expectProblem(await createEntry(api, overlapping, { idempotencyKey: key }), 409, 'TIME_ENTRY_OVERLAP');
    expect((await itemsOfType(api.db, 'IdempotencyRecord')).filter((r) => r.status !== 'COMPLETED')).toEqual([]);
  });
});

describe('concurrent duplicates (same key, same body)', () => {
  it('applies the create once; the others replay it or answer 409 IDEMPOTENCY_REQUEST_IN_PROGRESS', async () => {
    const key = randomUUID();
    const employeeId = await addEmployee(api);
    const body = freshBody({ employeeId });
    const results = await Promise.all(Array.from({ length: 6 }, () => createEntry(api, body, { idempotencyKey: key })));

    const original = results.filter((r) => r.status === 201 && r.headers.get('idempotency-replayed') === null);
    expect(original).toHaveLength(1);
    for (const res of results) {
      if (res.status === 201) {
        expect(res.body).toEqual(original[0].body);
        expect(res.headers.get('etag')).toBe(original[0].headers.get('etag'));
      } else {
        expectProblem(res, 409, 'IDEMPOTENCY_REQUEST_IN_PROGRESS');
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      }
    }
    expect(await storedEntriesOf(api.db, employeeId)).toHaveLength(1);
    expect(await auditItemsOf(api.db, original[0].body.id)).toHaveLength(1);
    const replay = await createEntry(api, body, { idempotencyKey: key });
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
  });
});

describe('a crash after the commit and before the response', () => {
  it('answers 500 without internal detail, and the retry replays the original 201', async () => {
    const key = randomUUID();
    const employeeId = await addEmployee(api);
    const body = freshBody({ employeeId });
    jest.spyOn(transaction, 'commit').mockImplementationOnce(async (...args) => {
      await realCommit(...args);
      throw new Error('crash after TransactWriteItems on table test-secret-name');
    });

    const crashed = await createEntry(api, body, { idempotencyKey: key });
    expectProblem(crashed, 500, 'INTERNAL_ERROR');
    expect(crashed.text).not.toMatch(/crash|TransactWriteItems|test-secret-name|stack|Error:/);

    const [stored] = await storedEntriesOf(api.db, employeeId);
    expect(stored).toBeDefined();
    const retry = await createEntry(api, body, { idempotencyKey: key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    expect(retry.body.id).toBe(stored.id);
    expect(retry.headers.get('etag')).toBe(etagOf(stored.id, 1));
    expect(retry.headers.get('location')).toMatch(new RegExp(`/timesheets/${stored.id}$`));
    expect(await storedEntriesOf(api.db, employeeId)).toHaveLength(1);
    expect(await auditItemsOf(api.db, stored.id)).toHaveLength(1);
  });

  it('replays a crashed correction instead of applying it twice', async () => {
    const entry = await createdEntry(api, freshBody());
    const key = randomUUID();
    jest.spyOn(transaction, 'commit').mockImplementationOnce(async (...args) => {
      await realCommit(...args);
      throw new Error('crash');
    });
    expectProblem(await correctEntry(api, entry.body.id, etag(entry), { breakMinutes: 10, reason: 'x' }, { idempotencyKey: key }), 500, 'INTERNAL_ERROR');
    const retry = await correctEntry(api, entry.body.id, etag(entry), { breakMinutes: 10, reason: 'x' }, { idempotencyKey: key });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    expect(retry.body).toMatchObject({ revision: 2, breakMinutes: 10 });
    expect(await auditItemsOf(api.db, entry.body.id)).toHaveLength(2);
  });
});

describe('atomicity: one TransactWriteItems per write', () => {
  const labelsOfNextCommits = () => {
    const seen: string[][] = [];
    jest.spyOn(transaction, 'commit').mockImplementation(async (db, items, sleep) => {
      seen.push(items.map((i) => i.label));
      return realCommit(db, items, sleep);
    });
    return seen;
  };

  it('commits a create with its audit entry, idempotency record, overlap guard and checks together', async () => {
    const seen = labelsOfNextCommits();
    const res = await createEntry(api, freshBody({ context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 2', latitude: 10.5, longitude: 20.5 } }));
    expect(res.status).toBe(201);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual(expect.arrayContaining(['entry', 'evidence', 'audit', 'idempotency', 'guard', 'capability', 'employee']));
  });

  it('commits a correction and a void the same way', async () => {
    const entry = await createdEntry(api, freshBody());
    const seen = labelsOfNextCommits();
    const moved = await correctEntry(api, entry.body.id, etag(entry), { endedAt: new Date(Date.parse(entry.body.endedAt) - 3_600_000).toISOString(), reason: 'moved' });
    const corrected = await correctEntry(api, entry.body.id, etag(moved), { breakMinutes: 5, reason: 'x' });
    await voidEntry(api, entry.body.id, etag(corrected), { reason: 'y' });
    expect(seen).toHaveLength(3);
    for (const labels of seen) expect(labels).toEqual(expect.arrayContaining(['entry', 'audit', 'idempotency', 'capability']));
    // Corrections read and move the guard; a void (which cannot make an overlap) does not.
    expect(seen.map((labels) => labels.includes('guard'))).toEqual([true, true, false]);
  });

  /** Runs `change` on the table right before the real commit: a race the reads could not see. */
  const raceBeforeCommit = (change: () => Promise<unknown>, undo: () => Promise<unknown>) =>
    jest.spyOn(transaction, 'commit').mockImplementationOnce(async (...args) => {
      await change();
      try {
        return await realCommit(...args);
      } finally {
        await undo();
      }
    });

  async function expectNothingOf(res: ApiResponse, before: Record<string, number>, employeeId: string, startedAt: string) {
    expect(await countByType(api.db)).toEqual(before);
    expect((await storedEntriesOf(api.db, employeeId)).filter((e) => e.startedAt === startedAt)).toEqual([]);
    expect(JSON.stringify(await scanTable(api.db))).not.toContain(res.requestId!);
  }

  it('writes nothing when the capability gate closes before the commit (409 FEATURE_NOT_ENABLED)', async () => {
    const org = api.demo.organizationId;
    const now = new Date().toISOString();
    const employeeId = await addEmployee(api);
    const body = freshBody({ employeeId });
    const before = await countByType(api.db);
    raceBeforeCommit(
      () => setTimesheetCorrections(api.db, org, { rolloutGate: false }, now),
      () => setTimesheetCorrections(api.db, org, { rolloutGate: true }, now),
    );
    const key = randomUUID();
    const res = await createEntry(api, body, { idempotencyKey: key });
    expectProblem(res, 409, 'FEATURE_NOT_ENABLED');
    await expectNothingOf(res, before, employeeId, new Date(body.startedAt).toISOString());
    // Nothing was applied, so the same key runs the write once the gate is open again.
    const retry = await createEntry(api, body, { idempotencyKey: key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBeNull();
  });

  it('writes nothing when the location disappears before the commit (422)', async () => {
    const employeeId = await addEmployee(api);
    const body = freshBody({ employeeId });
    const key = locationKeys.location(api.demo.organizationId, api.demo.locations[0]);
    const [location] = (await scanTable(api.db)).filter((i) => i.PK === key.PK && i.SK === key.SK);
    const before = await countByType(api.db);
    raceBeforeCommit(
      () => api.db.doc.send(new DeleteCommand({ TableName: api.db.tableName, Key: key })),
      () => api.db.doc.send(new PutCommand({ TableName: api.db.tableName, Item: location })),
    );
    const res = await createEntry(api, body);
    const problem = expectProblem(res, 422, 'VALIDATION_ERROR');
    expect(problem.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/context/locationId']);
    await expectNothingOf(res, before, employeeId, new Date(body.startedAt).toISOString());
  });

  it('writes no new revision, audit or idempotency record when a correction fails at the commit', async () => {
    const org = api.demo.organizationId;
    const now = new Date().toISOString();
    const entry = await createdEntry(api, freshBody());
    const before = await countByType(api.db);
    raceBeforeCommit(
      () => setTimesheetCorrections(api.db, org, { entitlement: false }, now),
      () => setTimesheetCorrections(api.db, org, { entitlement: true }, now),
    );
    const res = await correctEntry(api, entry.body.id, etag(entry), { breakMinutes: 5, reason: 'x' });
    expectProblem(res, 409, 'FEATURE_NOT_ENABLED');
    expect(await countByType(api.db)).toEqual(before);
    expect((await getEntryResponse(api, entry.body.id)).body).toMatchObject({ revision: 1, breakMinutes: 30 });
    expect(await auditItemsOf(api.db, entry.body.id)).toHaveLength(1);
  });
});
