import { randomUUID } from 'node:crypto';
import { putEmployee } from '../../services/employees/public';
import { call, countByType, expectPointers, expectProblem, itemsOfType, startApi, type ApiFixture } from '../support/api';
import { auditOf, createLocation, keyWith, read, send, sent } from './locations-fixture';

/**
 * Quality: templates with revisions (editing makes a new one, inspections keep theirs), items
 * with weights and scales, inspections scored item by item, an exact weighted score on
 * completion, completed inspections immutable, corrections referencing the old inspection.
 */
let api: ApiFixture;
const etag = (res: { headers: Headers }) => res.headers.get('etag')!;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

const items = [
  { title: 'Floors', weight: 0.1, scaleMax: 5 },
  { title: 'Windows', weight: 0.2, scaleMax: 3 },
  { title: 'Restrooms', weight: 0.7, scaleMax: 10, description: 'Soap, paper, surfaces' },
];
const newTemplate = () => sent(api, 'POST', '/quality/templates', { name: `Office check ${randomUUID().slice(0, 4)}`, items });
const start = (templateId: string, over: Record<string, unknown> = {}) =>
  send(api, 'POST', '/quality/inspections', { templateId, locationId: api.demo.locations[0], employeeId: api.demo.employees[0], ...over });

/** An employee of its own (version 1), active. */
async function employee(): Promise<string> {
  const id = randomUUID();
  const at = new Date().toISOString();
  await putEmployee(api.db, { id, organizationId: api.demo.organizationId, userName: `${id}@quality.example`, emails: [], active: true, createdAt: at, updatedAt: at, version: 1 });
  return id;
}

/** Deactivates an employee made by `employee()` through the API. */
const deactivate = (id: string) => sent(api, 'POST', `/employees/${id}/deactivate`, { reason: 'Left the company' }, 200, { ifMatch: `"employee:${id}:v1"` });

async function scoreAll(id: string, etagNow: string, scores: readonly number[], itemIds: readonly string[]): Promise<string> {
  let tag = etagNow;
  for (const [i, score] of scores.entries()) tag = etag(await sent(api, 'PUT', `/quality/inspections/${id}/items/${itemIds[i]}`, { score }, 200, { ifMatch: tag }));
  return tag;
}

