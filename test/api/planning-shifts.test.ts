import { randomUUID } from 'node:crypto';
import { putEmployee } from '../../services/employees/public';
import { PLANNING_IDS } from '../../services/planning/seed';
import { shiftResponseSchema } from '../../services/planning/schemas';
import { getShift } from '../../services/planning/store';
import { call, countByType, expectParameters, expectPointers, expectProblem, startApi, walkPages, withQuery, type ApiFixture } from '../support/api';
import { auditOf, createLocation, ids, keyWith, read, send, sent } from './locations-fixture';

/**
 * Shifts through the local gateway: DRAFT -> PUBLISHED -> CANCELLED with 409 SHIFT_<STATE>,
 * the no-overlap rule of published shifts (409 SHIFT_OVERLAP naming the shifts, override with
 * a reason audited), bulk publish of a range, interval-overlap listing, planned vs actual
 * from the employee's time entries, and another organization's ids never reaching data.
 */
let api: ApiFixture;
let loc: string;

beforeAll(async () => {
  api = await startApi();
  loc = api.demo.locations[0];
});
afterAll(() => api?.close());

/** An employee of its own, so that no test sees another's shifts. */
async function employee(organizationId = api.demo.organizationId): Promise<string> {
  const id = randomUUID();
  const at = new Date().toISOString();
  await putEmployee(api.db, { id, organizationId, userName: `${id}@plan.example`, emails: [], active: true, createdAt: at, updatedAt: at, version: 1 });
  return id;
}

/** Deactivates an employee made by `employee()` (version 1) through the API; GET then shows active: false. */
async function deactivate(id: string): Promise<void> {
  await sent(api, 'POST', `/employees/${id}/deactivate`, { reason: 'Left the company' }, 200, { ifMatch: `"employee:${id}:v1"` });
  expect((await read(api, `/employees/${id}`)).body.active).toBe(false);
}

/** A location of its own, archived through the API. */
async function archivedLocation(): Promise<string> {
  const location = await createLocation(api, { name: `Closed site ${randomUUID().slice(0, 8)}` });
  await sent(api, 'DELETE', `/locations/${location.id}`);
  return location.id;
}

/** The shift as stored (not through the API). */
const stored = (id: string) => getShift(api.db, api.demo.organizationId, id);

/** `[startsAt, endsAt)` on day `day` after 2031-03-01. */
const at = (day: number, from = '08:00', to = '16:00') => {
  const date = new Date(Date.UTC(2031, 2, 1) + day * 86_400_000).toISOString().slice(0, 10);
  return { startsAt: `${date}T${from}:00.000Z`, endsAt: `${date}T${to}:00.000Z` };
};

/** A write as the other organization's admin key sends it to its own organization. */
const theirs = (method: string, path: string, body: unknown) =>
  call(method, `${api.orgUrl(api.demo.otherOrganizationId)}${path}`, { token: api.demo.keys.otherOrganization, idempotencyKey: randomUUID(), body });

const createShift = async (body: Record<string, unknown>) => (await sent(api, 'POST', '/planning/shifts', { locationId: loc, ...body })).body;
const etag = (s: { id: string; version: number }) => `"shift:${s.id}:v${s.version}"`;
const publish = (s: { id: string; version: number }, body?: unknown) => send(api, 'POST', `/planning/shifts/${s.id}/publish`, body, { ifMatch: etag(s) });

