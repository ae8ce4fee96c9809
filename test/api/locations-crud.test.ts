import { randomUUID } from 'node:crypto';
import { locationResponseSchema } from '../../services/locations/schemas';
import { call, countByType, expectParameters, expectPointers, expectProblem, itemsOfType, keyIdOf, startApi, walkPages, withQuery, type ApiFixture } from '../support/api';
import { auditOf, createLocation, ids, keyWith, read, send, sent } from './locations-fixture';

/**
 * Locations through the local gateway: create (Idempotency-Key, 201 + Location + ETag), read,
 * update (If-Match), archive, list and `q` search, cross-organization isolation, and the
 * audit entry committed with every write.
 */
let api: ApiFixture;
const loc = (id: string) => `/locations/${id}`;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

describe('POST /locations', () => {
  it('creates a location: 201, Location, ETag and the body as published', async () => {
    const res = await sent(api, 'POST', '/locations', { name: '  Dockside Warehouse ', address: 'Pier 7, 20457 Hamburg' });
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/locations/${res.body.id}`);
    expect(res.headers.get('etag')).toBe(`"location:${res.body.id}:v1"`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Dockside Warehouse',
      address: 'Pier 7, 20457 Hamburg',
      archived: false,
      archivedAt: null,
      contactIds: [],
      contacts: [],
      qrRotatedAt: null,
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(locationResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
  });

  it('writes one audit entry in the same transaction, under the request ID, with attribute names only', async () => {
    const res = await sent(api, 'POST', '/locations', { name: 'Audit Yard', address: 'Secret Lane 1' });
    const [audit] = await auditOf(api, res.body.id);
    expect(audit).toMatchObject({
      action: 'location.created',
      entity: { type: 'location', id: res.body.id },
      actor: { type: 'API_KEY', keyId: keyIdOf(api.demo.keys.admin), label: 'Demo key: admin' },
      changedAttributes: ['address', 'name'],
      requestId: res.requestId,
    });
    expect(JSON.stringify(audit)).not.toContain('Secret Lane');
  });

  it('needs an Idempotency-Key', async () => {
    expectProblem(await send(api, 'POST', '/locations', { name: 'No key' }, { idempotencyKey: undefined }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
  });

  it('rejects invalid and unknown fields with pointers, and writes nothing', async () => {
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', '/locations', { name: ' ', address: 7, colour: 'red' }), ['/name', '/address', '/colour']);
    expectPointers(await send(api, 'POST', '/locations', { name: 'x'.repeat(201) }), ['/name']);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('stores an empty address as null', async () => {
    expect((await sent(api, 'POST', '/locations', { name: 'Blank', address: '   ' })).body.address).toBeNull();
  });

  it('replays the original response for the same key and input, once', async () => {
    const key = randomUUID();
    const first = await sent(api, 'POST', '/locations', { name: 'Replay Hall' }, 201, { idempotencyKey: key });
    const again = await sent(api, 'POST', '/locations', { name: 'Replay Hall' }, 201, { idempotencyKey: key });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect((await itemsOfType(api.db, 'Location')).filter((l) => l.name === 'Replay Hall')).toHaveLength(1);
    expect(await auditOf(api, first.body.id)).toHaveLength(1);
    expectProblem(await send(api, 'POST', '/locations', { name: 'Another Hall' }, { idempotencyKey: key }), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('needs locations:write', async () => {
    expectProblem(await send(api, 'POST', '/locations', { name: 'Read only' }, { token: api.demo.keys.readOnly }), 403, 'SCOPE_REQUIRED');
  });
});

describe('GET /locations/{locationId}', () => {
  it('returns the location with its ETag', async () => {
    const created = await createLocation(api, { name: 'Read Me' });
    const res = await read(api, loc(created.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
    expect(res.headers.get('etag')).toBe(`"location:${created.id}:v1"`);
  });

  it('reads seeded locations (written before versions) as version 1', async () => {
    const res = await read(api, loc(api.demo.locations[0]));
    expect(res.body).toMatchObject({ id: api.demo.locations[0], name: 'Harbour Office Tower', version: 1, archived: false, contactIds: [] });
    expect(locationResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
  });

  it("answers 404 for another organization's location, an unknown id and a non-UUID", async () => {
    expectProblem(await read(api, loc(api.demo.otherOrganizationLocations[0])), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await read(api, loc(randomUUID())), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await read(api, loc('not-a-uuid')), 404, 'RESOURCE_NOT_FOUND');
  });

  it("denies a key of another organization on this organization's URL", async () => {
    expectProblem(await read(api, loc(api.demo.locations[0]), api.demo.keys.otherOrganization), 403, 'ACCESS_DENIED');
  });
});

describe('PATCH /locations/{locationId}', () => {
  it('needs If-Match (428) naming the current ETag (412)', async () => {
    const created = await createLocation(api, { name: 'Etag Site' });
    expectProblem(await send(api, 'PATCH', loc(created.id), { name: 'Renamed' }), 428, 'ETAG_REQUIRED');
    expectProblem(await send(api, 'PATCH', loc(created.id), { name: 'Renamed' }, { ifMatch: `"location:${created.id}:v7"` }), 412, 'ETAG_MISMATCH');
    expect((await read(api, loc(created.id))).body.name).toBe('Etag Site');
  });

  it('changes the given fields, raises the version and audits the attribute names', async () => {
    const created = await createLocation(api, { name: 'Old Name', address: 'Old Street 1' });
    const res = await sent(api, 'PATCH', loc(created.id), { name: 'New Name', address: null }, 200, { ifMatch: `"location:${created.id}:v1"` });
    expect(res.body).toMatchObject({ name: 'New Name', address: null, version: 2 });
    expect(res.headers.get('etag')).toBe(`"location:${created.id}:v2"`);
    const audits = await auditOf(api, created.id);
    expect(audits.map((a) => [a.action, a.changedAttributes])).toEqual([
      ['location.created', ['address', 'name']],
      ['location.updated', ['name', 'address']],
    ]);
    expect(audits[1].requestId).toBe(res.requestId);
  });

  it('changes nothing (same ETag, no audit entry) when the values are the current ones', async () => {
    const created = await createLocation(api, { name: 'Same' });
    const res = await sent(api, 'PATCH', loc(created.id), { name: 'Same' }, 200, { ifMatch: `"location:${created.id}:v1"` });
    expect(res.headers.get('etag')).toBe(`"location:${created.id}:v1"`);
    expect(await auditOf(api, created.id)).toHaveLength(1);
  });

  it('lets exactly one of two concurrent changes from the same ETag commit', async () => {
    const created = await createLocation(api, { name: 'Race' });
    const ifMatch = `"location:${created.id}:v1"`;
    const results = await Promise.all(['Race A', 'Race B', 'Race C'].map((name) => send(api, 'PATCH', loc(created.id), { name }, { ifMatch })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412]);
    expect((await read(api, loc(created.id))).body.version).toBe(2);
    expect(await auditOf(api, created.id)).toHaveLength(2);
  });

  it('rejects an empty change and unknown fields', async () => {
    const created = await createLocation(api, { name: 'Strict' });
    const ifMatch = `"location:${created.id}:v1"`;
    expectPointers(await send(api, 'PATCH', loc(created.id), {}, { ifMatch }), ['']);
    expectPointers(await send(api, 'PATCH', loc(created.id), { name: 'Strict', id: randomUUID() }, { ifMatch }), ['/id']);
  });

  it("answers 404 for another organization's location", async () => {
    expectProblem(await send(api, 'PATCH', loc(api.demo.otherOrganizationLocations[0]), { name: 'Mine now' }, { ifMatch: `"location:${api.demo.otherOrganizationLocations[0]}:v1"` }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('DELETE /locations/{locationId} (archive)', () => {
  it('archives: the location stays readable by id, leaves the default list and search, and can be restored', async () => {
    const created = await createLocation(api, { name: 'Zeppelin Hangar', address: 'Airfield Road 3' });
    const archived = await sent(api, 'DELETE', loc(created.id), undefined, 200);
    expect(archived.body).toMatchObject({ archived: true, archivedAt: expect.any(String), version: 2 });
    expect(archived.headers.get('etag')).toBe(`"location:${created.id}:v2"`);
    expect((await read(api, loc(created.id))).body.archived).toBe(true);

    const all = async (query: Record<string, string>) => (await walkPages(withQuery(`${api.orgUrl()}/locations`, query), api.demo.keys.admin)).flatMap((p) => p.body.items.map((l: { id: string }) => l.id));
    expect(await all({})).not.toContain(created.id);
    expect(await all({ q: 'zeppelin' })).toEqual([]);
    expect(await all({ archived: 'true' })).toContain(created.id);
    expect(await all({ archived: 'true', q: 'airfield' })).toEqual([created.id]);

    const again = await sent(api, 'DELETE', loc(created.id), undefined, 200);
    expect(again.body.version).toBe(2);
    const restored = await sent(api, 'PATCH', loc(created.id), { archived: false }, 200, { ifMatch: `"location:${created.id}:v2"` });
    expect(restored.body).toMatchObject({ archived: false, archivedAt: null, version: 3 });
    expect(await all({ q: 'zeppelin' })).toEqual([created.id]);
    expect((await auditOf(api, created.id)).map((a) => a.action)).toEqual(['location.created', 'location.archived', 'location.updated']);
  });

  it('honours If-Match when it is sent', async () => {
    const created = await createLocation(api, { name: 'Careful' });
    expectProblem(await send(api, 'DELETE', loc(created.id), undefined, { ifMatch: `"location:${created.id}:v9"` }), 412, 'ETAG_MISMATCH');
    expect((await send(api, 'DELETE', loc(created.id), undefined, { ifMatch: `"location:${created.id}:v1"` })).status).toBe(200);
  });
});

describe('GET /locations', () => {
  let org: string;
  let token: string;

  beforeAll(async () => {
    // A fresh organization of its own, so that the list holds exactly what this block creates.
    org = randomUUID();
    const { putOrganization } = await import('../../services/organization/public');
    const now = new Date().toISOString();
    await putOrganization(api.db, { id: org, name: 'List Org', entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: now, updatedAt: now });
    token = await keyWith(api, ['locations:read', 'locations:write'], org);
    for (const [name, address] of [
      ['Bravo Depot', 'Kaiserstraße 5, Frankfurt'],
      ['alpha Office', 'Rue de Rivoli 10, Paris'],
      ['Charlie Site', 'Königsallee 2, Düsseldorf'],
      ['Delta Store', null],
    ]) {
      const res = await call('POST', `${api.orgUrl(org)}/locations`, { token, idempotencyKey: randomUUID(), body: { name, address } });
      expect(res.status).toBe(201);
    }
  });

  const listUrl = () => `${api.orgUrl(org)}/locations`;
  const names = async (query: Record<string, string | number>) => (await walkPages(withQuery(listUrl(), query), token)).flatMap((p) => p.body.items.map((l: { name: string }) => l.name));

  it('lists by name, case-insensitively, in cursor pages', async () => {
    const pages = await walkPages(withQuery(listUrl(), { limit: 1 }), token);
    expect(pages).toHaveLength(4);
    expect(pages.flatMap((p) => p.body.items.map((l: { name: string }) => l.name))).toEqual(['alpha Office', 'Bravo Depot', 'Charlie Site', 'Delta Store']);
    expect(pages.at(-1)!.body.nextCursor).toBeNull();
  });

  it('searches name and address by word prefix, accent- and case-insensitively', async () => {
    expect(await names({ q: 'DEP' })).toEqual(['Bravo Depot']);
    expect(await names({ q: 'konigs' })).toEqual(['Charlie Site']);
    expect(await names({ q: 'rivoli par' })).toEqual(['alpha Office']);
    expect((await names({ q: 's', limit: 1 })).sort()).toEqual(['Charlie Site', 'Delta Store']);
    expect(await names({ q: 'nowhere' })).toEqual([]);
  });

  it('finds the seeded locations by search too', async () => {
    const res = await call('GET', withQuery(`${api.orgUrl()}/locations`, { q: 'harbour' }), { token: api.demo.keys.readOnly });
    expect(ids(res)).toEqual([api.demo.locations[0]]);
  });

  it("never lists another organization's locations", async () => {
    const ours = (await walkPages(`${api.orgUrl()}/locations`, api.demo.keys.admin)).flatMap((p) => ids(p));
    expect(ours).toEqual(expect.arrayContaining([...api.demo.locations]));
    expect(ours).not.toContain(api.demo.otherOrganizationLocations[0]);
    const globex = await call('GET', withQuery(`${api.orgUrl()}/locations`, { q: 'globex' }), { token: api.demo.keys.admin });
    expect(globex.body.items).toEqual([]);
    expect(await names({})).toHaveLength(4);
  });

  it('rejects bad parameters and a cursor of another query', async () => {
    for (const q of [' !?! ', '--', '..', '_', '@-.']) expectParameters(await call('GET', withQuery(listUrl(), { q }), { token }), ['q']);
    expectParameters(await call('GET', withQuery(listUrl(), { archived: 'yes' }), { token }), ['archived']);
    expectParameters(await call('GET', withQuery(listUrl(), { limit: 201 }), { token }), ['limit']);
    expectParameters(await call('GET', withQuery(listUrl(), { sort: 'name' }), { token }), ['sort']);
    const first = await call('GET', withQuery(listUrl(), { limit: 1 }), { token });
    expectParameters(await call('GET', withQuery(listUrl(), { limit: 2, cursor: first.body.nextCursor }), { token }), ['cursor']);
  });
});
