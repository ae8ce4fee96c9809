import { randomUUID } from 'node:crypto';
import { putEmployee } from '../../services/employees/store';
import { putLocation } from '../../services/locations/store';
import { putOrganization } from '../../services/organization/public';
import { getManifest, STALE_MARKS_IN_TRANSACTION } from '../../services/reports/store-manifests';
import type { Principal } from '../../services/shared/auth/principal';
import type { Db } from '../../services/shared/ddb/client';
import { inUnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { correctTimeEntry, createTimeEntry, etagOf, voidTimeEntry, type TimesheetPorts, type WriteOutcome } from '../../services/timesheets/domain';
import { requestReport } from '../../services/reports/domain';
import { runReportJob } from '../../services/reports/domain-worker';
import { reportsStore } from '../../services/reports/store';
import { fileStore } from '../../services/reports/store-files';
import { getJob } from '../../services/reports/store-jobs';
import { workerPorts } from '../../services/reports/store-worker';
import { publishedMonthManifest } from '../support/manifests';
import { createTestTable } from '../support/table';
import { timesheetsIn } from '../support/timesheets';

/**
 * Staleness at scale: a day that many exports cover stays correctable. A change marks every
 * export it alters (beyond what one transaction holds, the surplus first), marks each export
 * once in its life, and names only exports that are not replaced.
 */
let db: Db;
const ORG = 'a1a1a1a1-a1a1-4a1a-8a1a-a1a1a1a1a1a1';
const EMP = 'b2b2b2b2-b2b2-4b2b-8b2b-b2b2b2b2b2b2';
const LOC = 'c3c3c3c3-c3c3-4c3c-8c3c-c3c3c3c3c3c3';
const t = '2026-01-01T00:00:00.000Z';
const principal: Principal = { organizationId: ORG, keyId: 'k'.repeat(20), keyLabel: 'test key', environment: 'TEST', scopes: new Set(['timesheets:write', 'reports:write']) };
const actor = { principal, requestId: 'req-staleness' };
const timesheets = <T>(work: (ports: TimesheetPorts) => Promise<T>) => timesheetsIn(db)(work);

/** A published org-wide CSV manifest of March 2026, opened and published as the worker does (no file). */
const publishedMarchExport = () => publishedMonthManifest(db, ORG, '2026-03');

const marchEntry = (day: number) =>
  timesheets((ports) => createTimeEntry(ports, actor, { employeeId: EMP, context: { kind: 'REGISTERED_LOCATION', locationId: LOC }, startedAt: `2026-03-${String(day).padStart(2, '0')}T08:00:00.000Z`, endedAt: `2026-03-${String(day).padStart(2, '0')}T12:00:00.000Z`, breakMinutes: 0, reason: 'test' }));

beforeAll(async () => {
  db = await createTestTable();
  await putOrganization(db, { id: ORG, name: 'Org', entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: t, updatedAt: t });
  await putEmployee(db, { id: EMP, organizationId: ORG, userName: 'w@x.example', displayName: 'W', emails: [], active: true, createdAt: t, updatedAt: t, version: 1 });
  await putLocation(db, { id: LOC, organizationId: ORG, name: 'Site', createdAt: t, updatedAt: t });
});

describe('a day that many exports cover', () => {
  const exports: string[] = [];
  let entry: WriteOutcome['entry'];

  beforeAll(async () => {
    entry = (await marchEntry(3)).entry;
    // More than one transaction holds: the in-transaction share, a full surplus batch and some.
    for (let i = 0; i < STALE_MARKS_IN_TRANSACTION + 110; i += 1) exports.push(await publishedMarchExport());
    exports.sort();
  }, 60_000);

  it('is still corrected: every export it alters is marked stale by this change and named in the answer', async () => {
    const corrected = await timesheets((ports) => correctTimeEntry(ports, actor, entry.id, etagOf(entry), { breakMinutes: 15, reason: 'late fix' }));
    expect(corrected.staleExportManifestIds).toEqual(exports);
    for (const id of exports) expect(await getManifest(db, ORG, id)).toMatchObject({ stale: { entryId: entry.id, revision: 2, requestId: actor.requestId }, version: 3 });
    entry = corrected.entry;
  });

  it('marks each export once: a later change names them again but leaves their first mark and version', async () => {
    const again = await timesheets((ports) => correctTimeEntry(ports, actor, entry.id, etagOf(entry), { breakMinutes: 20, reason: 'later fix' }));
    expect(again.staleExportManifestIds).toEqual(exports);
    for (const id of exports) expect(await getManifest(db, ORG, id)).toMatchObject({ stale: { revision: 2 }, version: 3 });
    const voided = await timesheets((ports) => voidTimeEntry(ports, actor, again.entry.id, etagOf(again.entry), 'duplicate'));
    expect(voided.entry.state).toBe('VOIDED');
  });

  it('a new entry of that day is created too', async () => {
    const created = await marchEntry(3);
    expect(created.entry.state).toBe('CLOSED');
    expect(created.staleExportManifestIds).toEqual(exports);
  });
});

describe('a burst of exports of one organization', () => {
  it('opens every one of them: a manifest that meets another at the export fence reads it again after a jittered wait', async () => {
    const opened = await Promise.allSettled(Array.from({ length: 16 }, () => publishedMarchExport()));
    expect(opened.filter((o) => o.status === 'rejected')).toEqual([]);
    for (const o of opened) expect(await getManifest(db, ORG, (o as PromiseFulfilledResult<string>).value)).toMatchObject({ status: 'PUBLISHED' });
  }, 30_000);
});

describe('two payroll dispatches of one period requested at once', () => {
  it('both pass the request, but the worker opens only the first: the second FAILS with PAYROLL_PERIOD_EXPORTED and publishes nothing', async () => {
    const period = { from: '2026-05-01T00:00:00.000Z', to: '2026-06-01T00:00:00.000Z' };
    const request = () => inUnitOfWork(db, (unit) => requestReport({ store: reportsStore(db, unit, { send: async () => undefined }), now: () => new Date(), newId: randomUUID }, actor, { kind: 'PAYROLL_DISPATCH', period, employeeIds: [EMP] }));
    const [first, second] = [await request(), await request()];
    const ports = { ...workerPorts(db), files: fileStore() };
    expect(await runReportJob(ports, { organizationId: ORG, jobId: first.id })).toBe('SUCCEEDED');
    expect(await runReportJob(ports, { organizationId: ORG, jobId: second.id })).toBe('FAILED');
    const firstManifest = (await getJob(db, ORG, first.id))!.manifestId;
    expect(await getJob(db, ORG, second.id)).toMatchObject({ status: 'FAILED', manifestId: null, failureReason: expect.stringContaining(`manifest ${firstManifest}`) });
    // And a third request is refused at once.
    await expect(request()).rejects.toMatchObject({ code: 'PAYROLL_PERIOD_EXPORTED', extensions: { manifestIds: [firstManifest] } });
  });
});
