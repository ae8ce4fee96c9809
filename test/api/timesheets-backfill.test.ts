import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { checkItems, scanAll } from '../../scripts/check-consistency';
import { indexEmployeeDays, unindexedGuards } from '../../services/timesheets/public';
import { expectProblem, itemsOfType, startApi, type ApiFixture, type ApiResponse } from '../support/api';
import { addEmployee, correctEntry, createdEntry, createEntry, manualBody, voidEntry } from './timesheets-fixture';

/**
 * `npm run backfill:overlap-days`: guards from before day items (no dayIndex) get their
 * employee's day items and long entries from the timeline, and only then the mark that lets a
 * create read day items instead of the timeline window.
 */
let api: ApiFixture;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());
afterEach(() => jest.restoreAllMocks());

const at = (day: string, time: string) => `2024-02-${day}T${time}:00Z`;
const etag = (res: ApiResponse) => res.headers.get('etag')!;
const body = (employeeId: string, startedAt: string, endedAt: string) => manualBody(api, { startedAt, endedAt }, { employeeId, breakMinutes: 0 });
const guardOf = async (employeeId: string) => (await itemsOfType(api.db, 'OverlapGuard')).find((g) => g.PK.endsWith(`#EMP#${employeeId}`))!;

/** An employee with every kind of entry, then its state turned into what a table from before day items holds. */
async function legacyEmployee(): Promise<{ employeeId: string; ids: Record<string, string>; dayItemsBefore: Record<string, any>[] }> {
  const employeeId = await addEmployee(api);
  const plain = await createdEntry(api, body(employeeId, at('01', '08:00'), at('01', '12:00')));
  const night = await createdEntry(api, body(employeeId, at('02', '22:00'), at('03', '02:00')));
  const long = await createdEntry(api, body(employeeId, at('05', '08:00'), at('09', '08:00')));
  const moved = await createdEntry(api, body(employeeId, at('10', '08:00'), at('10', '12:00')));
  expect((await correctEntry(api, moved.body.id, etag(moved), { startedAt: at('11', '08:00'), endedAt: at('11', '12:00'), reason: 'Wrong day' })).status).toBe(200);
  const voided = await createdEntry(api, body(employeeId, at('12', '08:00'), at('12', '12:00')));
  expect((await voidEntry(api, voided.body.id, etag(voided), { reason: 'Duplicate' })).status).toBe(200);

  const mine = (i: Record<string, any>) => i.PK.endsWith(`#EMP#${employeeId}`);
  const dayItemsBefore = (await itemsOfType(api.db, 'OverlapDay')).filter(mine);
  const { dayIndex: _dayIndex, longEntries: _longEntries, ...legacy } = await guardOf(employeeId);
  await api.db.doc.send(new PutCommand({ TableName: api.db.tableName, Item: legacy }));
  for (const d of dayItemsBefore) await api.db.doc.send(new DeleteCommand({ TableName: api.db.tableName, Key: { PK: d.PK, SK: d.SK } }));
  // A leftover a half-run backfill could have left: the voided entry still on its day.
  await api.db.doc.send(new UpdateCommand({ TableName: api.db.tableName, Key: { PK: legacy.PK, SK: 'TE_UTCDAY#2024-02-12' }, UpdateExpression: 'SET #e = :v, itemType = :t', ExpressionAttributeNames: { '#e': `e_${voided.body.id}` }, ExpressionAttributeValues: { ':v': `${at('12', '08:00')}/${at('12', '12:00')}`, ':t': 'OverlapDay' } }));
  return { employeeId, ids: { plain: plain.body.id, night: night.body.id, long: long.body.id, moved: moved.body.id, voided: voided.body.id }, dayItemsBefore };
}

const violationsOf = async () => checkItems(await scanAll(api.db)).violations.filter((v) => v.rule === 'entry.days' || v.rule === 'day.orphan');

