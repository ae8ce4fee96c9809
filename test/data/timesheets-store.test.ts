import { randomUUID } from 'node:crypto';
import { putEmployee } from '../../services/employees/public';
import { putLocation } from '../../services/locations/public';
import { putOrganization, setTimesheetCorrections } from '../../services/organization/public';
import type { Principal } from '../../services/shared/auth/principal';
import { sealRestricted } from '../../services/shared/crypto/restricted';
import type { Db } from '../../services/shared/ddb/client';
import { inUnitOfWork, TransactionUnit, type UnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { ConcurrentChangeError } from '../../services/shared/domain/conflict';
import { correctTimeEntry, createTimeEntry, etagOf, type CreateCommand, type TimesheetPorts } from '../../services/timesheets/domain';
import { entryKeys, guardFromItem } from '../../services/timesheets/model';
import { closedEntriesNear, getEntry, GUARD_SPAN_ITEMS, guardAndClosedEntriesNear, timesheetsStore } from '../../services/timesheets/store';
import { reportsExports } from '../../services/timesheets/store-exports';
import { batchGet } from '../../services/shared/ddb/read';
import { countByType, itemsOfType } from '../support/api';
import { createTestTable } from '../support/table';

/**
 * Time-entry revisions on DynamoDB Local, run as the area handler runs them (inUnitOfWork:
 * commit, and run again while a read went stale): the guard serializes one employee's
 * writes without refusing any, a revision decided on a stale read never commits, and a
 * failed check reads in the contract's terms.
 */
let db: Db;
const ORG = '5e5e5e5e-5e5e-4e5e-8e5e-5e5e5e5e5e5e';
const LOC = '6f6f6f6f-6f6f-4f6f-8f6f-6f6f6f6f6f6f';
const t = '2026-01-01T00:00:00.000Z';
const principal: Principal = { organizationId: ORG, keyId: 'revisions', keyLabel: 'Revisions test', environment: 'TEST', scopes: new Set(['timesheets:write']) };
const actor = { principal, requestId: 'req-revisions' };

const portsOf = (unit: UnitOfWork, wrap: (store: TimesheetPorts['store']) => TimesheetPorts['store'] = (s) => s): TimesheetPorts => ({
  store: wrap(timesheetsStore(db, unit, reportsExports)),
  now: () => new Date(),
  newId: randomUUID,
  seal: sealRestricted,
});
/** Runs a use case as the area handler does; counts the attempts. */
async function run<T>(work: (ports: TimesheetPorts, attempt: number) => Promise<T>, wrap?: (store: TimesheetPorts['store'], attempt: number) => TimesheetPorts['store']): Promise<{ result: T; attempts: number }> {
  let attempts = 0;
  const result = await inUnitOfWork(db, (unit) => {
    attempts += 1;
    return work(portsOf(unit, wrap ? (s) => wrap(s, attempts) : undefined), attempts);
  });
  return { result, attempts };
}

async function employee(): Promise<string> {
  const id = randomUUID();
  await putEmployee(db, { id, organizationId: ORG, userName: `${id}@test.example`, emails: [], active: true, createdAt: t, updatedAt: t, version: 1 });
  return id;
}

const day = (employeeId: string, n: number): CreateCommand => ({
  employeeId,
  context: { kind: 'REGISTERED_LOCATION', locationId: LOC },
  startedAt: new Date(Date.UTC(2026, 1, 1 + n, 8)).toISOString(),
  endedAt: new Date(Date.UTC(2026, 1, 1 + n, 16)).toISOString(),
  breakMinutes: 30,
  reason: 'revisions test',
});

beforeAll(async () => {
  db = await createTestTable();
  await putOrganization(db, { id: ORG, name: 'Org', entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: t, updatedAt: t });
  await putLocation(db, { id: LOC, organizationId: ORG, name: 'Site', createdAt: t, updatedAt: t });
});

describe('revisions of one employee under concurrency', () => {
  it('commits 16 concurrent creates of disjoint intervals: the guard serializes them, the kit runs the losers again', async () => {
    const employeeId = await employee();
    const outcomes = await Promise.all(Array.from({ length: 16 }, (_, i) => run((ports) => createTimeEntry(ports, actor, day(employeeId, i)))));
    const [guard] = await batchGet(db, [entryKeys.guard(ORG, employeeId)]);
    expect(guardFromItem(ORG, employeeId, guard).version).toBe(16);
    const stored = (await itemsOfType(db, 'TimeEntry')).filter((e) => e.employeeId === employeeId);
    expect(stored.map((e) => e.id).sort()).toEqual(outcomes.map((o) => o.result.entry.id).sort());
    const audits = (await itemsOfType(db, 'AuditEntry')).filter((a) => a.references?.employeeId === employeeId);
    expect(audits).toHaveLength(16);
    // Some of them read a guard that moved on before they committed, and ran again.
    expect(outcomes.some((o) => o.attempts > 1)).toBe(true);
  });

  it('never commits a revision decided on a guard that moved on', async () => {
    const employeeId = await employee();
    const stale = new TransactionUnit(db);
    // Read and decided (staged, not committed yet) ...
    const { entry } = await createTimeEntry(portsOf(stale), actor, day(employeeId, 0));
    // ... when another write for the same employee commits.
    await run((ports) => createTimeEntry(ports, actor, day(employeeId, 1)));
    await expect(stale.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
    expect(await getEntry(db, ORG, entry.id)).toBeUndefined();
  });
});

describe("a correction's one read of guard and overlap window", () => {
  it('finds the same candidates and the guard whether few or many entries follow the window, and refuses the overlap either way', async () => {
    const employeeId = await employee();
    const entries = [];
    for (let n = 0; n < GUARD_SPAN_ITEMS + 5; n += 1) entries.push((await run((ports) => createTimeEntry(ports, actor, day(employeeId, n)))).result.entry);
    const [guardItem] = await batchGet(db, [entryKeys.guard(ORG, employeeId)]);
    const guard = guardFromItem(ORG, employeeId, guardItem);
    // Near the first day: more than GUARD_SPAN_ITEMS entries after the window (the second Query);
    // near the last day: one Query down from the guard.
    for (const n of [1, GUARD_SPAN_ITEMS + 3]) {
      const interval = { startedAt: day(employeeId, n).startedAt, endedAt: new Date(Date.UTC(2026, 1, 2 + n, 9)).toISOString() };
      const both = await guardAndClosedEntriesNear(db, ORG, employeeId, interval, 8 * 3_600_000);
      expect(both.guard).toEqual(guard);
      expect(both.closed).toEqual(await closedEntriesNear(db, ORG, employeeId, interval, 8 * 3_600_000));
      expect(both.closed.map((c) => c.id)).toEqual([entries[n].id, entries[n + 1].id]);
      // Stretching entry n - 1 into the next day overlaps entry n.
      const before = entries[n - 1];
      await expect(run((ports) => correctTimeEntry(ports, actor, before.id, etagOf(before), { endedAt: interval.endedAt, reason: 'stretch' }))).rejects.toMatchObject({ code: 'TIME_ENTRY_OVERLAP' });
    }
  });
});

describe('a correction whose entry moved on before its commit', () => {
  it('runs again from its reads and answers 412 ETAG_MISMATCH, writing nothing', async () => {
    const employeeId = await employee();
    const { result: created } = await run((ports) => createTimeEntry(ports, actor, day(employeeId, 0)));
    const first = created.entry;
    // The first attempt reads the entry at revision 1; another correction commits revision 2
    // before the first attempt commits.
    let attempts = 0;
    const outcome = run(
      (ports) => correctTimeEntry(ports, actor, first.id, etagOf(first), { breakMinutes: 45, reason: 'late' }),
      (store, attempt) => {
        attempts = attempt;
        if (attempt > 1) return store;
        return {
          ...store,
          readEntryContext: async (org, id, locationId) => {
            const read = await store.readEntryContext(org, id, locationId);
            await run((ports) => correctTimeEntry(ports, actor, first.id, etagOf(first), { breakMinutes: 15, reason: 'first' }));
            return read;
          },
        };
      },
    );
    await expect(outcome).rejects.toMatchObject({ code: 'ETAG_MISMATCH' });
    expect(attempts).toBe(2);
    expect(await getEntry(db, ORG, first.id)).toMatchObject({ revision: 2, breakMinutes: 15 });
    const audits = (await itemsOfType(db, 'AuditEntry')).filter((a) => a.entity?.id === first.id);
    expect(audits.map((a) => a.reason).sort()).toEqual(['first', 'revisions test']);
  });
});

describe('checks that fail at the commit', () => {
  it('reads a capability turned off after the reads as 409 FEATURE_NOT_ENABLED, and writes nothing', async () => {
    const employeeId = await employee();
    const before = await countByType(db);
    const attempt = run(
      (ports) => createTimeEntry(ports, actor, day(employeeId, 0)),
      (store) => ({
        ...store,
        // Between the reads and the commit: an operator closes the rollout gate.
        staleExports: async (...args) => {
          await setTimesheetCorrections(db, ORG, { rolloutGate: false }, t);
          return store.staleExports(...args);
        },
      }),
    );
    try {
      await expect(attempt).rejects.toMatchObject({ code: 'FEATURE_NOT_ENABLED' });
    } finally {
      await setTimesheetCorrections(db, ORG, { rolloutGate: true }, t);
    }
    const after = await countByType(db);
    expect({ ...after, Organization: 0 }).toEqual({ ...before, Organization: 0 });
  });
});
