import { randomUUID } from 'node:crypto';
import { setTimesheetCorrections } from '../../services/organization/public';
import { timeEntryWriteResponseSchema } from '../../services/timesheets/schemas';
import { logger } from '../../services/shared/logger';
import { call, countByType, expectPointers, expectProblem, itemsOfType, keyIdOf, scanTable, startApi, type ApiFixture } from '../support/api';
import {
  auditItemsOf,
  correctEntry,
  createEntry,
  createdEntry,
  dayInterval,
  entryUrl,
  etagOf,
  getEntryResponse,
  manualBody,
  storedEntriesOf,
  timesheetsUrl,
  voidEntry,
} from './timesheets-fixture';

let api: ApiFixture;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let nextDay = 0;
const freshDay = () => dayInterval((nextDay += 1));

describe('POST /timesheets body rules (422 VALIDATION_ERROR, pointer at the field, nothing written)', () => {
  const omit = (b: Record<string, unknown>, field: string) => Object.fromEntries(Object.entries(b).filter(([k]) => k !== field));
  type Case = [string, (b: Record<string, unknown>, a: ApiFixture) => unknown, string[]];
  const cases: Case[] = [
    ['employeeId is missing', (b) => omit(b, 'employeeId'), ['/employeeId']],
    ['employeeId is not a UUID', (b) => ({ ...b, employeeId: 'employee-1' }), ['/employeeId']],
    ['context is missing', (b) => omit(b, 'context'), ['/context']],
    ['context.kind is unknown', (b) => ({ ...b, context: { kind: 'HOME_OFFICE' } }), ['/context/kind']],
    ['a registered context has no locationId', (b) => ({ ...b, context: { kind: 'REGISTERED_LOCATION' } }), ['/context/locationId']],
    ['a registered context has a locationId that is not a UUID', (b) => ({ ...b, context: { kind: 'REGISTERED_LOCATION', locationId: 'depot' } }), ['/context/locationId']],
    ['a registered context carries coordinates', (b, a) => ({ ...b, context: { kind: 'REGISTERED_LOCATION', locationId: a.demo.locations[0], latitude: 1 } }), ['/context/latitude']],
    ['an ad-hoc context has no address label', (b) => ({ ...b, context: { kind: 'VEHICLE_AD_HOC', latitude: 1, longitude: 2 } }), ['/context/addressLabel']],
    ['an ad-hoc context has a blank address label', (b) => ({ ...b, context: { kind: 'VEHICLE_AD_HOC', addressLabel: '  ', latitude: 1, longitude: 2 } }), ['/context/addressLabel']],
    ['an ad-hoc context has no coordinates', (b) => ({ ...b, context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 7, A1 rest area' } }), ['/context/latitude', '/context/longitude']],
    ['latitude is above 90', (b) => ({ ...b, context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 7', latitude: 90.5, longitude: 2 } }), ['/context/latitude']],
    ['longitude is below -180', (b) => ({ ...b, context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 7', latitude: 1, longitude: -180.5 } }), ['/context/longitude']],
    ['latitude is a string', (b) => ({ ...b, context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 7', latitude: '47.1', longitude: 2 } }), ['/context/latitude']],
    ['startedAt is missing', (b) => omit(b, 'startedAt'), ['/startedAt']],
    ['startedAt has no offset', (b) => ({ ...b, startedAt: '2025-03-01T08:00:00' }), ['/startedAt']],
    ['startedAt is not a calendar date', (b) => ({ ...b, startedAt: '2025-02-30T08:00:00Z' }), ['/startedAt']],
    ['startedAt is before 1970', (b) => ({ ...b, startedAt: '1969-12-31T08:00:00Z' }), ['/startedAt']],
    ['endedAt is missing (a manual entry is complete)', (b) => omit(b, 'endedAt'), ['/endedAt']],
    ['endedAt is null', (b) => ({ ...b, endedAt: null }), ['/endedAt']],
    ['endedAt equals startedAt', (b) => ({ ...b, endedAt: b.startedAt }), ['/endedAt']],
    ['endedAt is before startedAt', (b) => ({ ...b, startedAt: '2025-03-01T16:00:00Z', endedAt: '2025-03-01T08:00:00Z' }), ['/endedAt']],
    ['breakMinutes is missing', (b) => omit(b, 'breakMinutes'), ['/breakMinutes']],
    ['breakMinutes is negative', (b) => ({ ...b, breakMinutes: -1 }), ['/breakMinutes']],
    ['breakMinutes is not a whole number', (b) => ({ ...b, breakMinutes: 12.5 }), ['/breakMinutes']],
    ['breakMinutes equals the elapsed time', (b) => ({ ...b, startedAt: '2025-03-01T08:00:00Z', endedAt: '2025-03-01T09:00:00Z', breakMinutes: 60 }), ['/breakMinutes']],
    ['breakMinutes exceeds the elapsed time', (b) => ({ ...b, startedAt: '2025-03-01T08:00:00Z', endedAt: '2025-03-01T09:00:00Z', breakMinutes: 61 }), ['/breakMinutes']],
    ['reason is missing', (b) => omit(b, 'reason'), ['/reason']],
    ['reason is blank', (b) => ({ ...b, reason: '   ' }), ['/reason']],
    ['overlapOverride is true without overlapReason', (b) => ({ ...b, overlapOverride: true }), ['/overlapReason']],
    ['overlapOverride is true with a blank overlapReason', (b) => ({ ...b, overlapOverride: true, overlapReason: ' ' }), ['/overlapReason']],
    ['overlapOverride is not a boolean', (b) => ({ ...b, overlapOverride: 'yes', overlapReason: 'double shift' }), ['/overlapOverride']],
    ['an unknown field is sent', (b) => ({ ...b, note: 'typo of reason?' }), ['/note']],
    ['a response-only field is sent', (b) => ({ ...b, state: 'OPEN' }), ['/state']],
    ['the body is an array', () => [], ['']],
  ];

  it.each(cases)('returns 422 when %s', async (_name, mutate, pointers) => {
    const before = await countByType(api.db);
    const res = await createEntry(api, mutate(manualBody(api, dayInterval(300)) as Record<string, unknown>, api));
    expectPointers(res, pointers);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('returns 400 MALFORMED_JSON for a body that is not JSON and 415 for another media type', async () => {
    const before = await countByType(api.db);
    const token = api.demo.keys.admin;
    const headers = { 'Content-Type': 'application/json' };
    expectProblem(await call('POST', timesheetsUrl(api), { token, idempotencyKey: randomUUID(), rawBody: '{"employeeId":', headers }), 400, 'MALFORMED_JSON');
    const form = await call('POST', timesheetsUrl(api), { token, idempotencyKey: randomUUID(), rawBody: 'employeeId=1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expectProblem(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await countByType(api.db)).toEqual(before);
  });
});

describe('POST /timesheets with a registered location', () => {
  it('creates one CLOSED MANUAL entry with ETag, Location and staleExportManifestIds', async () => {
    const body = manualBody(api, { startedAt: '2025-02-03T09:00:00+01:00', endedAt: '2025-02-03T17:15:00+01:00' }, { breakMinutes: 45 });
    const res = await createEntry(api, body);

    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.requestId).toMatch(UUID);
    const id = res.body.id;
    expect(id).toMatch(UUID);
    expect(res.headers.get('etag')).toBe(etagOf(id, 1));
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/timesheets/${id}`);
    expect(res.body).toMatchObject({
      id,
      employeeId: api.demo.employees[2],
      context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.locations[0] },
      // Responses carry UTC instants.
      startedAt: '2025-02-03T08:00:00.000Z',
      endedAt: '2025-02-03T16:15:00.000Z',
      breakMinutes: 45,
      workedMinutes: 8 * 60 + 15 - 45,
      origin: 'MANUAL',
      state: 'CLOSED',
      adjusted: false,
      revision: 1,
    });
    expect(res.body.staleExportManifestIds).toEqual([]);
    expect(timeEntryWriteResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
  });

  it('serves the created entry at its Location with the same ETag', async () => {
    const created = await createdEntry(api, manualBody(api, freshDay()));
    const read = await call('GET', created.headers.get('location')!, { token: api.demo.keys.admin });
    expect(read.status).toBe(200);
    expect(read.requestId).toMatch(UUID);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    const { staleExportManifestIds: _stale, ...entry } = created.body;
    expect(read.body).toEqual(entry);
  });

  it('commits the entry, one audit entry by the key under the response X-Request-Id, and a completed idempotency record', async () => {
    const before = await countByType(api.db);
    const key = `create-${randomUUID()}`;
    const res = await createEntry(api, manualBody(api, freshDay()), { idempotencyKey: key });
    expect(res.status).toBe(201);

    const after = await countByType(api.db);
    expect(after.TimeEntry).toBe((before.TimeEntry ?? 0) + 1);
    expect(after.AuditEntry).toBe((before.AuditEntry ?? 0) + 1);
    expect(after.IdempotencyRecord).toBe((before.IdempotencyRecord ?? 0) + 1);

    const [stored] = (await itemsOfType(api.db, 'TimeEntry')).filter((i) => i.id === res.body.id);
    expect(stored).toMatchObject({ organizationId: api.demo.organizationId, origin: 'MANUAL', state: 'CLOSED', revision: 1 });
    const audit = await auditItemsOf(api.db, res.body.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'time_entry.created',
      organizationId: api.demo.organizationId,
      actor: { type: 'API_KEY', keyId: keyIdOf(api.demo.keys.admin), label: 'Demo key: admin' },
      entity: { type: 'time_entry', id: res.body.id },
      reason: 'Forgot to scan at the depot',
      requestId: res.requestId,
    });
    expect(audit[0].before).toBeUndefined();
    expect(audit[0].after).toMatchObject({ state: 'CLOSED', revision: 1, breakMinutes: 30, contextKind: 'REGISTERED_LOCATION', locationId: api.demo.locations[0] });
    const completed = (await itemsOfType(api.db, 'IdempotencyRecord')).filter((r) => r.status === 'COMPLETED' && JSON.parse(r.response?.bodyText ?? '{}').id === res.body.id);
    expect(completed).toHaveLength(1);
  });

  it('accepts instants from 1970 to 9999 (no window rule)', async () => {
    const early = await createEntry(api, manualBody(api, { startedAt: '1970-01-01T00:00:00Z', endedAt: '1970-01-01T01:00:00Z' }));
    const late = await createEntry(api, manualBody(api, { startedAt: '9999-12-31T20:00:00Z', endedAt: '9999-12-31T23:00:00Z' }));
    expect([early.status, late.status]).toEqual([201, 201]);
  });

  it('omits the source fields for a key without work_events:read and shows them with it', async () => {
    const without = await createdEntry(api, manualBody(api, freshDay()), { token: api.demo.keys.timesheetsNoWorkEvents });
    for (const field of ['sourceEventIds', 'sourceStartedAt', 'sourceEndedAt', 'sourceBreakMinutes']) expect(without.body).not.toHaveProperty(field);
    const withScope = await createdEntry(api, manualBody(api, freshDay()));
    expect(withScope.body).toMatchObject({ sourceEventIds: [] });
  });
});

describe('POST /timesheets with an ad-hoc vehicle context', () => {
  // Distinctive values: any occurrence in clear text is a leak.
  const LATITUDE = 47.3769421;
  const LONGITUDE = 8.5417368;
  const LABEL = 'Van 12, Hardbrücke service yard';
  const adHoc = { kind: 'VEHICLE_AD_HOC', addressLabel: LABEL, latitude: LATITUDE, longitude: LONGITUDE };
  const leaks = (text: string) => [String(LATITUDE), String(LONGITUDE), '47.37694', '8.54173'].filter((v) => text.includes(v));

  let created: Awaited<ReturnType<typeof createEntry>>;
  let logged: unknown[][];

  beforeAll(async () => {
    logged = [];
    for (const level of ['debug', 'info', 'warn', 'error', 'critical', 'appendKeys'] as const) {
      jest.spyOn(logger, level).mockImplementation(((...args: unknown[]) => {
        logged.push(args);
      }) as never);
    }
    created = await createEntry(api, manualBody(api, freshDay(), { context: adHoc }));
    // A rejected ad-hoc write goes through the logs as well.
    await createEntry(api, manualBody(api, freshDay(), { context: { ...adHoc, latitude: 91 } }));
  });
  afterAll(() => jest.restoreAllMocks());

  it('returns the address label and never the coordinates', async () => {
    expect(created.status).toBe(201);
    expect(created.body.context).toEqual({ kind: 'VEHICLE_AD_HOC', addressLabel: LABEL });
    expect(timeEntryWriteResponseSchema.strict().safeParse(created.body).error).toBeUndefined();
    expect(leaks(created.text)).toEqual([]);
    const read = await getEntryResponse(api, created.body.id);
    expect(read.body.context).toEqual({ kind: 'VEHICLE_AD_HOC', addressLabel: LABEL });
    expect(leaks(read.text)).toEqual([]);
  });

  it('stores the coordinates only as sealed restricted evidence of the entry', async () => {
    const items = await scanTable(api.db);
    expect(items.filter((i) => leaks(JSON.stringify(i)).length > 0)).toEqual([]);
    const evidence = items.filter((i) => i.itemType === 'RestrictedEvidence' && i.PK === `ORG#${api.demo.organizationId}#TE#${created.body.id}`);
    expect(evidence).toHaveLength(1);
    expect(evidence[0].sealed).toMatchObject({ alg: 'AES-256-GCM', ciphertext: expect.any(String) });
  });

  it('keeps the address label and the coordinates out of the audit', async () => {
    const audit = await auditItemsOf(api.db, created.body.id);
    expect(audit).toHaveLength(1);
    const text = JSON.stringify(audit);
    expect(text).not.toContain('Hardbrücke');
    expect(leaks(text)).toEqual([]);
    expect(audit[0].after).toMatchObject({ contextKind: 'VEHICLE_AD_HOC', locationId: null });
    const listed = await call('GET', `${api.orgUrl()}/audit`, { token: api.demo.keys.admin });
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain('Hardbrücke');
    expect(leaks(listed.text)).toEqual([]);
  });

  it('keeps the coordinates and the address label out of the logs', () => {
    const text = JSON.stringify(logged, (_k, v: unknown) => (v instanceof Error ? { message: v.message, stack: v.stack } : v));
    expect(logged.length).toBeGreaterThan(0);
    expect(leaks(text)).toEqual([]);
    expect(text).not.toContain('Hardbrücke');
  });
});

describe('POST /timesheets: employee and location must belong to the URL organization', () => {
  const cases: [string, (a: ApiFixture) => Record<string, unknown>, string][] = [
    ['an employee of another organization', (a) => ({ employeeId: a.demo.otherOrganizationEmployees[0] }), '/employeeId'],
    ['an employee that does not exist', () => ({ employeeId: randomUUID() }), '/employeeId'],
    ['a location of another organization', (a) => ({ context: { kind: 'REGISTERED_LOCATION', locationId: a.demo.otherOrganizationLocations[0] } }), '/context/locationId'],
    ['a location that does not exist', () => ({ context: { kind: 'REGISTERED_LOCATION', locationId: randomUUID() } }), '/context/locationId'],
  ];
  it.each(cases)('returns 422 for %s and writes nothing', async (_name, over, pointer) => {
    const before = await countByType(api.db);
    expectPointers(await createEntry(api, manualBody(api, freshDay(), over(api))), [pointer]);
    expect(await countByType(api.db)).toEqual(before);
  });
});

describe('access to timesheet writes', () => {
  it('returns 403 SCOPE_REQUIRED to a key without timesheets:write', async () => {
    const before = await countByType(api.db);
    const token = api.demo.keys.readOnly;
    const body = await createEntry(api, manualBody(api, freshDay()), { token });
    expect(expectProblem(body, 403, 'SCOPE_REQUIRED').detail).toContain('timesheets:write');
    const existing = await createdEntry(api, manualBody(api, freshDay()));
    const etag = existing.headers.get('etag')!;
    expectProblem(await correctEntry(api, existing.body.id, etag, { breakMinutes: 10, reason: 'x' }, { token }), 403, 'SCOPE_REQUIRED');
    expectProblem(await voidEntry(api, existing.body.id, etag, { reason: 'x' }, { token }), 403, 'SCOPE_REQUIRED');
    const after = await countByType(api.db);
    expect(after.AuditEntry).toBe(before.AuditEntry + 1);
    expect((await getEntryResponse(api, existing.body.id)).body.revision).toBe(1);
  });

  it('returns 403 ACCESS_DENIED to a key of another organization on this organization URL', async () => {
    const before = await countByType(api.db);
    const body = manualBody(api, freshDay(), { employeeId: api.demo.otherOrganizationEmployees[0], context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.otherOrganizationLocations[0] } });
    expectProblem(await createEntry(api, body, { token: api.demo.keys.otherOrganization }), 403, 'ACCESS_DENIED');
    expect(await countByType(api.db)).toEqual(before);
  });

  it('lets the same key write in its own organization', async () => {
    const body = manualBody(api, freshDay(), { employeeId: api.demo.otherOrganizationEmployees[0], context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.otherOrganizationLocations[0] } });
    const res = await call('POST', timesheetsUrl(api, api.demo.otherOrganizationId), { token: api.demo.keys.otherOrganization, idempotencyKey: randomUUID(), body });
    expect(res.status).toBe(201);
  });

  it('answers 401 with WWW-Authenticate when no key is sent', async () => {
    const res = await call('POST', timesheetsUrl(api), { idempotencyKey: randomUUID(), body: manualBody(api, freshDay()) });
    expectProblem(res, 401, 'UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('capability gate (timesheet_corrections)', () => {
  const gatedBody = (a: ApiFixture) =>
    manualBody(a, freshDay(), { employeeId: a.demo.gatedEmployees[0], context: { kind: 'REGISTERED_LOCATION', locationId: a.demo.gatedLocations[0] } });
  const gatedUrl = () => timesheetsUrl(api, api.demo.gatedOrganizationId);

  it('returns 409 FEATURE_NOT_ENABLED to a create while the rollout gate is off, and writes nothing', async () => {
    const before = await countByType(api.db);
    const res = await call('POST', gatedUrl(), { token: api.demo.keys.gated, idempotencyKey: randomUUID(), body: gatedBody(api) });
    expectProblem(res, 409, 'FEATURE_NOT_ENABLED');
    expect(await countByType(api.db)).toEqual(before);
  });

  it('returns 409 FEATURE_NOT_ENABLED to a correction and a void, and leaves the entry as it was', async () => {
    const [entry] = await storedEntriesOf(api.db, api.demo.gatedEmployees[0]);
    const url = `${gatedUrl()}/${entry.id}`;
    const token = api.demo.keys.gated;
    const etag = etagOf(entry.id, entry.revision);
    const before = await countByType(api.db);
    expectProblem(await call('PATCH', url, { token, idempotencyKey: randomUUID(), ifMatch: etag, body: { breakMinutes: 15, reason: 'lunch' } }), 409, 'FEATURE_NOT_ENABLED');
    expectProblem(await call('POST', `${url}/void`, { token, idempotencyKey: randomUUID(), ifMatch: etag, body: { reason: 'wrong site' } }), 409, 'FEATURE_NOT_ENABLED');
    expect(await countByType(api.db)).toEqual(before);
    const [unchanged] = await storedEntriesOf(api.db, api.demo.gatedEmployees[0]);
    expect(unchanged).toEqual(entry);
  });

  it('keeps reads available to the gated key', async () => {
    const list = await call('GET', gatedUrl(), { token: api.demo.keys.gated });
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    const one = await call('GET', `${gatedUrl()}/${list.body.items[0].id}`, { token: api.demo.keys.gated });
    expect(one.status).toBe(200);
    expect(one.headers.get('etag')).toBe(etagOf(list.body.items[0].id, list.body.items[0].revision));
  });

  it('returns 409 FEATURE_NOT_ENABLED while the entitlement is off, and writes again once it is on', async () => {
    const org = api.demo.organizationId;
    const now = new Date().toISOString();
    await setTimesheetCorrections(api.db, org, { entitlement: false }, now);
    try {
      const before = await countByType(api.db);
      expectProblem(await createEntry(api, manualBody(api, freshDay())), 409, 'FEATURE_NOT_ENABLED');
      expect(await countByType(api.db)).toEqual(before);
      expect((await call('GET', timesheetsUrl(api), { token: api.demo.keys.admin })).status).toBe(200);
    } finally {
      await setTimesheetCorrections(api.db, org, { entitlement: true }, now);
    }
    expect((await createEntry(api, manualBody(api, freshDay()))).status).toBe(201);
  });
});

describe('GET /timesheets/{timeEntryId}', () => {
  it('returns 404 for an unknown id and for an id that is not a UUID', async () => {
    expectProblem(await getEntryResponse(api, randomUUID()), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await getEntryResponse(api, 'not-a-uuid'), 404, 'RESOURCE_NOT_FOUND');
  });

  it('returns 404 for an entry of another organization, read with this organization key', async () => {
    const [foreign] = await storedEntriesOf(api.db, api.demo.otherOrganizationEmployees[0]);
    expect(foreign.organizationId).toBe(api.demo.otherOrganizationId);
    expectProblem(await getEntryResponse(api, foreign.id), 404, 'RESOURCE_NOT_FOUND');
    const patch = await correctEntry(api, foreign.id, etagOf(foreign.id, foreign.revision), { breakMinutes: 5, reason: 'x' });
    expectProblem(patch, 404, 'RESOURCE_NOT_FOUND');
  });

  it('returns 403 ACCESS_DENIED to the other organization key on this organization URL', async () => {
    const [own] = await storedEntriesOf(api.db, api.demo.employees[0]);
    expectProblem(await call('GET', entryUrl(api, own.id), { token: api.demo.keys.otherOrganization }), 403, 'ACCESS_DENIED');
  });
});