describe('POST /planning/shifts', () => {
  it('creates a DRAFT with 201, Location, ETag, planned minutes and the audit entry', async () => {
    const emp = await employee();
    const res = await sent(api, 'POST', '/planning/shifts', { employeeId: emp, locationId: loc, startsAt: '2031-03-01T08:00:00+01:00', endsAt: '2031-03-01T16:30:00+01:00', breakMinutes: 30, notes: 'Bring keys' });
    expect(shiftResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.body).toMatchObject({ employeeId: emp, locationId: loc, startsAt: '2031-03-01T07:00:00.000Z', endsAt: '2031-03-01T15:30:00.000Z', state: 'DRAFT', plannedMinutes: 480, actualMinutes: 0, varianceMinutes: -480, actualIncomplete: false, taskIds: [], version: 1 });
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/planning/shifts/${res.body.id}`);
    expect(res.headers.get('etag')).toBe(`"shift:${res.body.id}:v1"`);
    const [audit] = await auditOf(api, res.body.id);
    expect(audit).toMatchObject({ action: 'shift.created', entity: { type: 'shift', id: res.body.id }, references: { employeeId: emp, locationId: loc }, requestId: res.requestId, after: { state: 'DRAFT', breakMinutes: 30 } });
    expect(JSON.stringify(audit)).not.toContain('Bring keys');
  });

  it('accepts an open shift without employee: no actual minutes', async () => {
    const res = await createShift({ ...at(1) });
    expect(res).toMatchObject({ employeeId: null, actualMinutes: null, varianceMinutes: null });
  });

  it("answers 422 at the field for another organization's employee, location or task, and writes nothing", async () => {
    const foreignTask = (await theirs('POST', `/locations/${api.demo.otherOrganizationLocations[0]}/tasks`, { title: 'Globex task' })).body;
    const before = await countByType(api.db);
    const res = await send(api, 'POST', '/planning/shifts', { employeeId: api.demo.otherOrganizationEmployees[0], locationId: api.demo.otherOrganizationLocations[0], ...at(2) });
    expectPointers(res, ['/employeeId', '/locationId']);
    const withTask = await send(api, 'POST', '/planning/shifts', { locationId: loc, ...at(2), taskIds: [foreignTask.id] });
    expectPointers(withTask, ['/taskIds/0']);
    expect(await countByType(api.db)).toEqual(before);
    expect(JSON.stringify(res.body)).not.toMatch(/Globex|Dmitri/);
  });

  it('answers 422 at /employeeId for a deactivated employee and at /locationId for an archived location, on create and PATCH, and writes nothing', async () => {
    const gone = await employee();
    await deactivate(gone);
    const closed = await archivedLocation();
    const draft = await createShift({ employeeId: await employee(), ...at(2) });
    const before = await countByType(api.db);
    const refused = await send(api, 'POST', '/planning/shifts', { employeeId: gone, locationId: loc, ...at(2) });
    expectPointers(refused, ['/employeeId']);
    expect(refused.body.errors[0].detail).toMatch(/deactivated/);
    expectPointers(await send(api, 'POST', '/planning/shifts', { employeeId: gone, locationId: closed, ...at(2) }), ['/employeeId', '/locationId']);
    expectPointers(await send(api, 'PATCH', `/planning/shifts/${draft.id}`, { employeeId: gone }, { ifMatch: etag(draft) }), ['/employeeId']);
    expectPointers(await send(api, 'PATCH', `/planning/shifts/${draft.id}`, { locationId: closed }, { ifMatch: etag(draft) }), ['/locationId']);
    expect(await countByType(api.db)).toEqual(before);
    expect((await read(api, `/planning/shifts/${draft.id}`)).body).toMatchObject({ employeeId: draft.employeeId, version: 1 });
  });

  it('checks the interval: end after start, at most 24 hours, break shorter than the shift', async () => {
    expectPointers(await send(api, 'POST', '/planning/shifts', { locationId: loc, startsAt: at(3).endsAt, endsAt: at(3).startsAt }), ['/endsAt']);
    expectPointers(await send(api, 'POST', '/planning/shifts', { locationId: loc, startsAt: at(3).startsAt, endsAt: at(4, '09:00').startsAt }), ['/endsAt']);
    expectPointers(await send(api, 'POST', '/planning/shifts', { locationId: loc, ...at(3), breakMinutes: 480 }), ['/breakMinutes']);
    expectPointers(await send(api, 'POST', '/planning/shifts', { locationId: loc, startsAt: '2031-03-01T08:00:00', endsAt: at(3).endsAt }), ['/startsAt']);
  });

  it('references active tasks of the shift\'s location only', async () => {
    const task = (await sent(api, 'POST', `/locations/${loc}/tasks`, { title: 'Shift task' })).body;
    const elsewhere = (await sent(api, 'POST', `/locations/${api.demo.locations[1]}/tasks`, { title: 'Other site' })).body;
    const shift = await createShift({ ...at(5), taskIds: [task.id] });
    expect(shift.taskIds).toEqual([task.id]);
    expectPointers(await send(api, 'POST', '/planning/shifts', { locationId: loc, ...at(5), taskIds: [elsewhere.id] }), ['/taskIds/0']);
    await sent(api, 'DELETE', `/locations/${loc}/tasks/${task.id}`);
    expectPointers(await send(api, 'POST', '/planning/shifts', { locationId: loc, ...at(5), taskIds: [task.id] }), ['/taskIds/0']);
  });

  it('needs planning:write; planning:read reads', async () => {
    const reader = await keyWith(api, ['planning:read']);
    expectProblem(await send(api, 'POST', '/planning/shifts', { locationId: loc, ...at(6) }, { token: reader }), 403, 'SCOPE_REQUIRED');
    expect((await read(api, '/planning/shifts', reader)).status).toBe(200);
    expectProblem(await read(api, '/planning/shifts', await keyWith(api, ['timesheets:read'])), 403, 'SCOPE_REQUIRED');
  });
});

describe('publish, overlap, cancel', () => {
  it('publishes; a second publish is 409 SHIFT_PUBLISHED; If-Match is required and compared', async () => {
    const s = await createShift({ employeeId: await employee(), ...at(10) });
    expectProblem(await send(api, 'POST', `/planning/shifts/${s.id}/publish`), 428, 'ETAG_REQUIRED');
    expectProblem(await send(api, 'POST', `/planning/shifts/${s.id}/publish`, undefined, { ifMatch: `"shift:${s.id}:v7"` }), 412, 'ETAG_MISMATCH');
    const res = await publish(s);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'PUBLISHED', publishedAt: expect.any(String), version: 2 });
    expect(res.headers.get('etag')).toBe(`"shift:${s.id}:v2"`);
    expectProblem(await publish(res.body), 409, 'SHIFT_PUBLISHED');
  });

  it('refuses a published overlap with 409 SHIFT_OVERLAP naming the shift, writing nothing; an override with reason is audited', async () => {
    const emp = await employee();
    const first = await createShift({ employeeId: emp, ...at(11, '08:00', '16:00') });
    await publish(first);
    const second = await createShift({ employeeId: emp, ...at(11, '15:00', '20:00') });
    const before = await countByType(api.db);
    const refused = expectProblem(await publish(second), 409, 'SHIFT_OVERLAP');
    expect(refused.overlappingShiftIds).toEqual([first.id]);
    expect(await countByType(api.db)).toEqual(before);
    // Back to back is no overlap (half-open intervals); a draft never collides.
    const adjacent = await createShift({ employeeId: emp, ...at(11, '16:00', '18:00') });
    expect((await publish(adjacent)).status).toBe(200);

    expectPointers(await publish(second, { overlapOverride: true }), ['/overlapReason']);
    const forced = await publish(second, { overlapOverride: true, overlapReason: 'Handover with the late team' });
    expect(forced.status).toBe(200);
    const audits = await auditOf(api, second.id);
    expect(audits.at(-1)).toMatchObject({ action: 'shift.published', overlap: { override: true, reason: 'Handover with the late team', overlappedEntryIds: [first.id, adjacent.id].sort() } });
  });

  it('keeps an overlap published by override when a change keeps employee and interval; moving the shift decides again', async () => {
    const emp = await employee();
    const a = (await publish(await createShift({ employeeId: emp, ...at(13, '08:00', '12:00') }))).body;
    const b = (await publish(await createShift({ employeeId: emp, ...at(13, '09:00', '10:00') }), { overlapOverride: true, overlapReason: 'handover' })).body;
    expect(b).toMatchObject({ state: 'PUBLISHED' });
    // Notes, break: the plan keeps both shifts where they were, no new override is asked or audited.
    const noted = await send(api, 'PATCH', `/planning/shifts/${a.id}`, { notes: 'Bring keys' }, { ifMatch: etag(a) });
    expect(noted.status).toBe(200);
    expect(noted.body).toMatchObject({ state: 'PUBLISHED', notes: 'Bring keys', version: a.version + 1 });
    const shorter = await send(api, 'PATCH', `/planning/shifts/${b.id}`, { breakMinutes: 5 }, { ifMatch: etag(b) });
    expect(shorter.status).toBe(200);
    expect((await auditOf(api, a.id)).at(-1)).toMatchObject({ action: 'shift.updated' });
    expect((await auditOf(api, a.id)).at(-1)).not.toHaveProperty('overlap');
    // Moving it within the other's time is a new decision: 409 unless overridden again.
    const moved = expectProblem(await send(api, 'PATCH', `/planning/shifts/${b.id}`, { startsAt: at(13, '09:30').startsAt }, { ifMatch: etag(shorter.body) }), 409, 'SHIFT_OVERLAP');
    expect(moved.overlappingShiftIds).toEqual([a.id]);
    expect(moved.detail).toMatch(/to plan it so deliberately/);
  });

  it('keeps a published shift free of overlaps when it is changed; cancel frees the plan and is final', async () => {
    const emp = await employee();
    const a = (await publish(await createShift({ employeeId: emp, ...at(12, '06:00', '10:00') }))).body;
    const b = (await publish(await createShift({ employeeId: emp, ...at(12, '12:00', '16:00') }))).body;
    const moved = await send(api, 'PATCH', `/planning/shifts/${b.id}`, { startsAt: at(12, '09:00').startsAt }, { ifMatch: etag(b) });
    expectProblem(moved, 409, 'SHIFT_OVERLAP');
    const cancelled = await send(api, 'POST', `/planning/shifts/${a.id}/cancel`, { reason: 'Customer closed' }, { ifMatch: etag(a) });
    expect(cancelled.body).toMatchObject({ state: 'CANCELLED', cancelledAt: expect.any(String), cancelReason: 'Customer closed' });
    const now = await send(api, 'PATCH', `/planning/shifts/${b.id}`, { startsAt: at(12, '09:00').startsAt }, { ifMatch: etag(b) });
    expect(now.status).toBe(200);
    expect(now.body).toMatchObject({ state: 'PUBLISHED', startsAt: at(12, '09:00').startsAt, plannedMinutes: 420 });
    expectProblem(await send(api, 'POST', `/planning/shifts/${a.id}/cancel`, { reason: 'again' }, { ifMatch: etag(cancelled.body) }), 409, 'SHIFT_CANCELLED');
    expectProblem(await send(api, 'PATCH', `/planning/shifts/${a.id}`, { breakMinutes: 5 }, { ifMatch: etag(cancelled.body) }), 409, 'SHIFT_CANCELLED');
    expectProblem(await publish(cancelled.body), 409, 'SHIFT_CANCELLED');
    expect((await auditOf(api, a.id)).map((x) => x.action)).toEqual(['shift.created', 'shift.published', 'shift.cancelled']);
  });

  it('refuses to publish a draft whose employee was deactivated (409 SHIFT_EMPLOYEE_INACTIVE) or location archived (409 SHIFT_LOCATION_ARCHIVED) since, and writes nothing', async () => {
    const emp = await employee();
    const draft = await createShift({ employeeId: emp, ...at(14) });
    const site = await createLocation(api, { name: `Site ${randomUUID().slice(0, 8)}` });
    const open = await createShift({ locationId: site.id, ...at(14) });
    await deactivate(emp);
    await sent(api, 'DELETE', `/locations/${site.id}`);
    const before = await countByType(api.db);
    const inactive = expectProblem(await publish(draft), 409, 'SHIFT_EMPLOYEE_INACTIVE');
    expect(inactive.detail).toContain(emp);
    expectProblem(await publish(open), 409, 'SHIFT_LOCATION_ARCHIVED');
    expect(await countByType(api.db)).toEqual(before);
    expect((await read(api, `/planning/shifts/${draft.id}`)).body).toMatchObject({ state: 'DRAFT', version: 1 });
    // Reassigned to an active employee, it publishes; cancel stays possible for the other.
    const reassigned = (await sent(api, 'PATCH', `/planning/shifts/${draft.id}`, { employeeId: await employee() }, 200, { ifMatch: etag(draft) })).body;
    expect((await publish(reassigned)).status).toBe(200);
    expect((await send(api, 'POST', `/planning/shifts/${open.id}/cancel`, { reason: 'Site closed' }, { ifMatch: etag(open) })).status).toBe(200);
  });

  it('refuses to publish a draft a task of which was archived since (409 SHIFT_TASK_ARCHIVED), writing nothing; restoring the task lets it publish', async () => {
    const kept = (await sent(api, 'POST', `/locations/${loc}/tasks`, { title: 'Still done' })).body;
    const retired = (await sent(api, 'POST', `/locations/${loc}/tasks`, { title: 'Soon retired' })).body;
    const draft = await createShift({ employeeId: await employee(), ...at(15), taskIds: [kept.id, retired.id] });
    const archived = await sent(api, 'DELETE', `/locations/${loc}/tasks/${retired.id}`);
    const before = await countByType(api.db);
    const refused = expectProblem(await publish(draft), 409, 'SHIFT_TASK_ARCHIVED');
    expect(refused.title).toBe('A task of the shift is archived');
    expect(refused.detail).toContain(retired.id);
    expect(refused.detail).not.toContain(kept.id);
    expect(await countByType(api.db)).toEqual(before);
    expect(await stored(draft.id)).toMatchObject({ state: 'DRAFT', version: 1, publishedAt: null, taskIds: [kept.id, retired.id] });
    expect((await auditOf(api, draft.id)).map((a) => a.action)).toEqual(['shift.created']);
    // Restored, the task no longer holds the shift back.
    await sent(api, 'PATCH', `/locations/${loc}/tasks/${retired.id}`, { archived: false }, 200, { ifMatch: archived.headers.get('etag')! });
    const published = await publish(draft);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ state: 'PUBLISHED', version: 2, taskIds: [kept.id, retired.id] });
    expect(await stored(draft.id)).toMatchObject({ state: 'PUBLISHED', version: 2 });
  });

  it('checks the location first, then the tasks, then the employee; PATCHing the archived task out of taskIds cures it', async () => {
    const emp = await employee();
    const site = await createLocation(api, { name: `Site ${randomUUID().slice(0, 8)}` });
    const siteTask = (await sent(api, 'POST', `/locations/${site.id}/tasks`, { title: 'Site task' })).body;
    const atSite = await createShift({ employeeId: emp, locationId: site.id, ...at(16), taskIds: [siteTask.id] });
    const task = (await sent(api, 'POST', `/locations/${loc}/tasks`, { title: 'Window cleaning' })).body;
    const draft = await createShift({ employeeId: emp, ...at(17), taskIds: [task.id] });
    await sent(api, 'DELETE', `/locations/${site.id}/tasks/${siteTask.id}`);
    await sent(api, 'DELETE', `/locations/${site.id}`);
    await sent(api, 'DELETE', `/locations/${loc}/tasks/${task.id}`);
    await deactivate(emp);
    expectProblem(await publish(atSite), 409, 'SHIFT_LOCATION_ARCHIVED');
    expectProblem(await publish(draft), 409, 'SHIFT_TASK_ARCHIVED');
    const cleared = (await sent(api, 'PATCH', `/planning/shifts/${draft.id}`, { taskIds: [] }, 200, { ifMatch: etag(draft) })).body;
    expectProblem(await publish(cleared), 409, 'SHIFT_EMPLOYEE_INACTIVE');
    const open = (await sent(api, 'PATCH', `/planning/shifts/${draft.id}`, { employeeId: null }, 200, { ifMatch: etag(cleared) })).body;
    expect((await publish(open)).body).toMatchObject({ state: 'PUBLISHED', taskIds: [], employeeId: null });
  });

  it('a PATCH to the current values changes nothing', async () => {
    const s = await createShift({ ...at(13), breakMinutes: 15 });
    const same = await send(api, 'PATCH', `/planning/shifts/${s.id}`, { breakMinutes: 15 }, { ifMatch: etag(s) });
    expect(same.headers.get('etag')).toBe(etag(s));
    expectPointers(await send(api, 'PATCH', `/planning/shifts/${s.id}`, {}, { ifMatch: etag(s) }), ['']);
  });
});

describe('POST /planning/shifts/publish', () => {
  it('publishes the drafts of a range atomically per shift, reports overlaps, and is idempotent', async () => {
    const emp = await employee();
    const blocker = (await publish(await createShift({ employeeId: emp, ...at(20, '07:00', '09:00') }))).body;
    const drafts = [await createShift({ employeeId: emp, ...at(20, '08:00', '12:00') }), await createShift({ employeeId: emp, ...at(21) }), await createShift({ employeeId: emp, ...at(22) })];
    const outside = await createShift({ employeeId: emp, ...at(23) });
    const body = { from: at(20, '00:00').startsAt, to: at(23, '00:00').startsAt, employeeId: emp };
    const key = randomUUID();
    const res = await send(api, 'POST', '/planning/shifts/publish', body, { idempotencyKey: key });
    expect(res.status).toBe(200);
    expect([...res.body.publishedShiftIds].sort()).toEqual([drafts[1].id, drafts[2].id].sort());
    expect(res.body.rejected).toEqual([{ shiftId: drafts[0].id, code: 'SHIFT_OVERLAP', detail: expect.any(String), overlappingShiftIds: [blocker.id] }]);
    expect((await read(api, `/planning/shifts/${outside.id}`)).body.state).toBe('DRAFT');
    const replay = await send(api, 'POST', '/planning/shifts/publish', body, { idempotencyKey: key });
    expect(replay.body).toEqual(res.body);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    const again = await send(api, 'POST', '/planning/shifts/publish', body);
    expect(again.body.publishedShiftIds).toEqual([]);
    expectPointers(await send(api, 'POST', '/planning/shifts/publish', { from: body.to, to: body.from }), ['/to']);
  });

  it('lists drafts of a deactivated employee or an archived location in rejected, with their code, and publishes the others', async () => {
    const [gone, kept] = [await employee(), await employee()];
    const site = await createLocation(api, { name: `Site ${randomUUID().slice(0, 8)}` });
    const ofGone = await createShift({ employeeId: gone, ...at(24) });
    const atSite = await createShift({ employeeId: kept, locationId: site.id, ...at(24, '06:00', '07:00') });
    const fine = await createShift({ employeeId: kept, ...at(24) });
    await deactivate(gone);
    await sent(api, 'DELETE', `/locations/${site.id}`);
    const res = await send(api, 'POST', '/planning/shifts/publish', { from: at(24, '00:00').startsAt, to: at(25, '00:00').startsAt });
    expect(res.status).toBe(200);
    expect(res.body.publishedShiftIds).toContain(fine.id);
    expect(res.body.publishedShiftIds).not.toContain(ofGone.id);
    expect(res.body.publishedShiftIds).not.toContain(atSite.id);
    expect(res.body.rejected).toEqual(
      expect.arrayContaining([
        { shiftId: ofGone.id, code: 'SHIFT_EMPLOYEE_INACTIVE', detail: expect.stringContaining(gone) },
        { shiftId: atSite.id, code: 'SHIFT_LOCATION_ARCHIVED', detail: expect.stringContaining(site.id) },
      ]),
    );
    for (const s of [ofGone, atSite]) expect((await read(api, `/planning/shifts/${s.id}`)).body).toMatchObject({ state: 'DRAFT', version: 1 });
  });

  it('lists drafts with a task archived since in rejected with SHIFT_TASK_ARCHIVED, publishes the others, and publishes them once the task is restored', async () => {
    const [emp, other] = [await employee(), await employee()];
    const active = (await sent(api, 'POST', `/locations/${loc}/tasks`, { title: 'Lobby' })).body;
    const retired = (await sent(api, 'POST', `/locations/${loc}/tasks`, { title: 'Old lobby' })).body;
    const held = await createShift({ employeeId: emp, ...at(26, '06:00', '10:00'), taskIds: [active.id, retired.id] });
    const alsoHeld = await createShift({ ...at(26, '07:00', '09:00'), taskIds: [retired.id] });
    const withActive = await createShift({ employeeId: emp, ...at(26, '12:00', '16:00'), taskIds: [active.id] });
    const plain = await createShift({ employeeId: other, ...at(26) });
    const archived = await sent(api, 'DELETE', `/locations/${loc}/tasks/${retired.id}`);
    const range = { from: at(26, '00:00').startsAt, to: at(27, '00:00').startsAt, locationId: loc };
    const res = await send(api, 'POST', '/planning/shifts/publish', range);
    expect(res.status).toBe(200);
    // Both lists keep the drafts' order (by start).
    expect(res.body.publishedShiftIds).toEqual([plain.id, withActive.id]);
    expect(res.body.rejected).toEqual([
      { shiftId: held.id, code: 'SHIFT_TASK_ARCHIVED', detail: expect.stringContaining(retired.id) },
      { shiftId: alsoHeld.id, code: 'SHIFT_TASK_ARCHIVED', detail: expect.stringContaining(retired.id) },
    ]);
    for (const s of [held, alsoHeld]) expect(await stored(s.id)).toMatchObject({ state: 'DRAFT', version: 1 });
    for (const s of [withActive, plain]) expect(await stored(s.id)).toMatchObject({ state: 'PUBLISHED', version: 2 });
    await sent(api, 'PATCH', `/locations/${loc}/tasks/${retired.id}`, { archived: false }, 200, { ifMatch: archived.headers.get('etag')! });
    const again = await send(api, 'POST', '/planning/shifts/publish', range);
    expect(again.body).toEqual({ publishedShiftIds: [held.id, alsoHeld.id], rejected: [] });
    for (const s of [held, alsoHeld]) expect(await stored(s.id)).toMatchObject({ state: 'PUBLISHED', version: 2 });
  });
});

describe('GET /planning/shifts', () => {
  it('lists by interval overlap (from inclusive, to exclusive), employee, location and state, with cursors', async () => {
    const emp = await employee();
    const early = await createShift({ employeeId: emp, ...at(30, '20:00', '23:00') });
    const night = await createShift({ employeeId: emp, startsAt: at(30, '22:00').startsAt, endsAt: at(31, '06:00').startsAt });
    const day = (await publish(await createShift({ employeeId: emp, ...at(31, '08:00', '12:00') }))).body;
    const late = await createShift({ employeeId: emp, ...at(31, '12:00', '14:00') });
    const q = { employeeId: emp, from: at(31, '00:00').startsAt, to: at(31, '12:00').startsAt };
    const res = await read(api, withQuery('/planning/shifts', q));
    expect(ids(res)).toEqual([night.id, day.id]);
    expect(ids(await read(api, withQuery('/planning/shifts', { ...q, state: 'PUBLISHED' })))).toEqual([day.id]);
    expect(ids(await read(api, withQuery('/planning/shifts', { ...q, locationId: api.demo.locations[1] })))).toEqual([]);
    const pages = await walkPages(withQuery(`${api.orgUrl()}/planning/shifts`, { employeeId: emp, limit: 1 }), api.demo.keys.admin);
    expect(pages.flatMap((p) => p.body.items.map((s) => (s as { id: string }).id))).toEqual([early.id, night.id, day.id, late.id]);
    expectParameters(await read(api, withQuery('/planning/shifts', { from: q.to, to: q.from })), ['to']);
    expectParameters(await read(api, withQuery('/planning/shifts', { state: 'DONE' })), ['state']);
  });

  it("never lists another organization's shifts; their ids are 404", async () => {
    const foreign = await theirs('POST', '/planning/shifts', { employeeId: api.demo.otherOrganizationEmployees[0], locationId: api.demo.otherOrganizationLocations[0], ...at(40) });
    expect(foreign.status).toBe(201);
    const res = await read(api, withQuery('/planning/shifts', { employeeId: api.demo.otherOrganizationEmployees[0] }));
    expect(res.body.items).toEqual([]);
    expect(ids(await read(api, withQuery('/planning/shifts', { from: at(40, '00:00').startsAt, to: at(41, '00:00').startsAt })))).not.toContain(foreign.body.id);
    expectProblem(await read(api, `/planning/shifts/${foreign.body.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await send(api, 'POST', `/planning/shifts/${foreign.body.id}/publish`, undefined, { ifMatch: etag(foreign.body) }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await send(api, 'POST', `/planning/shifts/${foreign.body.id}/cancel`, { reason: 'x' }, { ifMatch: etag(foreign.body) }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('planned vs actual', () => {
  it("compares a shift with the employee's effective time entries that overlap it", async () => {
    const emp = await employee();
    const shift = await createShift({ employeeId: emp, ...at(50, '08:00', '16:00'), breakMinutes: 30 });
    expect(shift).toMatchObject({ plannedMinutes: 450, actualMinutes: 0, varianceMinutes: -450 });
    const entry = await send(api, 'POST', '/timesheets', { employeeId: emp, context: { kind: 'REGISTERED_LOCATION', locationId: loc }, startedAt: at(50, '08:10').startsAt, endedAt: at(50, '16:40').startsAt, breakMinutes: 30, reason: 'Manual' });
    expect(entry.status).toBe(201);
    const got = await read(api, `/planning/shifts/${shift.id}`);
    expect(got.body).toMatchObject({ plannedMinutes: 450, actualMinutes: 480, varianceMinutes: 30, actualIncomplete: false });
    const voided = await send(api, 'POST', `/timesheets/${entry.body.id}/void`, { reason: 'Wrong day' }, { ifMatch: entry.headers.get('etag')! });
    expect(voided.status).toBe(200);
    expect((await read(api, withQuery('/planning/shifts', { employeeId: emp }))).body.items[0]).toMatchObject({ actualMinutes: 0, varianceMinutes: -450 });
  });

  it('the demo week shows planned vs actual at once', async () => {
    expect((await read(api, `/planning/shifts/${PLANNING_IDS.shifts[2]}`)).body).toMatchObject({ state: 'PUBLISHED', plannedMinutes: 450, actualMinutes: 510, varianceMinutes: 60 });
    expect((await read(api, `/planning/shifts/${PLANNING_IDS.shifts[7]}`)).body).toMatchObject({ actualIncomplete: true });
    expect((await read(api, `/planning/shifts/${PLANNING_IDS.shifts[0]}`)).body).toMatchObject({ actualMinutes: 0, varianceMinutes: -450 });
  });
});
