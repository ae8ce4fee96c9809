import { randomUUID } from 'node:crypto';
import { activityListSchema, dashboardResponseSchema, searchResponseSchema } from '../../services/overview/schemas';
import { call, expectProblem, scanTable, walkPages, withQuery, type ApiFixture } from '../support/api';
import { countsOf, recount } from '../data/overview-recount';
import { createdEmployee, employeeBody, etagOf, getBank, putBank } from './employees-fixture';
import { createContact, createLocation, createMaterial, keyWith, sent } from './locations-fixture';
import { startApi } from '../support/api';

/**
 * The organization overview through the local gateway: each route's scope, the dashboard's
 * figures equal to a recount, the activity feed over the audit trail (area and entity filters,
 * cursor paging, readable lines), and the search gated per area: never bank data, contact
 * values only with contacts:read, never another organization's records.
 */
let api: ApiFixture;
const IBAN = 'DE89370400440532013000';
const PRINTED = 'DE89 3704 0044 0532 0130 00';
const TAG = `zq${randomUUID().slice(0, 6)}`;
let employee: any;
let contact: any;
let location: any;
let material: any;
let customer: any;

const url = (path: string, query: Record<string, string | number | undefined> = {}, org?: string) => withQuery(`${api.orgUrl(org)}${path}`, query);
const get = (path: string, token: string, query: Record<string, string | number | undefined> = {}) => call('GET', url(path, query), { token });

beforeAll(async () => {
  api = await startApi();
  employee = (await createdEmployee(api, employeeBody({ displayName: `Mira ${TAG}`, givenName: 'Mira', familyName: TAG }))).body;
  const bank = await getBank(api, employee.id);
  expect((await putBank(api, employee.id, etagOf(bank), { iban: IBAN, bic: 'COBADEFFXXX', accountHolder: `Mira ${TAG}` })).status).toBe(200);
  contact = await createContact(api, { name: `Anna ${TAG}`, email: `anna.${TAG}@example.com`, phone: '+49 40 555 0101', role: 'Facility manager' });
  location = await createLocation(api, { name: `${TAG} Depot`, address: 'Kai 1, Hamburg', contactIds: [contact.id] });
  material = await createMaterial(api, { name: `${TAG} Mop`, article: 'MOP-1', supplier: 'CleanCo' });
  customer = (await sent(api, 'POST', '/customers', { name: `${TAG} Holdings`, customerNumber: `${TAG}-1`.toUpperCase(), locationIds: [location.id], contactIds: [contact.id] })).body;
});
afterAll(() => api?.close());

