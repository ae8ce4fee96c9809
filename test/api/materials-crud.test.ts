import { randomUUID } from 'node:crypto';
import { materialResponseSchema } from '../../services/materials/schemas';
import { call, countByType, expectParameters, expectPointers, expectProblem, startApi, walkPages, withQuery, type ApiFixture } from '../support/api';
import { auditOf, createMaterial, ids, keyWith, read, send, sent } from './locations-fixture';

/**
 * Materials: CRUD with Idempotency-Key and If-Match, responses that always carry article,
 * supplier, website and orderLink (null when empty), preferred-ordering fields on the material,
 * `q` over name, article number and supplier, archive, and cross-organization isolation.
 */
let api: ApiFixture;
const mat = (id: string) => `/materials/${id}`;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

describe('POST /materials', () => {
  it('answers every nullable field, null when empty, with 201 + Location + ETag', async () => {
    const res = await sent(api, 'POST', '/materials', { name: 'Microfibre cloth' });
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Microfibre cloth',
      article: null,
      supplier: null,
      website: null,
      orderLink: null,
      unit: null,
      preferredOrderQuantity: null,
      reorderLevel: null,
      archived: false,
      archivedAt: null,
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(materialResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/materials/${res.body.id}`);
    expect(res.headers.get('etag')).toBe(`"material:${res.body.id}:v1"`);
  });

  it('keeps article and preferred-ordering data on the material; empty strings become null', async () => {
    const res = await sent(api, 'POST', '/materials', {
      name: 'Floor cleaner 10 l',
      article: ' FC-10 ',
      supplier: 'CleanCo GmbH',
      website: 'https://cleanco.example/floor',
      orderLink: '',
      unit: 'l',
      preferredOrderQuantity: 40,
      reorderLevel: 12.5,
    });
    expect(res.body).toMatchObject({ article: 'FC-10', supplier: 'CleanCo GmbH', website: 'https://cleanco.example/floor', orderLink: null, unit: 'l', preferredOrderQuantity: 40, reorderLevel: 12.5 });
    const [audit] = await auditOf(api, res.body.id);
    expect(audit).toMatchObject({ action: 'material.created', entity: { type: 'material', id: res.body.id }, requestId: res.requestId });
    expect(audit.changedAttributes).toEqual(['article', 'name', 'preferredOrderQuantity', 'reorderLevel', 'supplier', 'unit', 'website']);
  });

  it('rejects bad URLs, quantities and unknown fields with pointers, and writes nothing', async () => {
    const before = await countByType(api.db);
    expectPointers(
      await send(api, 'POST', '/materials', { name: 'Bad', website: 'ftp://x.example', orderLink: 'shop', preferredOrderQuantity: 0, reorderLevel: 1.2345, stock: 5 }),
      ['/website', '/orderLink', '/preferredOrderQuantity', '/reorderLevel', '/stock'],
    );
    expectPointers(await send(api, 'POST', '/materials', { article: 'A-1' }), ['/name']);
    // Not silently rounded to 0.3: within 1e-6 of a 3-decimal value is still not one.
    expectPointers(await send(api, 'POST', '/materials', { name: 'Near', preferredOrderQuantity: 0.30000000000001, reorderLevel: 0.1 + 0.2 }), ['/preferredOrderQuantity', '/reorderLevel']);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('needs an Idempotency-Key, replays for the same one and refuses it for other input', async () => {
    expectProblem(await send(api, 'POST', '/materials', { name: 'No key' }, { idempotencyKey: undefined }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    const key = randomUUID();
    const first = await sent(api, 'POST', '/materials', { name: 'Replayed' }, 201, { idempotencyKey: key });
    const again = await sent(api, 'POST', '/materials', { name: 'Replayed' }, 201, { idempotencyKey: key });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expectProblem(await send(api, 'POST', '/materials', { name: 'Other' }, { idempotencyKey: key }), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('needs materials:write', async () => {
    expectProblem(await send(api, 'POST', '/materials', { name: 'X' }, { token: api.demo.keys.readOnly }), 403, 'SCOPE_REQUIRED');
  });
});

describe('GET and PATCH /materials/{materialId}', () => {
  it('reads with the ETag and answers 404 across organizations', async () => {
    const m = await createMaterial(api, { name: 'Gloves M' });
    const res = await read(api, mat(m.id), api.demo.keys.readOnly);
    expect(res.body).toEqual(m);
    expect(res.headers.get('etag')).toBe(`"material:${m.id}:v1"`);
    expectProblem(await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}${mat(m.id)}`, { token: api.demo.keys.otherOrganization }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await read(api, mat('nope')), 404, 'RESOURCE_NOT_FOUND');
  });

  it('changes the fields sent with If-Match, clears with null, and audits the names', async () => {
    const m = await createMaterial(api, { name: 'Bin bags', article: 'BB-60', supplier: 'Bagger', reorderLevel: 5 });
    expectProblem(await send(api, 'PATCH', mat(m.id), { supplier: null }), 428, 'ETAG_REQUIRED');
    expectProblem(await send(api, 'PATCH', mat(m.id), { supplier: null }, { ifMatch: `"material:${m.id}:v2"` }), 412, 'ETAG_MISMATCH');
    const res = await sent(api, 'PATCH', mat(m.id), { supplier: null, article: '', preferredOrderQuantity: 100 }, 200, { ifMatch: `"material:${m.id}:v1"` });
    expect(res.body).toMatchObject({ supplier: null, article: null, preferredOrderQuantity: 100, reorderLevel: 5, version: 2 });
    expect(res.headers.get('etag')).toBe(`"material:${m.id}:v2"`);
    expect((await auditOf(api, m.id)).at(-1)).toMatchObject({ action: 'material.updated', changedAttributes: ['article', 'supplier', 'preferredOrderQuantity'] });
    const same = await sent(api, 'PATCH', mat(m.id), { preferredOrderQuantity: 100 }, 200, { ifMatch: `"material:${m.id}:v2"` });
    expect(same.body.version).toBe(2);
  });

  it('archives with DELETE and restores with PATCH archived: false', async () => {
    const m = await createMaterial(api, { name: 'Quartz polish', supplier: 'Shiny Ltd' });
    const archived = await sent(api, 'DELETE', mat(m.id), undefined, 200);
    expect(archived.body).toMatchObject({ archived: true, archivedAt: expect.any(String), version: 2, supplier: 'Shiny Ltd' });
    expect((await read(api, mat(m.id))).body.archived).toBe(true);
    const found = async (query: Record<string, string>) => ids(await call('GET', withQuery(`${api.orgUrl()}/materials`, query), { token: api.demo.keys.admin }));
    expect(await found({ q: 'quartz' })).toEqual([]);
    expect(await found({ q: 'quartz', archived: 'true' })).toEqual([m.id]);
    const restored = await sent(api, 'PATCH', mat(m.id), { archived: false }, 200, { ifMatch: archived.headers.get('etag')! });
    expect(restored.body).toMatchObject({ archived: false, archivedAt: null });
    expect(await found({ q: 'shiny' })).toEqual([m.id]);
    expect((await auditOf(api, m.id)).map((a) => a.action)).toEqual(['material.created', 'material.archived', 'material.updated']);
  });
});

