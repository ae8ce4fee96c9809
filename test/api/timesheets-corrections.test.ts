import { randomUUID } from 'node:crypto';
import { call, countByType, expectPointers, expectProblem, itemsOfType, keyIdOf, startApi, withQuery, type ApiFixture, type ApiResponse } from '../support/api';
import {
  addEmployee,
  auditItemsOf,
  correctEntry,
  createEntry,
  createdEntry,
  dayInterval,
  etagOf,
  getEntryResponse,
  manualBody,
  scan,
  scannedEntry,
  storedEntriesOf,
  timesheetsUrl,
  voidEntry,
} from './timesheets-fixture';

let api: ApiFixture;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

let nextDay = 0;
/** A fresh CLOSED MANUAL entry of 08:00-16:00 with a 30 minute break, on its own day. */
const freshEntry = (over: Record<string, unknown> = {}) => createdEntry(api, manualBody(api, dayInterval((nextDay += 1)), over));
const etag = (res: ApiResponse) => res.headers.get('etag')!;

describe('PATCH /timesheets/{timeEntryId} preconditions', () => {
  it('returns 428 ETAG_REQUIRED without If-Match and changes nothing', async () => {
    const entry = await freshEntry();
    const before = await countByType(api.db);
    expectProblem(await correctEntry(api, entry.body.id, undefined, { breakMinutes: 10, reason: 'shorter lunch' }), 428, 'ETAG_REQUIRED');
    expect(await countByType(api.db)).toEqual(before);
    expect((await getEntryResponse(api, entry.body.id)).body.revision).toBe(1);
  });

  it('returns 412 ETAG_MISMATCH for a stale or weak ETag and changes nothing', async () => {
    const entry = await freshEntry();
    const id = entry.body.id;
    const corrected = await correctEntry(api, id, etag(entry), { breakMinutes: 10, reason: 'shorter lunch' });
    expect(corrected.status).toBe(200);
    const before = await countByType(api.db);
    for (const stale of [etag(entry), `W/${etag(corrected)}`, etagOf(randomUUID(), 2), '"garbage"']) {
      expectProblem(await correctEntry(api, id, stale, { breakMinutes: 20, reason: 'again' }), 412, 'ETAG_MISMATCH');
    }
    expect(await countByType(api.db)).toEqual(before);
    expect((await getEntryResponse(api, id)).body).toMatchObject({ revision: 2, breakMinutes: 10 });
  });

  it('returns 404 for an unknown entry', async () => {
    const id = randomUUID();
    expectProblem(await correctEntry(api, id, etagOf(id, 1), { breakMinutes: 10, reason: 'x' }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('PATCH /timesheets/{timeEntryId} body rules', () => {
  let entry: ApiResponse;
  beforeAll(async () => {
    entry = await freshEntry();
  });
  // The entry runs 08:00-16:00 on `d`.
  const cases: [string, (d: string) => Record<string, unknown>, string[]][] = [
    ['reason is missing', () => ({ breakMinutes: 10 }), ['/reason']],
    ['reason is blank', () => ({ breakMinutes: 10, reason: ' ' }), ['/reason']],
    ['only a reason is sent', () => ({ reason: 'nothing really' }), ['']],
    ['an unknown field is sent', () => ({ breakMinutes: 10, reason: 'x', comment: 'y' }), ['/comment']],
    ['employeeId is sent', () => ({ employeeId: '1b2c3d4e-5f60-4718-89a0-b1c2d3e4f502', reason: 'wrong person' }), ['/employeeId']],
    ['the new end is not after the current start', (d) => ({ endedAt: `${d}T07:00:00Z`, reason: 'x' }), ['/endedAt']],
    ['the new start is not before the current end', (d) => ({ startedAt: `${d}T16:00:00Z`, reason: 'x' }), ['/endedAt']],
    ['the break is not shorter than the corrected interval', (d) => ({ endedAt: `${d}T09:00:00Z`, breakMinutes: 60, reason: 'x' }), ['/breakMinutes']],
    ['endedAt is null', () => ({ endedAt: null, reason: 'x' }), ['/endedAt']],
    ['startedAt has no offset', (d) => ({ startedAt: `${d}T07:00:00`, reason: 'x' }), ['/startedAt']],
    ['breakMinutes is negative', () => ({ breakMinutes: -5, reason: 'x' }), ['/breakMinutes']],
    ['a replacement context is incomplete', () => ({ context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 3' }, reason: 'x' }), ['/context/latitude', '/context/longitude']],
    ['overlapOverride comes without overlapReason', () => ({ breakMinutes: 10, reason: 'x', overlapOverride: true }), ['/overlapReason']],
  ];
  it.each(cases)('returns 422 when %s, and changes nothing', async (_name, body, pointers) => {
    const before = await countByType(api.db);
    expectPointers(await correctEntry(api, entry.body.id, etag(entry), body(entry.body.startedAt.slice(0, 10))), pointers);
    expect(await countByType(api.db)).toEqual(before);
    expect((await getEntryResponse(api, entry.body.id)).headers.get('etag')).toBe(etag(entry));
  });
});

describe('PATCH /timesheets/{timeEntryId} of a MANUAL entry', () => {
  it('applies a partial body: a new revision, adjusted, worked minutes recomputed, audited', async () => {
    const entry = await freshEntry();
    const id = entry.body.id;
    const res = await correctEntry(api, id, etag(entry), { breakMinutes: 45, reason: 'Lunch was longer' });

    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(etagOf(id, 2));
    expect(res.headers.get('location')).toBeNull();
    expect(res.body).toMatchObject({
      id,
      startedAt: entry.body.startedAt,
      endedAt: entry.body.endedAt,
      breakMinutes: 45,
      workedMinutes: 8 * 60 - 45,
      origin: 'MANUAL',
      state: 'CLOSED',
      adjusted: true,
      revision: 2,
      context: entry.body.context,
      staleExportManifestIds: [],
    });
    const read = await getEntryResponse(api, id);
    expect(read.headers.get('etag')).toBe(etagOf(id, 2));
    expect(read.body).toMatchObject({ revision: 2, breakMinutes: 45, adjusted: true });

    const audit = await auditItemsOf(api.db, id);
    expect(audit.map((a) => a.action)).toEqual(['time_entry.created', 'time_entry.corrected']);
    expect(audit[1]).toMatchObject({
      actor: { type: 'API_KEY', keyId: keyIdOf(api.demo.keys.admin), label: 'Demo key: admin' },
      reason: 'Lunch was longer',
      requestId: res.requestId,
      before: { revision: 1, breakMinutes: 30, state: 'CLOSED' },
      after: { revision: 2, breakMinutes: 45, state: 'CLOSED' },
      changedAttributes: ['breakMinutes'],
      staleExportManifestIds: [],
    });
  });

  it('names every field a correction changed in the audit entry, never their values (issue 11, item 3)', async () => {
    const entry = await freshEntry();
    const id = entry.body.id;
    const date = entry.body.startedAt.slice(0, 10);
    const times = await correctEntry(api, id, etag(entry), { startedAt: `${date}T07:30:00Z`, endedAt: `${date}T16:30:00Z`, breakMinutes: 20, reason: 'Clocked wrong' });
    expect(times.status).toBe(200);
    const moved = await correctEntry(api, id, etag(times), { context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.locations[1] }, reason: 'Other site' });
    expect(moved.status).toBe(200);
    const adHoc = await correctEntry(api, id, etag(moved), { context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 3', latitude: 50.11731, longitude: 8.68213 }, reason: 'In the van' });
    // Ad hoc to ad hoc with the same label: the coordinates moved; the audit says only that the context changed.
    const adHocAgain = await correctEntry(api, id, etag(adHoc), { context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 3', latitude: 50.21913, longitude: 8.71352 }, reason: 'Other stop' });
    expect(adHocAgain.status).toBe(200);
    expect((await voidEntry(api, id, etag(adHocAgain), { reason: 'Duplicate' })).status).toBe(200);

    const trail = await auditItemsOf(api.db, id);
    expect(trail.map((a) => [a.action, a.changedAttributes])).toEqual([
      ['time_entry.created', undefined],
      ['time_entry.corrected', ['startedAt', 'endedAt', 'breakMinutes']],
      ['time_entry.corrected', ['context']],
      ['time_entry.corrected', ['context']],
      ['time_entry.corrected', ['context']],
      ['time_entry.voided', ['state']],
    ]);
    expect(JSON.stringify(trail)).not.toMatch(/Van 3|50\.11731|8\.68213|50\.21913|8\.71352/);
  });

  it('recomputes worked minutes from a corrected end given with an offset', async () => {
    const entry = await freshEntry();
    const date = entry.body.startedAt.slice(0, 10);
    const res = await correctEntry(api, entry.body.id, etag(entry), { endedAt: `${date}T19:00:00+02:00`, reason: 'Left at five' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ endedAt: `${date}T17:00:00.000Z`, workedMinutes: 9 * 60 - 30, revision: 2 });
  });

  it('replaces the context whole: ad-hoc (coordinates sealed) and back to a registered location', async () => {
    const entry = await freshEntry();
    const id = entry.body.id;
    const adHoc = await correctEntry(api, id, etag(entry), { context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 3 at the ferry', latitude: 51.2277411, longitude: 6.7734556 }, reason: 'Was in the van' });
    expect(adHoc.status).toBe(200);
    expect(adHoc.body.context).toEqual({ kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 3 at the ferry' });
    expect(adHoc.text).not.toMatch(/51\.22774|6\.77345/);
    const evidence = (await itemsOfType(api.db, 'RestrictedEvidence')).filter((i) => i.PK === `ORG#${api.demo.organizationId}#TE#${id}`);
    expect(evidence).toHaveLength(1);
    expect(JSON.stringify(evidence)).not.toMatch(/51\.22774|6\.77345/);
    const audit = await auditItemsOf(api.db, id);
    expect(audit[1].after).toMatchObject({ contextKind: 'VEHICLE_AD_HOC', locationId: null });
    expect(JSON.stringify(audit)).not.toMatch(/ferry|51\.22774|6\.77345/);

    const back = await correctEntry(api, id, etag(adHoc), { context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.locations[1] }, reason: 'It was the depot' });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ revision: 3, context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.locations[1] } });
    expect(back.body.context).not.toHaveProperty('addressLabel');
  });

  it('returns 422 for a replacement location of another organization', async () => {
    const entry = await freshEntry();
    const before = await countByType(api.db);
    const res = await correctEntry(api, entry.body.id, etag(entry), { context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.otherOrganizationLocations[0] }, reason: 'x' });
    expectPointers(res, ['/context/locationId']);
    expect(await countByType(api.db)).toEqual(before);
  });
});

describe('PATCH /timesheets/{timeEntryId} of a SCANNED entry', () => {
  it('accepts start, end and break only: 422 pointing at the immutable field, nothing written', async () => {
    const scanned = await scannedEntry(api.db, api.demo.employees[0], 'CLOSED');
    const ifMatch = etagOf(scanned.id, scanned.revision);
    const before = await countByType(api.db);
    expectPointers(await correctEntry(api, scanned.id, ifMatch, { context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.locations[1] }, reason: 'x' }), ['/context']);
    expectPointers(await correctEntry(api, scanned.id, ifMatch, { context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van', latitude: 1, longitude: 1 }, reason: 'x' }), ['/context']);
    expectPointers(await correctEntry(api, scanned.id, ifMatch, { employeeId: api.demo.employees[1], reason: 'x' }), ['/employeeId']);
    expectPointers(await correctEntry(api, scanned.id, ifMatch, { sourceEventIds: [], reason: 'x' }), ['/sourceEventIds']);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('corrects the effective start and break and keeps origin, context and the source evidence', async () => {
    const scanned = await scannedEntry(api.db, api.demo.employees[0], 'CLOSED');
    const start = new Date(Date.parse(scanned.startedAt) - 15 * 60_000).toISOString();
    const res = await correctEntry(api, scanned.id, etagOf(scanned.id, scanned.revision), { startedAt: start, breakMinutes: 30, reason: 'Scanned late at the gate' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      origin: 'SCANNED',
      state: 'CLOSED',
      adjusted: true,
      revision: scanned.revision + 1,
      startedAt: start,
      breakMinutes: 30,
      workedMinutes: Math.floor((Date.parse(scanned.endedAt) - Date.parse(start)) / 60_000) - 30,
      context: scanned.context,
      employeeId: scanned.employeeId,
      sourceEventIds: scanned.source.eventIds,
      sourceStartedAt: scanned.source.startedAt,
      sourceEndedAt: scanned.source.endedAt,
      sourceBreakMinutes: 0,
    });
  });

  it('closes an OPEN entry corrected with an end', async () => {
    const open = await scannedEntry(api.db, api.demo.employees[1], 'OPEN');
    const read = await getEntryResponse(api, open.id);
    expect(read.body).toMatchObject({ state: 'OPEN', endedAt: null, workedMinutes: null });
    const end = new Date(Date.parse(open.startedAt) + 60 * 60_000).toISOString();
    const res = await correctEntry(api, open.id, read.headers.get('etag')!, { endedAt: end, reason: 'Forgot to check out' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'CLOSED', endedAt: end, workedMinutes: 60, adjusted: true, revision: open.revision + 1, sourceEndedAt: null });
    const listed = await call('GET', withQuery(timesheetsUrl(api), { state: 'OPEN', employeeId: api.demo.employees[1] }), { token: api.demo.keys.admin });
    expect(listed.body.items).toEqual([]);
  });
  it('never lets evidence close an entry whose corrected break does not fit (worked minutes stay >= 0)', async () => {
    const employeeId = await addEmployee(api);
    const opened = await scan(api, employeeId, 'CHECK_IN', '2025-06-09T08:00:00Z');
    const read = await getEntryResponse(api, opened.timeEntryId!);
    const withBreak = await correctEntry(api, opened.timeEntryId!, read.headers.get('etag')!, { breakMinutes: 120, reason: 'Long lunch announced' });
    expect(withBreak.status).toBe(200);

    const checkOut = await scan(api, employeeId, 'CHECK_OUT', '2025-06-09T09:00:00Z');
    const entry = await getEntryResponse(api, opened.timeEntryId!);
    // A CLOSED entry keeps its break strictly shorter than its elapsed time (Limits).
    if (entry.body.state === 'CLOSED') expect(entry.body.workedMinutes).toBeGreaterThanOrEqual(0);
    else expect(entry.body).toMatchObject({ state: 'OPEN', breakMinutes: 120 });
    // The evidence is kept either way.
    expect((await call('GET', `${api.orgUrl()}/work-events/${checkOut.workEventId}`, { token: api.demo.keys.admin })).status).toBe(200);
  });
});

describe('concurrent corrections with the same ETag', () => {
  it('lets exactly one win; the others get 412 and nothing of theirs is stored', async () => {
    const entry = await freshEntry();
    const id = entry.body.id;
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => correctEntry(api, id, etag(entry), { breakMinutes: n, reason: `attempt ${n}` })));

    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412]);
    for (const lost of results.filter((r) => r.status === 412)) expectProblem(lost, 412, 'ETAG_MISMATCH');
    const winner = results.find((r) => r.status === 200)!;
    const [stored] = (await itemsOfType(api.db, 'TimeEntry')).filter((i) => i.id === id);
    expect(stored).toMatchObject({ revision: 2, breakMinutes: winner.body.breakMinutes });
    const corrections = (await auditItemsOf(api.db, id)).filter((a) => a.action === 'time_entry.corrected');
    expect(corrections).toHaveLength(1);
    expect(corrections[0].requestId).toBe(winner.requestId);
  });
});

describe('POST /timesheets/{timeEntryId}/void', () => {
  it('returns 428 without If-Match, 412 with a stale one, 422 without a reason; nothing written', async () => {
    const entry = await freshEntry();
    const id = entry.body.id;
    const before = await countByType(api.db);
    expectProblem(await voidEntry(api, id, undefined, { reason: 'duplicate' }), 428, 'ETAG_REQUIRED');
    expectProblem(await voidEntry(api, id, etagOf(id, 7), { reason: 'duplicate' }), 412, 'ETAG_MISMATCH');
    expectPointers(await voidEntry(api, id, etag(entry), {}), ['/reason']);
    expectPointers(await voidEntry(api, id, etag(entry), { reason: '' }), ['/reason']);
    expectPointers(await voidEntry(api, id, etag(entry), { reason: 'dup', state: 'VOIDED' }), ['/state']);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('voids a CLOSED entry as a new revision, audited with the reason', async () => {
    const entry = await freshEntry();
    const id = entry.body.id;
    const res = await voidEntry(api, id, etag(entry), { reason: 'Entered twice' });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(etagOf(id, 2));
    expect(res.body).toMatchObject({ id, state: 'VOIDED', revision: 2, origin: 'MANUAL', startedAt: entry.body.startedAt, endedAt: entry.body.endedAt, staleExportManifestIds: [] });
    const audit = await auditItemsOf(api.db, id);
    expect(audit.map((a) => a.action)).toEqual(['time_entry.created', 'time_entry.voided']);
    expect(audit[1]).toMatchObject({ reason: 'Entered twice', requestId: res.requestId, before: { state: 'CLOSED', revision: 1 }, after: { state: 'VOIDED', revision: 2 } });
  });

  it('keeps a VOIDED entry final: 409 TIME_ENTRY_VOIDED on a later correction or void, nothing written', async () => {
    const entry = await freshEntry();
    const id = entry.body.id;
    const voided = await voidEntry(api, id, etag(entry), { reason: 'Entered twice' });
    const before = await countByType(api.db);
    expectProblem(await correctEntry(api, id, etag(voided), { breakMinutes: 10, reason: 'x' }), 409, 'TIME_ENTRY_VOIDED');
    expectProblem(await voidEntry(api, id, etag(voided), { reason: 'again' }), 409, 'TIME_ENTRY_VOIDED');
    expect(await countByType(api.db)).toEqual(before);
    const read = await getEntryResponse(api, id);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(etagOf(id, 2));
    expect(read.body).toMatchObject({ state: 'VOIDED', revision: 2 });
  });

  it('refuses a break-only correction while a projected scan overlaps the entry (no unresolved overlap after a PATCH)', async () => {
    const employeeId = await addEmployee(api);
    const manual = await createdEntry(api, { employeeId, context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.locations[0] }, startedAt: '2025-07-01T08:00:00Z', endedAt: '2025-07-01T16:00:00Z', breakMinutes: 0, reason: 'Missed day' });
    // Projections are never refused for overlaps: the scanned entry overlaps the manual one.
    await scan(api, employeeId, 'CHECK_IN', '2025-07-01T09:00:00Z');
    const out = await scan(api, employeeId, 'CHECK_OUT', '2025-07-01T10:00:00Z');
    const res = await correctEntry(api, manual.body.id, etag(manual), { breakMinutes: 15, reason: 'Lunch' });
    expectProblem(res, 409, 'TIME_ENTRY_OVERLAP');
    expect(res.body.overlappingEntryIds).toEqual([out.timeEntryId]);
    const overridden = await correctEntry(api, manual.body.id, etag(manual), { breakMinutes: 15, reason: 'Lunch', overlapOverride: true, overlapReason: 'Scanned at the same site' });
    expect(overridden.status).toBe(200);
  });

  it('voids an OPEN scanned entry', async () => {
    const employeeId = await addEmployee(api);
    const opened = await scan(api, employeeId, 'CHECK_IN', '2025-06-02T06:00:00Z');
    const read = await getEntryResponse(api, opened.timeEntryId!);
    expect(read.body.state).toBe('OPEN');
    // An entry starting after the OPEN one overlaps it (OPEN reaches to +infinity).
    const later = { employeeId, context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.locations[0] }, startedAt: '2025-06-03T08:00:00Z', endedAt: '2025-06-03T16:00:00Z', breakMinutes: 0, reason: 'Missed day' };
    expectProblem(await createEntry(api, later), 409, 'TIME_ENTRY_OVERLAP');
    const res = await voidEntry(api, opened.timeEntryId!, read.headers.get('etag')!, { reason: 'Scanned the wrong badge' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'VOIDED', revision: 2, endedAt: null });
    // The void removed the entry from the employee's guard (an update without a read): it no longer overlaps.
    const [guard] = (await itemsOfType(api.db, 'OverlapGuard')).filter((g) => g.PK.endsWith(`#EMP#${employeeId}`));
    expect(guard.openEntries).toEqual({});
    expect((await createEntry(api, later)).status).toBe(201);
  });

  it('keeps the entry, its work events and its audit trail readable after a void', async () => {
    const scanned = await scannedEntry(api.db, api.demo.employees[0], 'CLOSED');
    const res = await voidEntry(api, scanned.id, etagOf(scanned.id, scanned.revision), { reason: 'Badge was lent to a colleague' });
    expect(res.status).toBe(200);

    const entry = await getEntryResponse(api, scanned.id);
    expect(entry.body).toMatchObject({ state: 'VOIDED', sourceEventIds: scanned.source.eventIds });
    for (const eventId of scanned.source.eventIds as string[]) {
      const event = await call('GET', `${api.orgUrl()}/work-events/${eventId}`, { token: api.demo.keys.admin });
      expect(event.status).toBe(200);
      expect(event.body).toMatchObject({ id: eventId, timeEntryId: scanned.id, verificationState: 'VERIFIED' });
    }
    const trail = await call('GET', withQuery(`${api.orgUrl()}/audit`, { entityType: 'time_entry', entityId: scanned.id }), { token: api.demo.keys.admin });
    expect(trail.status).toBe(200);
    expect(trail.body.items.map((a: { action: string }) => a.action)).toEqual(
      expect.arrayContaining(['time_entry.scan_opened', 'time_entry.scan_closed', 'time_entry.voided']),
    );
    expect(trail.body.items[0]).toMatchObject({ action: 'time_entry.voided', reason: 'Badge was lent to a colleague' });
    const listed = await call('GET', withQuery(timesheetsUrl(api), { state: 'VOIDED', employeeId: api.demo.employees[0] }), { token: api.demo.keys.admin });
    expect(listed.body.items.map((e: { id: string }) => e.id)).toContain(scanned.id);
    expect((await storedEntriesOf(api.db, api.demo.employees[0])).find((e) => e.id === scanned.id)).toBeDefined();
  });
});