describe('GET /dashboard', () => {
  it('answers the six figures to a key with dashboard:read alone, each equal to a recount', async () => {
    const token = await keyWith(api, ['dashboard:read']);
    const res = await get('/dashboard', token);
    expect(res.status).toBe(200);
    expect(dashboardResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(countsOf(res.body)).toEqual(recount(await scanTable(api.db), api.demo.organizationId, res.body.asOf, res.body.reviewSince));
  });

  it('answers 403 SCOPE_REQUIRED without dashboard:read, and 403 ACCESS_DENIED to another organization', async () => {
    expectProblem(await get('/dashboard', api.demo.keys.timesheetsNoWorkEvents), 403, 'SCOPE_REQUIRED');
    expectProblem(await get('/dashboard', api.demo.keys.otherOrganization), 403, 'ACCESS_DENIED');
  });

  it("counts only the key's organization", async () => {
    const other = await call('GET', url('/dashboard', {}, api.demo.otherOrganizationId), { token: api.demo.keys.otherOrganization });
    expect(other.status).toBe(200);
    expect(countsOf(other.body)).toEqual(recount(await scanTable(api.db), api.demo.otherOrganizationId, other.body.asOf, other.body.reviewSince));
  });
});

describe('GET /activity', () => {
  let token: string;
  beforeAll(async () => {
    token = await keyWith(api, ['activity:read']);
  });

  it('lists the audit trail newest first with area and a readable summary, allowlisted like GET /audit', async () => {
    const res = await get('/activity', token, { limit: 200 });
    expect(res.status).toBe(200);
    expect(activityListSchema.safeParse(res.body).error).toBeUndefined();
    const created = res.body.items.find((i: any) => i.entity.id === employee.id && i.action === 'employee.created');
    expect(created).toMatchObject({ area: 'employees', action: 'employee.created', summary: expect.stringMatching(/^Employee created/) });
    const times = res.body.items.map((i: any) => i.occurredAt);
    expect([...times].sort().reverse()).toEqual(times);
    // Same content as the audit trail, plus area and summary.
    const audit = await get('/audit', api.demo.keys.admin, { limit: 200 });
    const { area: _a, summary: _s, ...asAudit } = created;
    expect(audit.body.items.find((i: any) => i.id === created.id)).toEqual(asAudit);
    expect(res.text).not.toContain(IBAN);
    expect(res.text).not.toContain(PRINTED);
    for (const i of res.body.items) expect(i.summary).not.toContain(TAG);
  });

  it('filters by area (its audit entity types) and pages it with a cursor to the end', async () => {
    const pages = await walkPages(url('/activity', { area: 'locations', limit: 1 }), token);
    const items = pages.flatMap((p) => p.body.items);
    expect(items.length).toBeGreaterThanOrEqual(2);
    expect(new Set(items.map((i: any) => i.area))).toEqual(new Set(['locations']));
    expect(items.map((i: any) => i.entity.id)).toEqual(expect.arrayContaining([location.id, contact.id]));
    expect(new Set(items.map((i: any) => i.id)).size).toBe(items.length);
  });

  it('filters by entity: the trail of one entity', async () => {
    const res = await get('/activity', token, { entityType: 'material', entityId: material.id });
    expect(res.body.items.map((i: any) => [i.action, i.summary])).toEqual([['material.created', expect.stringMatching(/^Material created/)]]);
  });

  it('answers 422 to an unknown area, an entity type of another area, or half an entity', async () => {
    expectProblem(await get('/activity', token, { area: 'bank' }), 422, 'VALIDATION_ERROR');
    expectProblem(await get('/activity', token, { area: 'timesheets', entityType: 'material', entityId: material.id }), 422, 'VALIDATION_ERROR');
    expectProblem(await get('/activity', token, { entityType: 'material' }), 422, 'VALIDATION_ERROR');
  });

  it('answers 403 without activity:read (audit:read is not enough) and shows no other organization', async () => {
    expectProblem(await get('/activity', await keyWith(api, ['audit:read', 'dashboard:read'])), 403, 'SCOPE_REQUIRED');
    const other = await call('GET', url('/activity', { limit: 200 }, api.demo.otherOrganizationId), { token: api.demo.keys.otherOrganization });
    expect(other.status).toBe(200);
    expect(other.text).not.toContain(employee.id);
    expect(other.text).not.toContain(api.demo.organizationId);
  });
});

describe('GET /search', () => {
  it('finds each type the key may read, never bank data', async () => {
    const res = await get('/search', api.demo.keys.admin, { q: TAG });
    expect(res.status).toBe(200);
    expect(searchResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.body.searchedTypes).toEqual(['employee', 'location', 'contact', 'customer', 'material']);
    expect(res.body.items.map((i: any) => [i.type, i.id])).toEqual([
      ['employee', employee.id],
      ['location', location.id],
      ['contact', contact.id],
      ['customer', customer.id],
      ['material', material.id],
    ]);
    expect(res.body.items.find((i: any) => i.type === 'contact')).toMatchObject({ email: `anna.${TAG}@example.com`, phone: '+49 40 555 0101' });
    expect(res.text).not.toMatch(/DE89|3704|0532013000|COBADEFF|iban|bic/i);
    expect(res.body.nextCursor).toBeNull();
  });

  it('leaves out the types whose read scope the key lacks: no contacts (nor their values) without contacts:read', async () => {
    const token = await keyWith(api, ['locations:read', 'customers:read', 'employees:read_financial']);
    const res = await get('/search', token, { q: TAG });
    expect(res.status).toBe(200);
    expect(res.body.searchedTypes).toEqual(['location', 'customer']);
    expect(res.body.items.map((i: any) => i.type)).toEqual(['location', 'customer']);
    expect(res.text).not.toContain(`anna.${TAG}`);
    expect(res.text).not.toContain('555 0101');
    expect(res.text).not.toContain('Anna');
    const asked = await get('/search', token, { q: TAG, types: 'contact,employee' });
    expect(asked.body).toEqual({ items: [], searchedTypes: [], nextCursor: null });
    // Searching by a contact's e-mail finds nothing for it either.
    expect((await get('/search', token, { q: `anna.${TAG}@example.com` })).body.items).toEqual([]);
  });

  it('answers 403 SCOPE_REQUIRED to a key with none of the read scopes', async () => {
    const res = await get('/search', await keyWith(api, ['dashboard:read', 'activity:read', 'employees:read_financial', 'contacts:write']), { q: TAG });
    const problem = expectProblem(res, 403, 'SCOPE_REQUIRED');
    expect(problem.requiredScopes).toEqual(['employees:read', 'locations:read', 'contacts:read', 'customers:read', 'materials:read']);
  });

  it("never finds another organization's records", async () => {
    expect((await get('/search', api.demo.keys.admin, { q: 'Dmitri' })).body.items).toEqual([]);
    const other = await call('GET', url('/search', { q: TAG }, api.demo.otherOrganizationId), { token: api.demo.keys.otherOrganization });
    expect(other.status).toBe(200);
    expect(other.body.items).toEqual([]);
  });

  it('pages each type with a composite cursor: limit per type, each type continued until it ends', async () => {
    const extra = await createMaterial(api, { name: `${TAG} Bucket`, article: null, supplier: null });
    const first = await get('/search', api.demo.keys.admin, { q: TAG, types: 'material,location', limit: 1 });
    expect(first.body.items.map((i: any) => i.type)).toEqual(['location', 'material']);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await get('/search', api.demo.keys.admin, { q: TAG, types: 'material,location', limit: 1, cursor: first.body.nextCursor });
    expect(second.status).toBe(200);
    expect(second.body.items.map((i: any) => i.type)).toEqual(['material']);
    expect(second.body.nextCursor).toBeNull();
    expect([...first.body.items, ...second.body.items].filter((i: any) => i.type === 'material').map((i: any) => i.id).sort()).toEqual([material.id, extra.id].sort());
    // The cursor is bound to the query and the key's readable types.
    expectProblem(await get('/search', api.demo.keys.admin, { q: TAG, types: 'material', limit: 1, cursor: first.body.nextCursor }), 422, 'VALIDATION_ERROR');
  });

  it('answers 422 to a q shorter than 2 letters or digits, and to an unknown type', async () => {
    expectProblem(await get('/search', api.demo.keys.admin, { q: 'z' }), 422, 'VALIDATION_ERROR');
    expectProblem(await get('/search', api.demo.keys.admin, {}), 422, 'VALIDATION_ERROR');
    expectProblem(await get('/search', api.demo.keys.admin, { q: TAG, types: 'bank_account' }), 422, 'VALIDATION_ERROR');
  });
});
