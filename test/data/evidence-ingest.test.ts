import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ingestEvidence, type IngestDeps } from '../../services/evidence-ingest/handler';
import { listAuditEntries } from '../../services/audit/store';
import { putEmployee } from '../../services/employees/store';
import { putLocation } from '../../services/locations/store';
import { sealRestricted } from '../../services/shared/crypto/restricted';
import type { Db } from '../../services/shared/ddb/client';
import { getEntry } from '../../services/timesheets/store';
import { getWorkEvent } from '../../services/work-events/store';
import { createTestTable } from '../support/table';

let db: Db;
let deps: IngestDeps;
const ORG = '33333333-3333-4333-8333-333333333333';
const EMP = '44444444-4444-4444-8444-444444444444';
const LOC = '55555555-5555-4555-8555-555555555555';
const t = '2026-06-01T00:00:00.000Z';

beforeAll(async () => {
  db = await createTestTable();
  deps = { db, now: () => new Date(), newId: randomUUID, seal: sealRestricted };
  await putEmployee(db, { id: EMP, organizationId: ORG, userName: 'e@x.example', emails: [], active: true, createdAt: t, updatedAt: t, version: 1 });
  await putLocation(db, { id: LOC, organizationId: ORG, name: 'Site', createdAt: t, updatedAt: t });
});

const scan = (over: Record<string, unknown>) =>
  ingestEvidence(deps, ORG, { employeeId: EMP, locationId: LOC, type: 'CHECK_IN', clientTimestamp: '2026-06-01T07:00:00+02:00', offline: true, verificationState: 'VERIFIED', ...over });

