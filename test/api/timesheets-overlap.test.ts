import { BatchGetCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { call, countByType, expectProblem, itemsOfType, startApi, withQuery, type ApiFixture, type ApiResponse } from '../support/api';
import { addEmployee, auditItemsOf, correctEntry, createEntry, createdEntry, manualBody, scan, storedEntriesOf, voidEntry } from './timesheets-fixture';

/**
 * Overlap rules (decisions.md, Time entries): half-open [startedAt, endedAt); an OPEN entry
 * reaches to +infinity; VOIDED entries never overlap. Every test uses an employee of its own.
 */
let api: ApiFixture;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());
afterEach(() => jest.restoreAllMocks());

const at = (day: string, time: string) => `2025-04-${day}T${time}:00Z`;
const interval = (day: string, from: string, to: string) => ({ startedAt: at(day, from), endedAt: at(day, to) });
const bodyFor = (employeeId: string, i: { startedAt: string; endedAt: string }, over: Record<string, unknown> = {}) =>
  manualBody(api, i, { employeeId, breakMinutes: 0, ...over });
const etag = (res: ApiResponse) => res.headers.get('etag')!;

function expectOverlap(res: ApiResponse, ids: string[]) {
  const body = expectProblem(res, 409, 'TIME_ENTRY_OVERLAP');
  expect(body.overlappingEntryIds).toEqual([...ids].sort());
}