describe('templates', () => {
  it('creates revision 1; editing makes revision 2 while revision 1 stays readable', async () => {
    const t = await newTemplate();
    expect(t.body).toMatchObject({ revision: 1, version: 1, archived: false, items: [{ title: 'Floors', weight: 0.1, scaleMax: 5, description: null }, { weight: 0.2 }, { weight: 0.7, description: 'Soap, paper, surfaces' }] });
    expect(t.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/quality/templates/${t.body.id}`);
    const added = await sent(api, 'POST', `/quality/templates/${t.body.id}/items`, { title: 'Kitchen', weight: 1.5, scaleMax: 4 }, 201, { ifMatch: etag(t) });
    expect(added.body).toMatchObject({ revision: 2, version: 2 });
    expect(added.body.items).toHaveLength(4);
    // The Location names the new item, readable there with the template's ETag.
    const kitchen = added.body.items[3];
    expect(added.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/quality/templates/${t.body.id}/items/${kitchen.id}`);
    const item = await read(api, `/quality/templates/${t.body.id}/items/${kitchen.id}`);
    expect(item.body).toEqual(kitchen);
    expect(etag(item)).toBe(etag(added));
    expectProblem(await read(api, `/quality/templates/${t.body.id}/items/${randomUUID()}`), 404, 'RESOURCE_NOT_FOUND');
    const changed = await sent(api, 'PATCH', `/quality/templates/${t.body.id}/items/${t.body.items[0].id}`, { weight: 0.25 }, 200, { ifMatch: etag(added) });
    expect(changed.body).toMatchObject({ revision: 3 });
    const removed = await sent(api, 'DELETE', `/quality/templates/${t.body.id}/items/${t.body.items[1].id}`, undefined, 200, { ifMatch: etag(changed) });
    expect(removed.body.revision).toBe(4);
    expect(removed.body.items.map((i: { title: string }) => i.title)).toEqual(['Floors', 'Restrooms', 'Kitchen']);
    const rev1 = await read(api, `/quality/templates/${t.body.id}/items?revision=1`);
    expect(rev1.body).toMatchObject({ templateId: t.body.id, revision: 1, nextCursor: null });
    expect(rev1.body.items.map((i: { weight: number }) => i.weight)).toEqual([0.1, 0.2, 0.7]);
    expect((await read(api, `/quality/templates/${t.body.id}/items`)).body.revision).toBe(4);
    expectProblem(await read(api, `/quality/templates/${t.body.id}/items?revision=9`), 404, 'RESOURCE_NOT_FOUND');
    // limit and cursor page as on every list; a cursor continues in the revision its first page read.
    const first = await read(api, `/quality/templates/${t.body.id}/items?revision=1&limit=2`);
    expect(first.body.items.map((i: { weight: number }) => i.weight)).toEqual([0.1, 0.2]);
    const second = await read(api, `/quality/templates/${t.body.id}/items?revision=1&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body).toMatchObject({ revision: 1, nextCursor: null });
    expect(second.body.items.map((i: { weight: number }) => i.weight)).toEqual([0.7]);
    expectProblem(await read(api, `/quality/templates/${t.body.id}/items?revision=1&limit=3&cursor=${encodeURIComponent(first.body.nextCursor)}`), 422, 'VALIDATION_ERROR');
    expect((await auditOf(api, t.body.id)).map((a) => a.action)).toEqual(['quality_template.created', 'quality_template.revised', 'quality_template.revised', 'quality_template.revised']);
  });

  it('archives without a new revision; an archived template takes no inspection', async () => {
    const t = await newTemplate();
    const archived = await sent(api, 'PATCH', `/quality/templates/${t.body.id}`, { archived: true }, 200, { ifMatch: etag(t) });
    expect(archived.body).toMatchObject({ archived: true, revision: 1, version: 2 });
    expectPointers(await start(t.body.id), ['/templateId']);
    expect((await read(api, '/quality/templates?archived=true&limit=200')).body.items.map((x: { id: string }) => x.id)).toContain(t.body.id);
  });

  it('validates weights and scales, keeps the last item, and needs If-Match', async () => {
    expectPointers(await send(api, 'POST', '/quality/templates', { name: 'Bad', items: [{ title: 'x', weight: 0, scaleMax: 0 }, { title: 'y', weight: 1.0001, scaleMax: 2.5 }] }), [
      '/items/0/weight',
      '/items/0/scaleMax',
      '/items/1/weight',
      '/items/1/scaleMax',
    ]);
    expectPointers(await send(api, 'POST', '/quality/templates', { name: 'Empty', items: [] }), ['/items']);
    // Not silently rounded: a weight that is not exactly a 3-decimal number is refused, even within 1e-6 of one.
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', '/quality/templates', { name: 'Near', items: [{ title: 'x', weight: 0.30000000000001, scaleMax: 5 }, { title: 'y', weight: 0.1 + 0.2, scaleMax: 5 }] }), ['/items/0/weight', '/items/1/weight']);
    expect(await countByType(api.db)).toEqual(before);
    const t = await sent(api, 'POST', '/quality/templates', { name: 'One', items: [{ title: 'Only', weight: 1, scaleMax: 1 }] });
    expectPointers(await send(api, 'DELETE', `/quality/templates/${t.body.id}/items/${t.body.items[0].id}`, undefined, { ifMatch: etag(t) }), ['']);
    expectProblem(await send(api, 'POST', `/quality/templates/${t.body.id}/items`, { title: 'x', weight: 1, scaleMax: 1 }), 428, 'ETAG_REQUIRED');
    const unchanged = await countByType(api.db);
    expectPointers(await send(api, 'POST', `/quality/templates/${t.body.id}/items`, { title: 'x', weight: 0.30000000000001, scaleMax: 1 }, { ifMatch: etag(t) }), ['/weight']);
    expectPointers(await send(api, 'PATCH', `/quality/templates/${t.body.id}/items/${t.body.items[0].id}`, { weight: 0.30000000000001 }, { ifMatch: etag(t) }), ['/weight']);
    expect(await countByType(api.db)).toEqual(unchanged);
    expect((await read(api, `/quality/templates/${t.body.id}/items`)).body.items.map((i: { weight: number }) => i.weight)).toEqual([1]);
  });

  it('names a weight or scale of the wrong type with what was given, never "Required": 422 at the item, nothing written', async () => {
    const before = await countByType(api.db);
    const res = await send(api, 'POST', '/quality/templates', { name: 'Typed', items: [{ title: 'x', weight: '1', scaleMax: 2.5 }, { title: 'y', weight: true, scaleMax: '5' }] });
    expectPointers(res, ['/items/0/weight', '/items/0/scaleMax', '/items/1/weight', '/items/1/scaleMax']);
    const details = Object.fromEntries(res.body.errors.map((e: { pointer: string; detail: string }) => [e.pointer, e.detail]));
    expect(details['/items/0/weight']).toBe('weight must be a number; got a string of 1 character.');
    expect(details['/items/0/scaleMax']).toBe('scaleMax must be a whole number from 1 to 100; got the number 2.5.');
    expect(details['/items/1/weight']).toBe('weight must be a number; got true.');
    expect(details['/items/1/scaleMax']).toBe('scaleMax must be a whole number from 1 to 100; got a string of 1 character.');
    for (const detail of Object.values(details)) expect(detail).not.toMatch(/required/i);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('refuses NUL and escape sequences in a template or item description (422 at the field, nothing written) and keeps line breaks and tabs', async () => {
    const before = await countByType(api.db);
    const res = await send(api, 'POST', '/quality/templates', { name: 'Escapes', description: 'Weekly\u0000', items: [{ title: 'x', weight: 1, scaleMax: 5, description: 'Soap\u001b[31m' }] });
    expectPointers(res, ['/description', '/items/0/description']);
    expect(res.body.errors.map((e: { detail: string }) => e.detail)).toEqual([
      expect.stringMatching(/^description must not contain control characters other than tab and line breaks .*; found U\+0000 at character 7\.$/),
      expect.stringMatching(/^description must not contain control characters other than tab and line breaks .*; found U\+001B at character 5\.$/),
    ]);
    expect(await countByType(api.db)).toEqual(before);
    const description = 'Check:\n\tsoap\r\n\tpaper';
    const t = await sent(api, 'POST', '/quality/templates', { name: 'Layout', description, items: [{ title: 'x', weight: 1, scaleMax: 5, description }] });
    expect(t.body).toMatchObject({ description, items: [{ description }] });
    expectPointers(await send(api, 'PATCH', `/quality/templates/${t.body.id}/items/${t.body.items[0].id}`, { description: 'a\u009bb' }, { ifMatch: etag(t) }), ['/description']);
    expect((await read(api, `/quality/templates/${t.body.id}/items`)).body.items.map((i: { description: string }) => i.description)).toEqual([description]);
  });
});

describe('inspections', () => {
  it('keeps the revision it started with, scores item by item, and completes with the exact weighted score', async () => {
    const t = await newTemplate();
    const draft = await start(t.body.id, { note: 'Monthly' });
    expect(draft.status).toBe(201);
    expect(draft.body).toMatchObject({ state: 'DRAFT', templateRevision: 1, score: null, correctsInspectionId: null });
    // The template moves on; the inspection keeps revision 1's items.
    await sent(api, 'PATCH', `/quality/templates/${t.body.id}/items/${t.body.items[0].id}`, { weight: 5 }, 200, { ifMatch: etag(t) });
    const ids = draft.body.items.map((i: { itemId: string }) => i.itemId);
    expect(draft.body.items.map((i: { weight: number }) => i.weight)).toEqual([0.1, 0.2, 0.7]);
    const incomplete = await send(api, 'POST', `/quality/inspections/${draft.body.id}/complete`, undefined, { ifMatch: etag(draft) });
    expect(expectProblem(incomplete, 422, 'VALIDATION_ERROR').unscoredItemIds).toEqual(ids);
    expectPointers(await send(api, 'PUT', `/quality/inspections/${draft.body.id}/items/${ids[1]}`, { score: 4 }, { ifMatch: etag(draft) }), ['/score']);
    // 0.1 * 5/5 + 0.2 * 2/3 + 0.7 * 7/10 = 0.1 + 2/15 + 0.49 = 217/300 (72.33 %)
    const tag = await scoreAll(draft.body.id, etag(draft), [5, 2, 7], ids);
    const done = await sent(api, 'POST', `/quality/inspections/${draft.body.id}/complete`, undefined, 200, { ifMatch: tag });
    expect(done.body).toMatchObject({ state: 'COMPLETED', score: { fraction: '217/300', percent: 72.33 }, completedAt: expect.any(String) });
    const itemsRes = await read(api, `/quality/inspections/${draft.body.id}/items`);
    expect(itemsRes.body.items.map((i: { score: number }) => i.score)).toEqual([5, 2, 7]);
    expect(itemsRes.body.nextCursor).toBeNull();
    const page1 = await read(api, `/quality/inspections/${draft.body.id}/items?limit=2`);
    const page2 = await read(api, `/quality/inspections/${draft.body.id}/items?limit=2&cursor=${encodeURIComponent(page1.body.nextCursor)}`);
    expect([...page1.body.items, ...page2.body.items].map((i: { score: number }) => i.score)).toEqual([5, 2, 7]);
    expect(page2.body.nextCursor).toBeNull();
    expect((await auditOf(api, draft.body.id)).map((a) => a.action)).toEqual(['inspection.created', 'inspection.item_scored', 'inspection.item_scored', 'inspection.item_scored', 'inspection.completed']);
  });

  it('keeps a completed inspection immutable (409, nothing written) and corrects it with a new one', async () => {
    const t = await newTemplate();
    const draft = await start(t.body.id);
    const ids = draft.body.items.map((i: { itemId: string }) => i.itemId);
    const done = await sent(api, 'POST', `/quality/inspections/${draft.body.id}/complete`, undefined, 200, { ifMatch: await scoreAll(draft.body.id, etag(draft), [1, 1, 1], ids) });
    const before = await countByType(api.db);
    expectProblem(await send(api, 'PUT', `/quality/inspections/${draft.body.id}/items/${ids[0]}`, { score: 5 }, { ifMatch: etag(done) }), 409, 'INSPECTION_COMPLETED');
    expectProblem(await send(api, 'POST', `/quality/inspections/${draft.body.id}/complete`, {}, { ifMatch: etag(done) }), 409, 'INSPECTION_COMPLETED');
    expect(await countByType(api.db)).toEqual(before);
    const correction = await sent(api, 'POST', '/quality/inspections', { correctsInspectionId: draft.body.id });
    expect(correction.body).toMatchObject({ state: 'DRAFT', correctsInspectionId: draft.body.id, templateRevision: 1, locationId: api.demo.locations[0], employeeId: api.demo.employees[0] });
    expect(correction.body.items.map((i: { score: number }) => i.score)).toEqual([1, 1, 1]);
    const [stored] = (await itemsOfType(api.db, 'QualityInspection')).filter((i) => i.id === draft.body.id);
    expect(stored).toMatchObject({ state: 'COMPLETED', version: done.body.version });
    expectPointers(await send(api, 'POST', '/quality/inspections', { correctsInspectionId: correction.body.id }), ['/correctsInspectionId']);
  });

  it('checks references in this organization and lists by location', async () => {
    const t = await newTemplate();
    expectPointers(await start(t.body.id, { locationId: api.demo.otherOrganizationLocations[0], employeeId: api.demo.otherOrganizationEmployees[0] }), ['/locationId', '/employeeId']);
    expectPointers(await start(randomUUID()), ['/templateId']);
    expectPointers(await send(api, 'POST', '/quality/inspections', {}), ['/templateId', '/locationId', '/employeeId']);
    const draft = await start(t.body.id, { locationId: api.demo.locations[1] });
    const list = await read(api, `/quality/inspections?locationId=${api.demo.locations[1]}&limit=200`);
    expect(list.body.items.map((i: { id: string }) => i.id)).toContain(draft.body.id);
    expect(list.body.items.every((i: { locationId: string }) => i.locationId === api.demo.locations[1])).toBe(true);
  });

  it('refuses an archived location and a deactivated employee with 422 at the field, and writes nothing', async () => {
    const t = await newTemplate();
    const site = await createLocation(api, { name: `Closed site ${randomUUID().slice(0, 8)}` });
    await sent(api, 'DELETE', `/locations/${site.id}`);
    const gone = await employee();
    await deactivate(gone);
    const before = await countByType(api.db);
    const both = await start(t.body.id, { locationId: site.id, employeeId: gone });
    expectPointers(both, ['/locationId', '/employeeId']);
    expect(both.body.errors.map((e: { detail: string }) => e.detail)).toEqual([expect.stringMatching(/archived/), expect.stringMatching(/deactivated/)]);
    expectPointers(await start(t.body.id, { locationId: site.id }), ['/locationId']);
    expectPointers(await start(t.body.id, { employeeId: gone }), ['/employeeId']);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('refuses a correction naming no active employee when the inspector was deactivated; naming an active one corrects', async () => {
    const t = await newTemplate();
    const inspector = await employee();
    const draft = await start(t.body.id, { employeeId: inspector });
    const ids = draft.body.items.map((i: { itemId: string }) => i.itemId);
    await sent(api, 'POST', `/quality/inspections/${draft.body.id}/complete`, undefined, 200, { ifMatch: await scoreAll(draft.body.id, etag(draft), [1, 1, 1], ids) });
    await deactivate(inspector);
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', '/quality/inspections', { correctsInspectionId: draft.body.id }), ['/employeeId']);
    expect(await countByType(api.db)).toEqual(before);
    const correction = await sent(api, 'POST', '/quality/inspections', { correctsInspectionId: draft.body.id, employeeId: api.demo.employees[0] });
    expect(correction.body).toMatchObject({ correctsInspectionId: draft.body.id, employeeId: api.demo.employees[0] });
  });

  it('needs quality scopes; another organization gets 404 for a template and an inspection', async () => {
    const t = await newTemplate();
    const draft = await start(t.body.id);
    const token = await keyWith(api, ['quality:read']);
    expectProblem(await send(api, 'POST', '/quality/templates', { name: 'x', items }, { token }), 403, 'SCOPE_REQUIRED');
    expectProblem(await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}/quality/templates/${t.body.id}`, { token: api.demo.keys.otherOrganization }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}/quality/inspections/${draft.body.id}/items`, { token: api.demo.keys.otherOrganization }), 404, 'RESOURCE_NOT_FOUND');
    const foreignStart = await call('POST', `${api.orgUrl(api.demo.otherOrganizationId)}/quality/inspections`, { token: api.demo.keys.otherOrganization, idempotencyKey: randomUUID(), body: { correctsInspectionId: draft.body.id } });
    expectPointers(foreignStart, ['/correctsInspectionId']);
  });
});