describe('ingestEvidence', () => {
  it('opens a SCANNED entry on a verified check-in and closes it on the check-out', async () => {
    const checkIn = await scan({ restricted: { qrPublicId: 'QR-PUBLIC-777', deviceId: 'DEVICE-XYZ', latitude: 48.137154, longitude: 11.576124 } });
    expect(checkIn).toMatchObject({ projection: 'OPENED', duplicate: false });
    const open = await getEntry(db, ORG, checkIn.timeEntryId!);
    expect(open).toMatchObject({ origin: 'SCANNED', state: 'OPEN', startedAt: '2026-06-01T05:00:00.000Z', endedAt: null, revision: 1, source: { eventIds: [checkIn.workEventId] } });

    const checkOut = await scan({ type: 'CHECK_OUT', clientTimestamp: '2026-06-01T13:30:00Z' });
    expect(checkOut).toMatchObject({ projection: 'CLOSED', timeEntryId: checkIn.timeEntryId });
    const closed = await getEntry(db, ORG, checkIn.timeEntryId!);
    expect(closed).toMatchObject({ state: 'CLOSED', endedAt: '2026-06-01T13:30:00.000Z', revision: 2, adjusted: false, source: { eventIds: [checkIn.workEventId, checkOut.workEventId], endedAt: '2026-06-01T13:30:00.000Z' } });

    const audit = await listAuditEntries(db, ORG, { limit: 10, entity: { type: 'time_entry', id: checkIn.timeEntryId! } });
    expect(audit.items.map((a) => a.action)).toEqual(['time_entry.scan_closed', 'time_entry.scan_opened']);
    expect(audit.items[0].actor).toEqual({ type: 'SYSTEM', label: 'Evidence ingest' });
  });

  it('stores restricted data sealed: no QR id, device id or position in clear anywhere', async () => {
    const items = (await db.doc.send(new ScanCommand({ TableName: db.tableName }))).Items ?? [];
    const text = JSON.stringify(items);
    expect(text).not.toMatch(/QR-PUBLIC-777|DEVICE-XYZ|48\.137154|11\.576124/);
    expect(items.filter((i) => i.itemType === 'RestrictedEvidence').length).toBeGreaterThan(0);
  });

  it('never projects a REVIEW_REQUIRED event', async () => {
    const result = await scan({ verificationState: 'REVIEW_REQUIRED', clientTimestamp: '2026-06-02T07:00:00Z' });
    expect(result).toMatchObject({ projection: 'NONE', timeEntryId: null });
    expect(await getWorkEvent(db, ORG, result.workEventId)).toMatchObject({ verificationState: 'REVIEW_REQUIRED', timeEntryId: null });
  });

  it('keeps but does not project a second check-in while an entry is OPEN', async () => {
    const first = await scan({ clientTimestamp: '2026-06-03T07:00:00Z' });
    const second = await scan({ clientTimestamp: '2026-06-03T08:00:00Z' });
    expect(first.projection).toBe('OPENED');
    expect(second).toMatchObject({ projection: 'NONE', timeEntryId: null });
    await scan({ type: 'CHECK_OUT', clientTimestamp: '2026-06-03T12:00:00Z' });
  });

  it('does not close with a check-out before the start', async () => {
    const opened = await scan({ clientTimestamp: '2026-06-04T07:00:00Z' });
    const early = await scan({ type: 'CHECK_OUT', clientTimestamp: '2026-06-04T06:00:00Z' });
    expect(early.projection).toBe('NONE');
    expect((await getEntry(db, ORG, opened.timeEntryId!))?.state).toBe('OPEN');
    await scan({ type: 'CHECK_OUT', clientTimestamp: '2026-06-04T09:00:00Z' });
  });

  it('is idempotent per event id', async () => {
    const id = randomUUID();
    const first = await scan({ id, clientTimestamp: '2026-06-05T07:00:00Z' });
    const again = await scan({ id, clientTimestamp: '2026-06-05T07:00:00Z' });
    expect(again).toEqual({ workEventId: id, timeEntryId: first.timeEntryId, projection: 'NONE', duplicate: true });
  });

  /** An employee of its own: a timeline no other test has left an OPEN entry on. */
  async function freshEmployee(): Promise<string> {
    const id = randomUUID();
    await putEmployee(db, { id, organizationId: ORG, userName: `${id}@x.example`, emails: [], active: true, createdAt: t, updatedAt: t, version: 1 });
    return id;
  }

  it('projects one of concurrent deliveries of one event; the others answer its first outcome', async () => {
    const employeeId = await freshEmployee();
    const id = randomUUID();
    const results = await Promise.all(Array.from({ length: 6 }, () => scan({ id, employeeId, clientTimestamp: '2026-06-06T07:00:00Z' })));
    const first = results.filter((r) => !r.duplicate);
    expect(first).toEqual([{ workEventId: id, timeEntryId: expect.any(String), projection: 'OPENED', duplicate: false }]);
    for (const r of results.filter((x) => x.duplicate)) expect(r).toEqual({ workEventId: id, timeEntryId: first[0].timeEntryId, projection: 'NONE', duplicate: true });
    const entries = (await db.doc.send(new ScanCommand({ TableName: db.tableName }))).Items!.filter((i) => i.itemType === 'TimeEntry' && i.source?.eventIds?.includes(id));
    expect(entries).toHaveLength(1);
  });

  it('opens one entry from concurrent check-ins of one employee and keeps the others unprojected', async () => {
    const employeeId = await freshEmployee();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => scan({ employeeId, clientTimestamp: `2026-06-07T07:0${i}:00Z` })));
    expect(results.filter((r) => r.projection === 'OPENED')).toHaveLength(1);
    expect(results.filter((r) => r.projection === 'NONE' && r.timeEntryId === null && !r.duplicate)).toHaveLength(5);
    const closed = await scan({ employeeId, type: 'CHECK_OUT', clientTimestamp: '2026-06-07T12:00:00Z' });
    expect(closed).toMatchObject({ projection: 'CLOSED', timeEntryId: results.find((r) => r.projection === 'OPENED')!.timeEntryId });
  });

  it('refuses an employee or location of another organization', async () => {
    await expect(ingestEvidence(deps, '66666666-6666-4666-8666-666666666666', { employeeId: EMP, locationId: LOC, type: 'CHECK_IN', clientTimestamp: t, offline: false, verificationState: 'VERIFIED' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});
