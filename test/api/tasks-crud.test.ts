import { randomUUID } from 'node:crypto';
import { inUnitOfWork, type UnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { createTask, updateTask, type TaskPorts } from '../../services/tasks/domain';
import { taskResponseSchema } from '../../services/tasks/schemas';
import { tasksStore } from '../../services/tasks/store';
import { call, countByType, expectPointers, expectProblem, itemsOfType, startApi, walkPages, withQuery, type ApiFixture } from '../support/api';
import { archivedAfterFirstRead, auditOf, createLocation, demoActor, ids, keyWith, read, send, sent } from './locations-fixture';

/**
 * Location tasks: create (201 + Location + ETag, every nullable field present), get, list by
 * title with archived ones apart, PATCH with If-Match, archive and restore, scopes, and
 * another organization's location or task never reachable.
 */
let api: ApiFixture;
let loc: string;
const tasks = (locationId = loc) => `/locations/${locationId}/tasks`;

beforeAll(async () => {
  api = await startApi();
  loc = api.demo.locations[1];
});
afterAll(() => api?.close());

describe('POST /locations/{locationId}/tasks', () => {
  it('creates a task with its schedule, audited without values', async () => {
    const res = await sent(api, 'POST', tasks(), { title: 'Empty bins', schedule: { kind: 'WEEKLY', weekdays: ['FRI', 'MON'] }, estimatedMinutes: 15, instructions: 'Use the blue bags.' });
    expect(taskResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.body).toMatchObject({ locationId: loc, title: 'Empty bins', schedule: { kind: 'WEEKLY', weekdays: ['MON', 'FRI'] }, estimatedMinutes: 15, archived: false, version: 1 });
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}${tasks()}/${res.body.id}`);
    expect(res.headers.get('etag')).toBe(`"task:${res.body.id}:v1"`);
    const [audit] = await auditOf(api, res.body.id);
    expect(audit).toMatchObject({ action: 'task.created', entity: { type: 'task', id: res.body.id }, references: { locationId: loc }, requestId: res.requestId });
    expect(audit.changedAttributes).toEqual(['estimatedMinutes', 'instructions', 'schedule', 'title']);
    expect(JSON.stringify(audit)).not.toContain('blue bags');
  });

  it('answers every nullable field as null when not given', async () => {
    const res = await sent(api, 'POST', tasks(), { title: 'Window check' });
    expect(res.body).toMatchObject({ instructions: null, schedule: null, estimatedMinutes: null, archivedAt: null });
  });

  it('rejects bad schedules and unknown fields with pointers, and writes nothing', async () => {
    const before = await countByType(api.db);
    const res = await send(api, 'POST', tasks(), { title: '', schedule: { kind: 'EVERY_N_DAYS', everyDays: 0, startsOn: '2026-02-30' }, estimatedMinutes: 2000, colour: 'red' });
    expectPointers(res, ['/colour', '/title', '/schedule/everyDays', '/schedule/startsOn', '/estimatedMinutes']);
    expect(await countByType(api.db)).toEqual(before);
  });

  it.each(['2026-13-01', '2026-00-10', '2026-12-32', '2026-12-00', '2026-99-99'])('refuses startsOn %s with 422 at /schedule/startsOn (not 500), on create and PATCH, and writes nothing', async (startsOn) => {
    const task = await sent(api, 'POST', tasks(), { title: `Dated ${startsOn}` });
    const before = await countByType(api.db);
    const schedule = { kind: 'EVERY_N_DAYS', everyDays: 2, startsOn };
    expectPointers(await send(api, 'POST', tasks(), { title: 'w', schedule }), ['/schedule/startsOn']);
    expectPointers(await send(api, 'PATCH', `${tasks()}/${task.body.id}`, { schedule }, { ifMatch: `"task:${task.body.id}:v1"` }), ['/schedule/startsOn']);
    expect(await countByType(api.db)).toEqual(before);
    expect((await read(api, `${tasks()}/${task.body.id}`)).body).toMatchObject({ schedule: null, version: 1 });
  });

  it("is 404 for another organization's location and writes nothing", async () => {
    const before = await countByType(api.db);
    expectProblem(await send(api, 'POST', tasks(api.demo.otherOrganizationLocations[0]), { title: 'Sneaky' }), 404, 'RESOURCE_NOT_FOUND');
    expect(await countByType(api.db)).toEqual(before);
  });

  it('a location archived between the read and the commit: the transaction refuses the task, the use case runs again and answers 422; nothing is written', async () => {
    const actor = demoActor(api, ['tasks:write']);
    const location = await createLocation(api, { name: `Closing site ${randomUUID().slice(0, 8)}` });
    const race = archivedAfterFirstRead(api, location.id);
    const racing = (unit: UnitOfWork): TaskPorts => ({ store: race.wrap(tasksStore(api.db, unit)), now: () => new Date(), newId: randomUUID });
    await expect(inUnitOfWork(api.db, (u) => createTask(racing(u), actor, location.id, { title: 'Raced' }))).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ pointer: '', detail: `Location ${location.id} is archived: restore it before adding tasks.` }],
    });
    expect(race.reads()).toBe(2);
    expect((await itemsOfType(api.db, 'Task')).filter((t) => t.locationId === location.id)).toEqual([]);
  });

  it('needs tasks:write', async () => {
    const token = await keyWith(api, ['tasks:read']);
    expectProblem(await send(api, 'POST', tasks(), { title: 'No scope' }, { token }), 403, 'SCOPE_REQUIRED');
  });
});

describe('GET, PATCH, DELETE /locations/{locationId}/tasks/{taskId}', () => {
  it('reads, changes with If-Match, archives, restores', async () => {
    const created = await sent(api, 'POST', tasks(), { title: 'Mop lobby' });
    const id = created.body.id;
    const got = await read(api, `${tasks()}/${id}`, await keyWith(api, ['tasks:read']));
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(`"task:${id}:v1"`);

    expectProblem(await send(api, 'PATCH', `${tasks()}/${id}`, { title: 'x' }), 428, 'ETAG_REQUIRED');
    expectProblem(await send(api, 'PATCH', `${tasks()}/${id}`, { title: 'x' }, { ifMatch: `"task:${id}:v9"` }), 412, 'ETAG_MISMATCH');
    const patched = await sent(api, 'PATCH', `${tasks()}/${id}`, { estimatedMinutes: 45, schedule: { kind: 'EVERY_N_DAYS', everyDays: 3, startsOn: '2026-03-02' } }, 200, { ifMatch: `"task:${id}:v1"` });
    expect(patched.body).toMatchObject({ version: 2, estimatedMinutes: 45, schedule: { kind: 'EVERY_N_DAYS', everyDays: 3, startsOn: '2026-03-02' } });
    const same = await sent(api, 'PATCH', `${tasks()}/${id}`, { estimatedMinutes: 45 }, 200, { ifMatch: `"task:${id}:v2"` });
    expect(same.headers.get('etag')).toBe(`"task:${id}:v2"`);

    const archived = await sent(api, 'DELETE', `${tasks()}/${id}`);
    expect(archived.body).toMatchObject({ archived: true, archivedAt: expect.any(String), version: 3 });
    expect(ids(await read(api, tasks()))).not.toContain(id);
    expect(ids(await read(api, withQuery(tasks(), { archived: 'true' })))).toContain(id);
    const restored = await sent(api, 'PATCH', `${tasks()}/${id}`, { archived: false }, 200, { ifMatch: `"task:${id}:v3"` });
    expect(restored.body).toMatchObject({ archived: false, archivedAt: null, version: 4 });
    expect((await auditOf(api, id)).map((a) => a.action)).toEqual(['task.created', 'task.updated', 'task.archived', 'task.updated']);
  });

  it('a task of an archived location is not restored (422 at /archived) until its location is; nothing is written', async () => {
    const location = await createLocation(api, { name: `Paused site ${randomUUID().slice(0, 8)}` });
    const task = await sent(api, 'POST', tasks(location.id), { title: 'Windows' });
    const id = task.body.id;
    await sent(api, 'DELETE', `${tasks(location.id)}/${id}`);
    await sent(api, 'DELETE', `/locations/${location.id}`);
    const refused = await send(api, 'PATCH', `${tasks(location.id)}/${id}`, { archived: false }, { ifMatch: `"task:${id}:v2"` });
    expectProblem(refused, 422, 'VALIDATION_ERROR');
    expectPointers(refused, ['/archived']);
    expect(refused.body.errors[0].detail).toBe(`Location ${location.id} is archived: restore it before restoring its tasks.`);
    expect((await itemsOfType(api.db, 'Task')).find((t) => t.id === id)).toMatchObject({ archived: true, version: 2 });
    const renamed = await sent(api, 'PATCH', `${tasks(location.id)}/${id}`, { title: 'Windows, inside' }, 200, { ifMatch: `"task:${id}:v2"` });
    expect(renamed.body).toMatchObject({ archived: true, version: 3 });

    await sent(api, 'PATCH', `/locations/${location.id}`, { archived: false }, 200, { ifMatch: `"location:${location.id}:v2"` });
    const restored = await sent(api, 'PATCH', `${tasks(location.id)}/${id}`, { archived: false }, 200, { ifMatch: `"task:${id}:v3"` });
    expect(restored.body).toMatchObject({ archived: false, version: 4 });
  });

  it('a location archived between the read and the commit of a restore: the transaction refuses it, the use case runs again and answers 422', async () => {
    const actor = demoActor(api, ['tasks:write']);
    const location = await createLocation(api, { name: `Closing site ${randomUUID().slice(0, 8)}` });
    const task = await sent(api, 'POST', tasks(location.id), { title: 'Raced restore' });
    await sent(api, 'DELETE', `${tasks(location.id)}/${task.body.id}`);
    const race = archivedAfterFirstRead(api, location.id);
    const racing = (unit: UnitOfWork): TaskPorts => ({ store: race.wrap(tasksStore(api.db, unit)), now: () => new Date(), newId: randomUUID });
    await expect(inUnitOfWork(api.db, (u) => updateTask(racing(u), actor, location.id, task.body.id, `"task:${task.body.id}:v2"`, { archived: false }))).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ pointer: '/archived', detail: `Location ${location.id} is archived: restore it before restoring its tasks.` }],
    });
    expect(race.reads()).toBe(2);
    expect((await itemsOfType(api.db, 'Task')).find((t) => t.id === task.body.id)).toMatchObject({ archived: true, version: 2 });
  });

  it('is 404 under another location and for another organization', async () => {
    const created = await sent(api, 'POST', tasks(), { title: 'Lobby only' });
    expectProblem(await read(api, `${tasks(api.demo.locations[0])}/${created.body.id}`), 404, 'RESOURCE_NOT_FOUND');
    const other = await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}${tasks(api.demo.otherOrganizationLocations[0])}`, { token: api.demo.keys.admin });
    expectProblem(other, 403, 'ACCESS_DENIED');
    const foreign = await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}${tasks(api.demo.otherOrganizationLocations[0])}/${created.body.id}`, { token: api.demo.keys.otherOrganization });
    expectProblem(foreign, 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('GET /locations/{locationId}/tasks', () => {
  it('pages by title with sealed cursors; 404 for an unknown location', async () => {
    const locationId = api.demo.locations[0];
    for (const title of ['c task', 'A task', 'b task']) await sent(api, 'POST', tasks(locationId), { title });
    const pages = await walkPages(withQuery(`${api.orgUrl()}${tasks(locationId)}`, { limit: 1 }), api.demo.keys.admin);
    const titles = pages.flatMap((p) => p.body.items.map((t) => (t as { title: string }).title));
    expect(titles.filter((t) => / task$/.test(t))).toEqual(['A task', 'b task', 'c task']);
    expectProblem(await read(api, tasks('9c3d4e5f-6a7b-4c8d-9e0f-a1b2c3d4e5f6')), 404, 'RESOURCE_NOT_FOUND');
  });
});