describe('backfill of day items', () => {
  it('rebuilds the day items and long entries from the timeline, removes a stale one, then marks the guard', async () => {
    const { employeeId, ids, dayItemsBefore } = await legacyEmployee();
    expect(await unindexedGuards(api.db)).toContainEqual({ organizationId: api.demo.organizationId, employeeId });
    expect(await violationsOf()).toEqual([expect.objectContaining({ rule: 'day.orphan' })]);

    const outcome = await indexEmployeeDays(api.db, { organizationId: api.demo.organizationId, employeeId });
    expect(outcome).toEqual({ status: 'indexed', dayItems: 5, longEntries: 1, attempts: 1 });
    expect(await violationsOf()).toEqual([]);
    // The same intervals on the same days as the writes had put there (versions aside: each write moves them on).
    const listing = (items: Record<string, any>[]) =>
      items.filter((d) => Object.keys(d).some((k) => k.startsWith('e_'))).map(({ version: _version, ...d }) => [d.SK, d]).sort();
    expect(listing((await itemsOfType(api.db, 'OverlapDay')).filter((i) => i.PK.endsWith(`#EMP#${employeeId}`)))).toEqual(listing(dayItemsBefore));
    expect(await guardOf(employeeId)).toMatchObject({ dayIndex: true, longEntries: { [ids.long]: `${at('05', '08:00').replace('Z', '.000Z')}/${at('09', '08:00').replace('Z', '.000Z')}` } });
    expect(await unindexedGuards(api.db)).not.toContainEqual(expect.objectContaining({ employeeId }));
    expect(await indexEmployeeDays(api.db, { organizationId: api.demo.organizationId, employeeId })).toEqual({ status: 'already-indexed' });

    // Creates now read the day items: every kind of entry still blocks its interval, and
    // only those: the moved entry's old day and the voided entry's day are free.
    expectProblem(await createEntry(api, body(employeeId, at('01', '09:00'), at('01', '10:00'))), 409, 'TIME_ENTRY_OVERLAP');
    expectProblem(await createEntry(api, body(employeeId, at('03', '01:00'), at('03', '03:00'))), 409, 'TIME_ENTRY_OVERLAP');
    expectProblem(await createEntry(api, body(employeeId, at('07', '10:00'), at('07', '11:00'))), 409, 'TIME_ENTRY_OVERLAP');
    expectProblem(await createEntry(api, body(employeeId, at('11', '09:00'), at('11', '10:00'))), 409, 'TIME_ENTRY_OVERLAP');
    expect((await createEntry(api, body(employeeId, at('10', '09:00'), at('10', '10:00')))).status).toBe(201);
    expect((await createEntry(api, body(employeeId, at('12', '09:00'), at('12', '10:00')))).status).toBe(201);
  });

  it('reads and reconciles again when a write moved the guard during the backfill', async () => {
    const { employeeId } = await legacyEmployee();
    const send = DynamoDBDocumentClient.prototype.send;
    let moved = false;
    jest.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(async function (this: DynamoDBDocumentClient, command: unknown, ...rest: unknown[]) {
      const input = (command as { input?: { ConditionExpression?: string; Key?: { SK?: string } } }).input;
      if (!moved && command instanceof UpdateCommand && input?.Key?.SK === 'TE_GUARD') {
        moved = true;
        // A create committed between the backfill's read and its mark.
        const created = await createEntry(api, body(employeeId, at('20', '08:00'), at('20', '12:00')));
        expect(created.status).toBe(201);
      }
      return (send as (...a: unknown[]) => Promise<unknown>).call(this, command, ...rest);
    } as never);
    const outcome = await indexEmployeeDays(api.db, { organizationId: api.demo.organizationId, employeeId });
    jest.restoreAllMocks();
    expect(outcome).toMatchObject({ status: 'indexed', attempts: 2 });
    expect(await violationsOf()).toEqual([]);
  });

  it('with --all also reconciles a marked employee: a void by a function of the previous version left an interval on its day', async () => {
    const employeeId = await addEmployee(api);
    const entry = await createdEntry(api, body(employeeId, at('14', '08:00'), at('14', '12:00')));
    // What a previous version's void writes: the VOIDED entry, its timeline item; the day item untouched.
    const key = { PK: `ORG#${api.demo.organizationId}#TE#${entry.body.id}`, SK: 'TE' };
    await api.db.doc.send(new UpdateCommand({ TableName: api.db.tableName, Key: key, UpdateExpression: 'SET #s = :v, revision = :r', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':v': 'VOIDED', ':r': 2 } }));
    const [timeline] = (await itemsOfType(api.db, 'TimelineEntry')).filter((t) => t.id === entry.body.id);
    await api.db.doc.send(new PutCommand({ TableName: api.db.tableName, Item: { ...timeline, state: 'VOIDED' } }));
    expect((await violationsOf()).map((v) => v.rule)).toContain('day.orphan');
    expectProblem(await createEntry(api, body(employeeId, at('14', '09:00'), at('14', '10:00'))), 409, 'TIME_ENTRY_OVERLAP');

    const org = api.demo.organizationId;
    expect(await unindexedGuards(api.db)).not.toContainEqual({ organizationId: org, employeeId });
    expect(await unindexedGuards(api.db, undefined, { all: true })).toContainEqual({ organizationId: org, employeeId });
    expect(await indexEmployeeDays(api.db, { organizationId: org, employeeId })).toEqual({ status: 'already-indexed' });
    expect(await indexEmployeeDays(api.db, { organizationId: org, employeeId }, { reconcile: true })).toMatchObject({ status: 'indexed', dayItems: 1 });
    expect(await violationsOf()).toEqual([]);
    expect((await createEntry(api, body(employeeId, at('14', '09:00'), at('14', '10:00')))).status).toBe(201);
  });

  it('runs as `npm run backfill:overlap-days -- --all`: progress on stderr, the summary on stdout, exit 0', async () => {
    const { employeeId } = await legacyEmployee();
    const res = spawnSync(process.execPath, ['--import', 'tsx', resolve(__dirname, '../../services/cli/backfill-overlap-days.ts'), '--all'], {
      cwd: resolve(__dirname, '../..'),
      env: { ...process.env, TABLE_NAME: api.db.tableName, DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: res.status, stdout: res.stdout }).toEqual({ status: 0, stdout: expect.stringMatching(/^indexed \d+ employees: \d+ day items written, \d+ long entries on guards\n$/) });
    expect(res.stderr).toMatch(/employees indexed: .*\d+ employees/);
    expect(await guardOf(employeeId)).toMatchObject({ dayIndex: true });
    expect(await violationsOf()).toEqual([]);
  });
});