describe('overlap on create', () => {
  it('accepts intervals that only touch (half-open)', async () => {
    const employee = await addEmployee(api);
    await createdEntry(api, bodyFor(employee, interval('01', '08:00', '12:00')));
    const after = await createEntry(api, bodyFor(employee, interval('01', '12:00', '16:00')));
    const before = await createEntry(api, bodyFor(employee, interval('01', '04:00', '08:00')));
    expect([after.status, before.status]).toEqual([201, 201]);
  });

  const overlapping: [string, [string, string]][] = [
    ['starts inside it', ['11:59', '14:00']],
    ['ends inside it', ['06:00', '08:01']],
    ['lies inside it', ['09:00', '10:00']],
    ['encloses it', ['07:00', '13:00']],
    ['is the same interval', ['08:00', '12:00']],
  ];
  it.each(overlapping)('returns 409 TIME_ENTRY_OVERLAP naming the entry when the new interval %s, and writes nothing', async (_name, [from, to]) => {
    const employee = await addEmployee(api);
    const existing = await createdEntry(api, bodyFor(employee, interval('02', '08:00', '12:00')));
    const before = await countByType(api.db);
    expectOverlap(await createEntry(api, bodyFor(employee, interval('02', from, to))), [existing.body.id]);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('names every overlapped entry', async () => {
    const employee = await addEmployee(api);
    const a = await createdEntry(api, bodyFor(employee, interval('03', '08:00', '10:00')));
    const b = await createdEntry(api, bodyFor(employee, interval('03', '10:00', '12:00')));
    expectOverlap(await createEntry(api, bodyFor(employee, interval('03', '09:00', '11:00'))), [a.body.id, b.body.id]);
  });

  it('does not compare entries of different employees', async () => {
    const [first, second] = [await addEmployee(api), await addEmployee(api)];
    await createdEntry(api, bodyFor(first, interval('04', '08:00', '12:00')));
    expect((await createEntry(api, bodyFor(second, interval('04', '08:00', '12:00')))).status).toBe(201);
  });

  it('finds an overlap with a long entry that started days earlier', async () => {
    const employee = await addEmployee(api);
    const long = await createdEntry(api, bodyFor(employee, { startedAt: at('05', '08:00'), endedAt: at('08', '08:00') }));
    expectOverlap(await createEntry(api, bodyFor(employee, interval('07', '10:00', '11:00'))), [long.body.id]);
  });

  it('treats an OPEN entry as reaching to +infinity', async () => {
    const employee = await addEmployee(api);
    const opened = await scan(api, employee, 'CHECK_IN', at('10', '07:00'));
    expect(opened.projection).toBe('OPENED');
    expectOverlap(await createEntry(api, bodyFor(employee, { startedAt: '2025-09-01T08:00:00Z', endedAt: '2025-09-01T12:00:00Z' })), [opened.timeEntryId!]);
    expectOverlap(await createEntry(api, bodyFor(employee, interval('10', '06:00', '07:01'))), [opened.timeEntryId!]);
    expect((await createEntry(api, bodyFor(employee, interval('10', '03:00', '07:00')))).status).toBe(201);
  });

  it('ignores VOIDED entries', async () => {
    const employee = await addEmployee(api);
    const first = await createdEntry(api, bodyFor(employee, interval('11', '08:00', '12:00')));
    expect((await voidEntry(api, first.body.id, etag(first), { reason: 'Wrong day' })).status).toBe(200);
    expect((await createEntry(api, bodyFor(employee, interval('11', '08:00', '12:00')))).status).toBe(201);

    const opened = await scan(api, employee, 'CHECK_IN', at('12', '07:00'));
    const read = await call('GET', `${api.orgUrl()}/timesheets/${opened.timeEntryId}`, { token: api.demo.keys.admin });
    expect((await voidEntry(api, opened.timeEntryId!, etag(read), { reason: 'Badge test' })).status).toBe(200);
    expect((await createEntry(api, bodyFor(employee, interval('13', '08:00', '12:00')))).status).toBe(201);
  });

  it('proceeds with overlapOverride and a reason, and the audit records override, reason and overlapped ids', async () => {
    const employee = await addEmployee(api);
    const existing = await createdEntry(api, bodyFor(employee, interval('14', '08:00', '12:00')));
    const res = await createEntry(api, bodyFor(employee, interval('14', '11:00', '15:00'), { overlapOverride: true, overlapReason: 'Double shift approved by site lead' }));
    expect(res.status).toBe(201);
    const [audit] = await auditItemsOf(api.db, res.body.id);
    expect(audit).toMatchObject({
      action: 'time_entry.created',
      requestId: res.requestId,
      overlap: { override: true, reason: 'Double shift approved by site lead', overlappedEntryIds: [existing.body.id] },
    });
    const listed = await call('GET', withQuery(`${api.orgUrl()}/audit`, { entityType: 'time_entry', entityId: res.body.id }), { token: api.demo.keys.admin });
    expect(listed.body.items[0].overlap).toEqual({ override: true, reason: 'Double shift approved by site lead', overlappedEntryIds: [existing.body.id] });
    expect((await storedEntriesOf(api.db, employee)).length).toBe(2);
  });

  it('does not record an override when nothing overlapped', async () => {
    const employee = await addEmployee(api);
    const res = await createdEntry(api, bodyFor(employee, interval('15', '08:00', '12:00'), { overlapOverride: true, overlapReason: 'Just in case' }));
    const [audit] = await auditItemsOf(api.db, res.body.id);
    expect(audit.overlap).toBeUndefined();
  });
});

describe('overlap on correction', () => {
  it('returns 409 when a correction moves into another entry, and changes nothing', async () => {
    const employee = await addEmployee(api);
    const a = await createdEntry(api, bodyFor(employee, interval('16', '08:00', '12:00')));
    const b = await createdEntry(api, bodyFor(employee, interval('16', '13:00', '17:00')));
    const before = await countByType(api.db);
    expectOverlap(await correctEntry(api, b.body.id, etag(b), { startedAt: at('16', '11:30'), reason: 'Started earlier' }), [a.body.id]);
    expect(await countByType(api.db)).toEqual(before);
    expect((await call('GET', `${api.orgUrl()}/timesheets/${b.body.id}`, { token: api.demo.keys.admin })).body.revision).toBe(1);
  });

  it('never counts the corrected entry against itself', async () => {
    const employee = await addEmployee(api);
    const a = await createdEntry(api, bodyFor(employee, interval('17', '08:00', '12:00')));
    const res = await correctEntry(api, a.body.id, etag(a), { startedAt: at('17', '09:00'), endedAt: at('17', '13:00'), reason: 'Shifted by an hour' });
    expect(res.status).toBe(200);
  });

  it('proceeds with overlapOverride and records it in the audit', async () => {
    const employee = await addEmployee(api);
    const a = await createdEntry(api, bodyFor(employee, interval('18', '08:00', '12:00')));
    const b = await createdEntry(api, bodyFor(employee, interval('18', '13:00', '17:00')));
    const res = await correctEntry(api, b.body.id, etag(b), { startedAt: at('18', '11:30'), reason: 'Started earlier', overlapOverride: true, overlapReason: 'Handover overlap' });
    expect(res.status).toBe(200);
    const trail = await auditItemsOf(api.db, b.body.id);
    expect(trail[1]).toMatchObject({ action: 'time_entry.corrected', overlap: { override: true, reason: 'Handover overlap', overlappedEntryIds: [a.body.id] } });
  });

  it('finds an overlap with an entry that a correction made long', async () => {
    const employee = await addEmployee(api);
    const a = await createdEntry(api, bodyFor(employee, interval('20', '08:00', '09:00')));
    const longer = await correctEntry(api, a.body.id, etag(a), { endedAt: at('23', '09:00'), reason: 'Field trip' });
    expect(longer.status).toBe(200);
    expectOverlap(await createEntry(api, bodyFor(employee, interval('22', '10:00', '11:00'))), [a.body.id]);
  });
});

describe('concurrent creates for one employee', () => {
  it('commits exactly one of eight overlapping creates; the others get 409 TIME_ENTRY_OVERLAP', async () => {
    const employee = await addEmployee(api);
    const bodies = Array.from({ length: 8 }, (_, n) => bodyFor(employee, { startedAt: at('25', `08:0${n}`), endedAt: at('25', `12:0${n}`) }));
    const results = await Promise.all(bodies.map((b) => createEntry(api, b)));

    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const lost of results.filter((r) => r.status !== 201)) expectOverlap(lost, [created[0].body.id]);
    const stored = await storedEntriesOf(api.db, employee);
    expect(stored.map((e) => e.id)).toEqual([created[0].body.id]);
    expect(await auditItemsOf(api.db, created[0].body.id)).toHaveLength(1);
  });

  it('commits every one of eight concurrent creates that do not overlap, at the latest on a retry', async () => {
    const employee = await addEmployee(api);
    const requests = Array.from({ length: 8 }, (_, n) => ({
      key: `disjoint-${employee}-${n}`,
      body: bodyFor(employee, { startedAt: at('26', `0${n}:00`), endedAt: at('26', `0${n}:59`) }),
    }));
    const results = await Promise.all(requests.map((r) => createEntry(api, r.body, { idempotencyKey: r.key })));

    // decisions.md: a write that keeps losing the race may answer 503 TRANSACTION_CONFLICT with
    // Retry-After; it applied nothing and its retry (same key) commits.
    for (const [i, res] of results.entries()) {
      if (res.status === 201) continue;
      expectProblem(res, 503, 'TRANSACTION_CONFLICT');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      const retry = await createEntry(api, requests[i].body, { idempotencyKey: requests[i].key });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotency-replayed')).toBeNull();
    }
    const stored = await storedEntriesOf(api.db, employee);
    expect(stored.map((e) => e.startedAt).sort()).toEqual(requests.map((r) => new Date(r.body.startedAt).toISOString()));
  });
});

describe('overlap check against committed entries, not against an index', () => {
  /**
   * Real DynamoDB propagates writes to a GSI asynchronously (GSI Queries are eventually
   * consistent only; DynamoDB Local happens to update them at once). This models a GSI that
   * has not caught up yet: the real Query runs on DynamoDB Local, and the entries named
   * here are dropped from index results.
   */
  function indexesLagBehind(entryIds: readonly string[], staleImages: readonly Record<string, unknown>[] = []) {
    const send = DynamoDBDocumentClient.prototype.send;
    jest.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(async function (this: DynamoDBDocumentClient, command: unknown, ...rest: unknown[]) {
      const out = await (send as (...a: unknown[]) => Promise<{ Items?: Record<string, unknown>[] }>).call(this, command, ...rest);
      if (!(command instanceof QueryCommand) || !command.input.IndexName || !out.Items) return out;
      const partition = command.input.ExpressionAttributeValues?.[':pk'];
      const stale = staleImages.filter((item) => item[`${command.input.IndexName}PK`] === partition);
      const hidden = [...entryIds, ...stale.map((item) => item.id)];
      return { ...out, Items: [...out.Items.filter((item) => !hidden.includes(item.id as string)), ...stale] };
    } as never);
  }

  it('refuses a create that overlaps an entry committed a moment ago', async () => {
    const employee = await addEmployee(api);
    const first = await createdEntry(api, bodyFor(employee, interval('27', '08:00', '12:00')));
    indexesLagBehind([first.body.id]);
    expectOverlap(await createEntry(api, bodyFor(employee, interval('27', '10:00', '14:00'))), [first.body.id]);
    expect(await storedEntriesOf(api.db, employee)).toHaveLength(1);
  });

  it('refuses a correction into an entry committed a moment ago', async () => {
    const employee = await addEmployee(api);
    const first = await createdEntry(api, bodyFor(employee, interval('28', '08:00', '12:00')));
    const second = await createdEntry(api, bodyFor(employee, interval('28', '13:00', '17:00')));
    indexesLagBehind([first.body.id, second.body.id]);
    expectOverlap(await correctEntry(api, second.body.id, etag(second), { startedAt: at('28', '11:00'), reason: 'Started earlier' }), [first.body.id]);
  });

  it('lets a create through once an overlapped entry was voided a moment ago', async () => {
    const employee = await addEmployee(api);
    const first = await createdEntry(api, bodyFor(employee, interval('29', '08:00', '12:00')));
    const [closedImage] = await storedEntriesOf(api.db, employee);
    expect((await voidEntry(api, first.body.id, etag(first), { reason: 'Wrong day' })).status).toBe(200);
    indexesLagBehind([], [closedImage]);
    expect((await createEntry(api, bodyFor(employee, interval('29', '10:00', '14:00')))).status).toBe(201);
  });
});

describe('overlap from the employee day items (one BatchGetItem, no Query)', () => {
  /** The DynamoDB commands the handlers send while `run` runs, by name. */
  async function commandsDuring<T>(run: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
    const commands: string[] = [];
    const send = DynamoDBDocumentClient.prototype.send;
    const spy = jest.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(function (this: DynamoDBDocumentClient, command: { constructor: { name: string } }, ...rest: unknown[]) {
      commands.push(command.constructor.name.replace(/Command$/, ''));
      return (send as (...a: unknown[]) => unknown).call(this, command, ...rest);
    } as never);
    try {
      return { result: await run(), commands };
    } finally {
      spy.mockRestore();
    }
  }

  it('a create reads the guard, the day items and the rest in one BatchGetItem and commits in one TransactWriteItems', async () => {
    const employee = await addEmployee(api);
    await createdEntry(api, bodyFor(employee, interval('10', '08:00', '12:00')));
    const { result, commands } = await commandsDuring(() => createEntry(api, bodyFor(employee, interval('10', '12:00', '16:00'))));
    expect(result.status).toBe(201);
    expect(commands.filter((c) => c !== 'Get')).toEqual(['BatchGet', 'TransactWrite']);
    const refused = await commandsDuring(() => createEntry(api, bodyFor(employee, interval('10', '11:00', '13:00'))));
    expect(refused.commands).not.toContain('Query');
    expectOverlap(refused.result, await storedEntriesOf(api.db, employee).then((es) => es.map((e) => e.id)));
  });

  it('commits no overlap when its BatchGetItem read the guard after a concurrent create and the day item before it', async () => {
    // A BatchGetItem is not one snapshot (read-committed per item): model the worst order.
    const employee = await addEmployee(api);
    const guardKey = { PK: `ORG#${api.demo.organizationId}#EMP#${employee}`, SK: 'TE_GUARD' };
    const send = DynamoDBDocumentClient.prototype.send as (...a: unknown[]) => Promise<any>;
    let armed = true;
    let concurrent: ApiResponse | undefined;
    jest.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(async function (this: DynamoDBDocumentClient, command: unknown, ...rest: unknown[]) {
      const out = await send.call(this, command, ...rest);
      if (!armed || !(command instanceof BatchGetCommand)) return out;
      const keys = Object.values(command.input.RequestItems ?? {})[0]?.Keys ?? [];
      if (!keys.some((k) => k.PK === guardKey.PK && String(k.SK).startsWith('TE_UTCDAY#'))) return out;
      armed = false;
      // The day items were read; now a create of the same employee commits...
      concurrent = await createEntry(api, bodyFor(employee, interval('22', '08:00', '12:00')));
      // ...and the batch's guard is read after it.
      const fresh = await send.call(this, new GetCommand({ TableName: api.db.tableName, Key: guardKey, ConsistentRead: true }));
      const [table, items] = Object.entries(out.Responses as Record<string, Record<string, unknown>[]>)[0];
      const others = items.filter((i) => !(i.PK === guardKey.PK && i.SK === guardKey.SK));
      return { ...out, Responses: { [table]: [...others, fresh.Item] } };
    } as never);
    const res = await createEntry(api, bodyFor(employee, interval('22', '10:00', '14:00')));
    expect(armed).toBe(false);
    expect(concurrent!.status).toBe(201);
    expectOverlap(res, [concurrent!.body.id]);
    expect(await storedEntriesOf(api.db, employee)).toHaveLength(1);
  });

  it('finds entries across UTC midnight from either day', async () => {
    const employee = await addEmployee(api);
    const night = await createdEntry(api, bodyFor(employee, { startedAt: at('11', '22:00'), endedAt: at('12', '02:00') }));
    expectOverlap(await createEntry(api, bodyFor(employee, interval('12', '01:00', '03:00'))), [night.body.id]);
    expectOverlap(await createEntry(api, bodyFor(employee, interval('11', '21:00', '22:30'))), [night.body.id]);
    expect((await createEntry(api, bodyFor(employee, interval('12', '02:00', '06:00')))).status).toBe(201);
  });

  it('frees the old days of an entry a correction moved and blocks the new ones', async () => {
    const employee = await addEmployee(api);
    const moved = await createdEntry(api, bodyFor(employee, interval('13', '08:00', '12:00')));
    expect((await correctEntry(api, moved.body.id, etag(moved), { startedAt: at('14', '08:00'), endedAt: at('14', '12:00'), reason: 'Wrong day' })).status).toBe(200);
    expect((await createEntry(api, bodyFor(employee, interval('13', '09:00', '10:00')))).status).toBe(201);
    expectOverlap(await createEntry(api, bodyFor(employee, interval('14', '09:00', '10:00'))), [moved.body.id]);
  });

  it('takes a voided entry longer than the day items hold out of the guard', async () => {
    const employee = await addEmployee(api);
    const long = await createdEntry(api, bodyFor(employee, { startedAt: at('15', '08:00'), endedAt: at('19', '08:00') }));
    expectOverlap(await createEntry(api, bodyFor(employee, interval('17', '10:00', '11:00'))), [long.body.id]);
    expect((await voidEntry(api, long.body.id, etag(long), { reason: 'Forgotten check-out' })).status).toBe(200);
    expect((await createEntry(api, bodyFor(employee, interval('17', '10:00', '11:00')))).status).toBe(201);
    const [guard] = (await itemsOfType(api.db, 'OverlapGuard')).filter((g) => g.PK.endsWith(`#EMP#${employee}`));
    expect(guard).toMatchObject({ dayIndex: true, longEntries: {} });
  });

  it('keeps reading the timeline window for a guard written before day items', async () => {
    const employee = await addEmployee(api);
    const old = await createdEntry(api, bodyFor(employee, interval('16', '08:00', '12:00')));
    // What a table from before day items holds: the guard without dayIndex, no day items.
    const items = await itemsOfType(api.db, 'OverlapGuard');
    const guard = items.find((g) => g.PK.endsWith(`#EMP#${employee}`))!;
    const { dayIndex: _dayIndex, longEntries: _longEntries, ...legacy } = guard;
    await api.db.doc.send(new PutCommand({ TableName: api.db.tableName, Item: legacy }));
    await api.db.doc.send(new DeleteCommand({ TableName: api.db.tableName, Key: { PK: guard.PK, SK: `TE_UTCDAY#${at('16', '08:00').slice(0, 10)}` } }));
    const { result, commands } = await commandsDuring(() => createEntry(api, bodyFor(employee, interval('16', '10:00', '14:00'))));
    expectOverlap(result, [old.body.id]);
    expect(commands).toContain('Query');
  });
});
