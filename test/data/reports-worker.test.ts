import { randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { putEmployee } from '../../services/employees/store';
import { putLocation } from '../../services/locations/store';
import { putOrganization } from '../../services/organization/public';
import { requestReport, type ReportRequest } from '../../services/reports/domain';
import type { FileStore } from '../../services/reports/domain-files';
import { runReportJob, type WorkerPorts, type WorkerStore } from '../../services/reports/domain-worker';
import { jobResponse } from '../../services/reports/schemas';
import { shiftToItem, type Shift } from '../../services/planning/model';
import { hasPoppler, pdfText } from '../support/pdf';
import { reportsStore } from '../../services/reports/store';
import { fileStore } from '../../services/reports/store-files';
import { getJob } from '../../services/reports/store-jobs';
import { FENCE_LABEL, fenceFromItem, getManifest, manifestEntries, openManifestItems, planStaleness, reportKeys } from '../../services/reports/store-manifests';
import { workerPorts as realWorkerPorts } from '../../services/reports/store-worker';
import type { Principal } from '../../services/shared/auth/principal';
import type { Db } from '../../services/shared/ddb/client';
import { batchGet } from '../../services/shared/ddb/read';
import { commit, TransactionCancelledError } from '../../services/shared/ddb/transaction';
import { inUnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { correctTimeEntry, createTimeEntry, etagOf, type TimesheetPorts } from '../../services/timesheets/domain';
import { createTestTable } from '../support/table';
import { timesheetsIn } from '../support/timesheets';

let db: Db;
/** Runs a timesheets use case as the area handler does: in a unit of work, again while a read went stale. */
const timesheets = <T>(work: (ports: TimesheetPorts) => Promise<T>) => timesheetsIn(db)(work);
const ORG = 'abababab-abab-4bab-8bab-abababababab';
const EMP = 'cdcdcdcd-cdcd-4dcd-8dcd-cdcdcdcdcdcd';
const LOC = 'efefefef-efef-4fef-8fef-efefefefefef';
const t = '2026-01-01T00:00:00.000Z';
const principal: Principal = { organizationId: ORG, keyId: 'k'.repeat(20), keyLabel: 'test key', environment: 'TEST', scopes: new Set(['timesheets:write', 'reports:write']) };
const actor = { principal, requestId: 'req-test' };
/** Requests an export as the handler does (in a unit of work); the message is not sent: the tests run the worker. */
const request = (req: ReportRequest) => inUnitOfWork(db, (unit) => requestReport({ store: reportsStore(db, unit, { send: async () => undefined }), now: () => new Date(), newId: randomUUID }, actor, req));
const workerPorts = (files: FileStore): WorkerPorts => ({ ...realWorkerPorts(db), files });
const PERIOD = { from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' };

beforeAll(async () => {
  db = await createTestTable();
  await putOrganization(db, { id: ORG, name: 'Org', entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: t, updatedAt: t });
  await putEmployee(db, { id: EMP, organizationId: ORG, userName: 'w@x.example', displayName: 'W', emails: [], active: true, createdAt: t, updatedAt: t, version: 1 });
  await putLocation(db, { id: LOC, organizationId: ORG, name: 'Site', createdAt: t, updatedAt: t });
});

const newEntry = (day: number) =>
  timesheets((ports) => createTimeEntry(ports, actor, { employeeId: EMP, context: { kind: 'REGISTERED_LOCATION', locationId: LOC }, startedAt: `2026-03-${String(day).padStart(2, '0')}T08:00:00.000Z`, endedAt: `2026-03-${String(day).padStart(2, '0')}T12:00:00.000Z`, breakMinutes: 0, reason: 'test' }));

describe('generating an export while entries change', () => {
  it('starts over when a correction makes the pending manifest stale, and publishes the current revision', async () => {
    const { entry } = await newEntry(2);
    const job = await request({ kind: 'TIMESHEET_CSV', period: PERIOD });
    let corrected: Awaited<ReturnType<typeof correctTimeEntry>> | undefined;
    const real = fileStore();
    // The correction lands after the worker read the entries and before it publishes.
    const files: FileStore = {
      get: real.get,
      put: async (key, body, type) => {
        if (!corrected) corrected = await timesheets((ports) => correctTimeEntry(ports, actor, entry.id, etagOf(entry), { breakMinutes: 15, reason: 'late fix' }));
        await real.put(key, body, type);
      },
    };
    await runReportJob(workerPorts(files), { organizationId: ORG, jobId: job.id });

    const done = await getJob(db, ORG, job.id);
    expect(done).toMatchObject({ status: 'SUCCEEDED' });
    const published = await getManifest(db, ORG, done!.manifestId!);
    expect(published).toMatchObject({ status: 'PUBLISHED', stale: null });
    expect(await manifestEntries(db, ORG, published!.id)).toEqual([{ id: entry.id, revision: 2 }]);
    // The correction saw only the pending manifest: nothing published was stale to report.
    expect(corrected!.staleExportManifestIds).toEqual([]);
    const manifests = await db.doc.send(new QueryCommand({ TableName: db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': reportKeys.monthIndex(ORG, '2026-03', '').PK } }));
    const statuses = (manifests.Items ?? []).map((i) => i.status).sort();
    expect(statuses).toEqual(['ABANDONED', 'PUBLISHED']);
  });

  it('makes a write that read the fence before an export opened check again', async () => {
    const { entry } = await newEntry(9);
    const [fenceItem] = await batchGet(db, [reportKeys.fence(ORG)]);
    const oldFence = fenceFromItem(ORG, fenceItem);
    const plan = await planStaleness(db, oldFence, undefined, entry, { at: t, requestId: 'r' });
    // An export opens a manifest for March: the fence moves on.
    await commit(db, openManifestItems(
      { id: randomUUID(), organizationId: ORG, kind: 'TIMESHEET_CSV', period: PERIOD, scope: { employeeIds: [], locationIds: [] }, status: 'PENDING', jobId: 'j', entryCount: 0, contentHash: null, fileHash: null, contentType: null, byteSize: null, fileKey: null, requestedBy: { keyId: 'k', label: 'l' }, createdAt: t, publishedAt: null, stale: null, replacesManifestId: null, replacedByManifestId: null, version: 1 },
      ['2026-03'],
      oldFence,
    ));
    const error = await commit(db, plan.items).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionCancelledError);
    expect((error as TransactionCancelledError).failed(FENCE_LABEL)).toBe(true);
  });

  it('publishes nothing and fails the job when the period keeps changing', async () => {
    const { entry } = await newEntry(16);
    let current = entry;
    const job = await request({ kind: 'TIMESHEET_CSV', period: PERIOD });
    const real = fileStore();
    const files: FileStore = {
      get: real.get,
      put: async (key, body, type) => {
        current = (await timesheets((ports) => correctTimeEntry(ports, actor, current.id, etagOf(current), { breakMinutes: current.breakMinutes + 1, reason: 'again' }))).entry;
        await real.put(key, body, type);
      },
    };
    await runReportJob(workerPorts(files), { organizationId: ORG, jobId: job.id });
    expect(await getJob(db, ORG, job.id)).toMatchObject({ status: 'FAILED', manifestId: null, failureReason: expect.stringMatching(/kept changing/) });
  });
});

describe('what a running job shows and what the monthly report plans with', () => {
  const ORG2 = 'a1a1a1a1-a1a1-4a1a-8a1a-a1a1a1a1a1a1';
  const PEOPLE = ['b1000000-0000-4000-8000-000000000001', 'b2000000-0000-4000-8000-000000000002', 'b3000000-0000-4000-8000-000000000003'];
  const actor2 = { principal: { ...principal, organizationId: ORG2 }, requestId: 'req-2' };
  const request2 = (req: ReportRequest) => inUnitOfWork(db, (unit) => requestReport({ store: reportsStore(db, unit, { send: async () => undefined }), now: () => new Date(), newId: randomUUID }, actor2, req));

  beforeAll(async () => {
    await putOrganization(db, { id: ORG2, name: 'Øresund Ølkompagni', settings: { timeZone: 'Europe/Copenhagen', locale: 'da-DK', weekStartsOn: 'MONDAY' }, entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: t, updatedAt: t });
    for (const [i, id] of PEOPLE.entries()) {
      await putEmployee(db, { id, organizationId: ORG2, userName: `p${i}@x.example`, displayName: ['Åse Ødegård', 'Łucja Wąs', 'Zoë Brontë'][i], emails: [], active: true, createdAt: t, updatedAt: t, version: 1 });
    }
    await putLocation(db, { id: LOC, organizationId: ORG2, name: 'Bryggeri', createdAt: t, updatedAt: t });
    await timesheets((ports) =>
      createTimeEntry(ports, actor2, {
        employeeId: PEOPLE[1], context: { kind: 'REGISTERED_LOCATION', locationId: LOC }, startedAt: '2026-03-10T07:00:00.000Z', endedAt: '2026-03-10T15:00:00.000Z', breakMinutes: 30, reason: 'test',
      }),
    );
    // A PUBLISHED shift (8:00 planned) and a DRAFT one (not planned yet) for the same employee.
    for (const [state, day] of [['PUBLISHED', '10'], ['DRAFT', '11']] as const) {
      const shift: Shift = { id: randomUUID(), organizationId: ORG2, employeeId: PEOPLE[1], locationId: LOC, startsAt: `2026-03-${day}T07:00:00.000Z`, endsAt: `2026-03-${day}T15:30:00.000Z`, breakMinutes: 30, taskIds: [], notes: null, state, publishedAt: state === 'PUBLISHED' ? t : null, cancelledAt: null, cancelReason: null, version: 1, createdAt: t, updatedAt: t };
      await db.doc.send(new PutCommand({ TableName: db.tableName, Item: shiftToItem(shift) }));
    }
  });

  it('reports processed / total while RUNNING, and processed = total when done', async () => {
    const job = await request2({ kind: 'TIMESHEET_CSV', period: PERIOD });
    expect(jobResponse((await getJob(db, ORG2, job.id))!).progress).toMatchObject({ processed: 0, total: null });
    const seen: unknown[] = [];
    const ports = realWorkerPorts(db);
    const store: WorkerStore = {
      ...ports.store,
      entriesOf: async (org, employeeId, period) => {
        const running = (await getJob(db, ORG2, job.id))!;
        seen.push({ status: running.status, ...jobResponse(running).progress });
        return ports.store.entriesOf(org, employeeId, period);
      },
    };
    await runReportJob({ ...ports, store }, { organizationId: ORG2, jobId: job.id });
    expect(seen).toEqual([0, 1, 2].map((processed) => ({ status: 'RUNNING', processed, total: 3, processedEmployees: processed, totalEmployees: 3 })));
    expect(jobResponse((await getJob(db, ORG2, job.id))!)).toMatchObject({ status: 'SUCCEEDED', progress: { processed: 3, total: 3 } });
  });

  (hasPoppler ? it : it.skip)('plans with PUBLISHED shifts through planning’s port, in the organization’s zone and locale', async () => {
    const job = await request2({ kind: 'MONTHLY_REPORT', period: PERIOD });
    await runReportJob(realWorkerPorts(db), { organizationId: ORG2, jobId: job.id });
    const done = (await getJob(db, ORG2, job.id))!;
    const manifest = (await getManifest(db, ORG2, done.manifestId!))!;
    const text = pdfText((await fileStore().get(manifest.fileKey!))!);
    expect(text).toContain('Øresund Ølkompagni · Monthly report');
    expect(text).toContain('Europe/Copenhagen');
    // One page: only Łucja has entries or shifts. 10 March: planned 8:00, 08:00–16:00 local, worked 7:30.
    expect(text.split('\f').filter((p) => p.trim() !== '')).toHaveLength(1);
    expect(text).toContain('Łucja Wąs');
    expect(text).toMatch(/10\.03\.2026\s+8:00\s+08:00–16:00\s+0:30\s+7:30\s+-0:30\s+1/);
    expect(text).toMatch(/Total\s+8:00\s+0:30\s+7:30\s+-0:30\s+1/);
  });
});