describe('GET /materials', () => {
  let org: string;
  let token: string;

  beforeAll(async () => {
    org = randomUUID();
    const { putOrganization } = await import('../../services/organization/public');
    const now = new Date().toISOString();
    await putOrganization(api.db, { id: org, name: 'Materials Org', entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: now, updatedAt: now });
    token = await keyWith(api, ['materials:read', 'materials:write'], org);
    for (const body of [
      { name: 'Window squeegee', article: 'WS-35', supplier: 'Glassworks AG' },
      { name: 'Descaler', article: 'DSC-1', supplier: 'CleanCo GmbH' },
      { name: 'all-purpose spray', article: 'APS-500', supplier: 'CleanCo GmbH' },
    ]) {
      expect((await call('POST', `${api.orgUrl(org)}/materials`, { token, idempotencyKey: randomUUID(), body })).status).toBe(201);
    }
  });

  const names = async (query: Record<string, string | number>) =>
    (await walkPages(withQuery(`${api.orgUrl(org)}/materials`, query), token)).flatMap((p) => p.body.items.map((m: { name: string }) => m.name));

  it('lists by name in cursor pages, every item with the nullable fields', async () => {
    expect(await names({ limit: 1 })).toEqual(['all-purpose spray', 'Descaler', 'Window squeegee']);
    const page = await call('GET', `${api.orgUrl(org)}/materials`, { token });
    for (const m of page.body.items) expect(materialResponseSchema.strict().safeParse(m).error).toBeUndefined();
  });

  it('searches name, article number and supplier', async () => {
    expect(await names({ q: 'squee' })).toEqual(['Window squeegee']);
    expect(await names({ q: 'dsc' })).toEqual(['Descaler']);
    expect(await names({ q: 'aps-500' })).toEqual(['all-purpose spray']);
    expect((await names({ q: 'cleanco' })).sort()).toEqual(['Descaler', 'all-purpose spray']);
    expect((await names({ q: 'cleanco', limit: 1 })).sort()).toEqual(['Descaler', 'all-purpose spray']);
    expect(await names({ q: 'glassworks squeegee' })).toEqual(['Window squeegee']);
  });

  it("never shows another organization's materials", async () => {
    const theirs = await call('GET', withQuery(`${api.orgUrl()}/materials`, { q: 'cleanco' }), { token: api.demo.keys.admin });
    expect(theirs.body.items.map((m: { name: string }) => m.name)).not.toContain('Descaler');
  });

  it('rejects unknown and malformed parameters', async () => {
    expectParameters(await call('GET', withQuery(`${api.orgUrl(org)}/materials`, { supplier: 'x' }), { token }), ['supplier']);
    expectParameters(await call('GET', withQuery(`${api.orgUrl(org)}/materials`, { limit: 0 }), { token }), ['limit']);
  });
});
