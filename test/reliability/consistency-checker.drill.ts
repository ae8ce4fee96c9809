import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { BatchWriteCommand, DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { checkItems, RULES, scanAll, type Rule } from '../../scripts/check-consistency';
import { seedDemo } from '../../services/local/seed';
import type { Db } from '../../services/shared/ddb/client';
import { call, startApi, type ApiFixture } from '../support/api';
import { createTestTable } from '../support/table';
import { addEmployee, dayInterval, manualBody, post, timesheetsUrl } from './support';

/**
 * The consistency checker (scripts/check-consistency.ts) is only worth its "OK" if it says
 * "VIOLATED" on a broken table. A table written through the API (creates, a correction, a
 * void, ad-hoc evidence, a SCIM user) must hold every rule; each deliberate breakage must be
 * caught by the rule written for it; and the CLI must exit 0 / 1 accordingly.
 */
type Item = Record<string, any>;
let api: ApiFixture;
let good: Item[];
let corrected: { id: string };

beforeAll(async () => {
  api = await startApi();
  const employeeId = await addEmployee(api.db, api.demo.organizationId);
  const a = await post(api, manualBody(api, employeeId, dayInterval(1)));
  const b = await post(api, manualBody(api, employeeId, dayInterval(2)));
  const adHoc = await post(api, manualBody(api, employeeId, dayInterval(3), { context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 7, Dock Road', latitude: 53.5, longitude: 9.9 } }));
  expect([a.status, b.status, adHoc.status]).toEqual([201, 201, 201]);
  const fix = await call('PATCH', `${timesheetsUrl(api)}/${a.body.id}`, { token: api.demo.keys.admin, idempotencyKey: randomUUID(), ifMatch: a.headers.get('etag')!, body: { breakMinutes: 45, reason: 'Break was longer' } });
  const voided = await call('POST', `${timesheetsUrl(api)}/${b.body.id}/void`, { token: api.demo.keys.admin, idempotencyKey: randomUUID(), ifMatch: b.headers.get('etag')!, body: { reason: 'Duplicate' } });
  const user = await call('POST', `${api.orgUrl()}/scim/v2/Users`, {
    token: api.demo.keys.scim,
    rawBody: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'checker@drill.example', externalId: 'checker-1', emails: [{ value: 'checker@drill.example', type: 'work' }] }),
    headers: { 'Content-Type': 'application/scim+json', 'Idempotency-Key': randomUUID() },
  });
  expect([fix.status, voided.status, user.status]).toEqual([200, 200, 201]);
  corrected = { id: a.body.id };
  good = await scanAll(api.db);
});
afterAll(() => api.close());

const rulesOf = (items: Item[]) => [...new Set(checkItems(items).violations.map((v) => v.rule))].sort();
const without = (items: Item[], drop: (i: Item) => boolean) => items.filter((i) => !drop(i));
const changed = (items: Item[], match: (i: Item) => boolean, change: (i: Item) => Item) => items.map((i) => (match(i) ? change(structuredClone(i)) : i));
const isAuditOf = (id: string, revision: number) => (i: Item) => i.itemType === 'AuditEntry' && i.entity?.id === id && i.after?.revision === revision;
const isEntry = (id: string) => (i: Item) => i.itemType === 'TimeEntry' && i.id === id;
const first = (items: Item[], match: (i: Item) => boolean) => {
  const found = items.find(match);
  if (!found) throw new Error('The fixture lacks the item this breakage needs.');
  return found;
};

describe('checkItems', () => {
  it('finds no violation in a table written through the API', () => {
    expect(rulesOf(good)).toEqual([]);
  });

  const breakages: [string, Rule, () => Item[]][] = [
    ['an audit entry of a revision is missing', 'entry.audit-per-revision', () => without(good, isAuditOf(corrected.id, 2))],
    ['a revision has two audit entries', 'entry.audit-per-revision', () => [...good, { ...first(good, isAuditOf(corrected.id, 2)), id: randomUUID(), PK: `ORG#x#AUDIT#${randomUUID()}` }]],
    ['an audit entry names a later revision', 'entry.audit-per-revision', () => changed(good, isAuditOf(corrected.id, 2), (i) => ({ ...i, after: { ...i.after, revision: 3 } }))],
    ['an entry changed without its audit entry', 'entry.audit-matches-current', () => changed(good, isEntry(corrected.id), (i) => ({ ...i, breakMinutes: 50 }))],
    ['an entry is missing but its audit entry is there', 'audit.orphan', () => without(good, isEntry(corrected.id))],
    ['a timeline item is missing', 'entry.timeline', () => without(good, (i) => i.itemType === 'TimelineEntry' && i.id === corrected.id)],
    ['a timeline item sits at an old start', 'timeline.orphan', () => changed(good, (i) => i.itemType === 'TimelineEntry' && i.id === corrected.id, (i) => ({ ...i, SK: `TE#2001-01-01T00:00:00.000Z#${corrected.id}` }))],
    ['the guard lists an OPEN entry that is not open', 'guard.open-entries', () => changed(good, (i) => i.itemType === 'OverlapGuard' && i.PK.endsWith(first(good, isEntry(corrected.id)).employeeId), (i) => ({ ...i, openEntries: { [randomUUID()]: '2030-01-01T00:00:00.000Z' } }))],
    ['the guard bound is below an interval', 'guard.max-duration', () => changed(good, (i) => i.itemType === 'OverlapGuard' && i.PK.endsWith(first(good, isEntry(corrected.id)).employeeId), (i) => ({ ...i, maxClosedDurationMs: 1 }))],
    ['a day item lacks a CLOSED entry of its day', 'entry.days', () => changed(good, (i) => i.itemType === 'OverlapDay' && i[`e_${corrected.id}`], (i) => ({ ...i, [`e_${corrected.id}`]: undefined }))],
    ['a day item still lists an entry a correction moved away', 'day.orphan', () => changed(good, (i) => i.itemType === 'OverlapDay' && i[`e_${corrected.id}`], (i) => ({ ...i, SK: 'TE_UTCDAY#2001-01-01' }))],
    ["the organization's bound is below an interval", 'stats.max-duration', () => changed(good, (i) => i.itemType === 'TimeEntryStats' && i.PK === `ORG#${api.demo.organizationId}`, (i) => ({ ...i, maxClosedDurationMs: 1 }))],
    ['restricted evidence of a missing revision', 'evidence.orphan', () => changed(good, (i) => i.itemType === 'RestrictedEvidence' && /#TE#/.test(i.PK), (i) => ({ ...i, SK: 'EVIDENCE#r000009' }))],
    ['a COMPLETED idempotency record replays a revision that was never written', 'idempotency.completed-result', () => changed(good, (i) => i.itemType === 'IdempotencyRecord' && /time-entry:/.test(i.response?.headers?.ETag ?? ''), (i) => ({ ...i, response: { ...i.response, headers: { ...i.response.headers, ETag: `"time-entry:${randomUUID()}:r1"` } } }))],
    ['a COMPLETED idempotency record without its response', 'idempotency.shape', () => changed(good, (i) => i.itemType === 'IdempotencyRecord', (i) => ({ ...i, response: undefined }))],
    ['a uniqueness guard names a missing employee', 'employee.guard', () => changed(good, (i) => i.itemType === 'EmployeeUniqueGuard' && i.attribute === 'externalId' && i.organizationId === api.demo.otherOrganizationId, (i) => ({ ...i, employeeId: randomUUID() }))],
    ['an employee lost its userName guard', 'employee.guarded', () => without(good, (i) => i.itemType === 'EmployeeUniqueGuard' && i.attribute === 'userName' && i.organizationId === api.demo.otherOrganizationId)],
    ['an e-mail lookup names a missing employee', 'employee.email-lookup', () => changed(good, (i) => i.itemType === 'EmployeeEmailLookup', (i) => ({ ...i, SK: `EMP#${randomUUID()}`, employeeId: undefined }))],
    ['a work event projected into a missing entry', 'work-event.entry', () => changed(good, (i) => i.itemType === 'WorkEvent' && i.timeEntryId, (i) => ({ ...i, timeEntryId: randomUUID() }))],
    ['an archived customer still has an ACTIVE grant', 'customer.access', () => withActiveGrant((customer) => ({ ...customer, archived: true }))],
    ["an ACTIVE grant's contact is no longer linked to its customer", 'customer.access', () => withActiveGrant((customer) => ({ ...customer, contactIds: [] }))],
  ];

  /** The good table plus a customer linking one contact and that contact's ACTIVE, unexpired grant, the customer as `shape` makes it. */
  function withActiveGrant(shape: (customer: Item) => Item): Item[] {
    const [org, customerId, contactId, grantId] = [api.demo.organizationId, randomUUID(), randomUUID(), randomUUID()];
    const customer = { PK: `ORG#${org}#CUST#${customerId}`, SK: 'CUST', itemType: 'Customer', organizationId: org, id: customerId, archived: false, contactIds: [contactId] };
    const grant = { PK: `ORG#${org}#CUSTACC#${grantId}`, SK: 'GRANT', itemType: 'CustomerAccessGrant', organizationId: org, id: grantId, customerId, contactId, state: 'ACTIVE', expiresAt: '2999-01-01T00:00:00.000Z' };
    const table = [...good, customer, grant];
    expect(rulesOf(table)).toEqual([]);
    return [...good, shape(customer), grant];
  }

  it.each(breakages)('catches it when %s (%s)', (_what, rule, broken) => {
    expect(rulesOf(broken())).toContain(rule);
  });

  it('has a breakage test for every rule', () => {
    expect([...new Set(breakages.map((b) => b[1]))].sort()).toEqual(Object.keys(RULES).sort());
  });

  it('notes IN_PROGRESS idempotency locks without calling them violations', () => {
    const lock = { PK: 'IDEM#x', SK: 'IDEM', itemType: 'IdempotencyRecord', status: 'INPROGRESS', inProgressExpiresAt: 1 };
    const report = checkItems([...good, lock]);
    expect(report.violations).toEqual([]);
    expect(report.notes.join(' ')).toMatch(/1 idempotency lock/);
  });
});

describe('npm run check:consistency', () => {
  /** A copy of the API's table, to break without disturbing the other tests. */
  async function copyOfGoodTable(): Promise<Db> {
    const db = await createTestTable();
    for (let i = 0; i < good.length; i += 25) {
      await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: good.slice(i, i + 25).map((Item) => ({ PutRequest: { Item: JSON.parse(JSON.stringify(Item)) } })) } }));
    }
    return db;
  }

  const runChecker = (db: Db) =>
    spawnSync(process.execPath, ['--import', 'tsx', resolve(__dirname, '../../scripts/check-consistency.ts')], {
      cwd: resolve(__dirname, '../..'),
      env: { ...process.env, TABLE_NAME: db.tableName, DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT },
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('exits 0 on a consistent table and 1 after an audit entry was deleted', async () => {
    const db = await copyOfGoodTable();
    const ok = runChecker(db);
    expect({ status: ok.status, out: ok.stdout }).toEqual({ status: 0, out: expect.stringMatching(/OK: \d+ rules hold/) });

    const audit = first(good, isAuditOf(corrected.id, 1));
    await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: { PK: audit.PK, SK: audit.SK } }));
    const broken = runChecker(db);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toMatch(/VIOLATED/);
    expect(broken.stdout).toMatch(/entry\.audit-per-revision/);
  });

  it('exits 2 when it cannot read the table', () => {
    const res = spawnSync(process.execPath, ['--import', 'tsx', resolve(__dirname, '../../scripts/check-consistency.ts')], {
      cwd: resolve(__dirname, '../..'),
      env: { ...process.env, TABLE_NAME: 'no-such-table', DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(res.status).toBe(2);
  });
});

describe('the demo seed', () => {
  // Was a finding (its three demo employees shared one externalId, seed-1b2c3d4e); fixed in
  // services/local/seed.ts. Kept as a regression test: the seed must hold every rule.
  it('gives every employee of an organization its own externalId and holds every rule', async () => {
    const db = await createTestTable();
    const demo = await seedDemo(db, 'checker-seed');
    const items = await scanAll(db);
    const externalIds = items.filter((i) => i.itemType === 'Employee' && i.organizationId === demo.organizationId).map((i) => i.externalId);
    expect(new Set(externalIds).size).toBe(externalIds.length);
    expect(checkItems(items).violations).toEqual([]);
  });
});
