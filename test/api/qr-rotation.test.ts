import { randomUUID } from 'node:crypto';
import { call, countByType, expectPointers, expectProblem, itemsOfType, scanTable, startApi, tableFingerprint, type ApiFixture } from '../support/api';
import { auditOf, createLocation, keyWith, read, send } from './locations-fixture';

/**
 * POST /locations/{locationId}/qr/rotate (locations:qr): a new random secret stored only as
 * its SHA-256 in its own item, a new public reference; the response and the audit trail
 * never carry the secret or its hash.
 */
let api: ApiFixture;
let site: any;
const rotate = (id: string, options: Parameters<typeof send>[4] = {}) => send(api, 'POST', `/locations/${id}/qr/rotate`, undefined, options);
const qrItems = async (locationId: string) => (await itemsOfType(api.db, 'LocationQrSecret')).filter((i) => i.locationId === locationId);

beforeAll(async () => {
  api = await startApi();
  site = await createLocation(api, { name: 'QR Gate' });
});
afterAll(() => api?.close());

describe('POST /locations/{locationId}/qr/rotate', () => {
  it('answers only the public reference and the rotation time, with the location ETag', async () => {
    const res = await rotate(site.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ locationId: site.id, publicReference: expect.stringMatching(/^qr_[0-9a-f]{32}$/), rotatedAt: expect.any(String) });
    expect(res.headers.get('etag')).toBe(`"location:${site.id}:v2"`);
    const location = await read(api, `/locations/${site.id}`);
    expect(location.body).toMatchObject({ qrRotatedAt: res.body.rotatedAt, version: 2 });
    expect(location.text).not.toContain(res.body.publicReference);
  });

  it('stores only a SHA-256 hash of the secret, in one item per location that each rotation replaces', async () => {
    const first = await rotate(site.id);
    const [stored] = await qrItems(site.id);
    expect(stored).toMatchObject({ publicReference: first.body.publicReference, secretHash: expect.stringMatching(/^[0-9a-f]{64}$/), rotatedAt: first.body.rotatedAt });
    expect(Object.keys(stored).sort()).toEqual(['GSI1PK', 'GSI1SK', 'PK', 'SK', 'itemType', 'locationId', 'organizationId', 'publicReference', 'rotatedAt', 'secretHash']);
    const second = await rotate(site.id);
    expect(second.body.publicReference).not.toBe(first.body.publicReference);
    const items = await qrItems(site.id);
    expect(items).toHaveLength(1);
    expect(items[0].publicReference).toBe(second.body.publicReference);
    expect(items[0].secretHash).not.toBe(stored.secretHash);
  });

  it('never shows the hash in responses, replays or the audit trail; the audit says a rotation happened, nothing more', async () => {
    const res = await rotate(site.id);
    const [stored] = await qrItems(site.id);
    const everythingElse = JSON.stringify((await scanTable(api.db)).filter((i) => i.itemType !== 'LocationQrSecret'));
    expect(everythingElse).not.toContain(stored.secretHash);
    expect(res.text).not.toContain(stored.secretHash);
    const audit = (await auditOf(api, site.id)).find((a) => a.requestId === res.requestId)!;
    const { PK: _a, SK: _b, GSI1PK: _c, GSI1SK: _d, GSI2PK: _e, GSI2SK: _f, id: _id, occurredAt: _t, ...content } = audit;
    expect(content).toEqual({
      itemType: 'AuditEntry',
      organizationId: api.demo.organizationId,
      actor: { type: 'API_KEY', keyId: expect.any(String), label: 'Demo key: admin' },
      action: 'location.qr_rotated',
      entity: { type: 'location', id: site.id },
      requestId: res.requestId,
    });
  });

  it('needs an Idempotency-Key and replays the same rotation for it without rotating again', async () => {
    expectProblem(await rotate(site.id, { idempotencyKey: undefined }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    const key = randomUUID();
    const first = await rotate(site.id, { idempotencyKey: key });
    const again = await rotate(site.id, { idempotencyKey: key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect((await qrItems(site.id))[0].publicReference).toBe(first.body.publicReference);
  });

  it('honours If-Match when sent: a stale or malformed one is 412 and nothing is rotated', async () => {
    const place = await createLocation(api, { name: 'Guarded Gate' });
    await rotate(place.id);
    await rotate(place.id);
    const current = await read(api, `/locations/${place.id}`);
    const etag = current.headers.get('etag')!;
    expect(etag).toBe(`"location:${place.id}:v3"`);
    const [stored] = await qrItems(place.id);
    const before = await tableFingerprint(api.db);
    for (const ifMatch of [`"location:${place.id}:v1"`, '"garbage"']) {
      expectProblem(await rotate(place.id, { idempotencyKey: randomUUID(), ifMatch }), 412, 'ETAG_MISMATCH');
    }
    expect(await tableFingerprint(api.db)).toBe(before);
    expect((await read(api, `/locations/${place.id}`)).headers.get('etag')).toBe(etag);
    expect(await qrItems(place.id)).toEqual([stored]);
    const res = await rotate(place.id, { ifMatch: etag });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(`"location:${place.id}:v4"`);
    expect((await qrItems(place.id))[0].publicReference).toBe(res.body.publicReference);
  });

  it('accepts an empty JSON object as the body and rejects anything in it', async () => {
    expect((await send(api, 'POST', `/locations/${site.id}/qr/rotate`, {})).status).toBe(200);
    expectPointers(await send(api, 'POST', `/locations/${site.id}/qr/rotate`, { secret: 'mine' }), ['/secret']);
  });

  it('lets concurrent rotations commit one after the other; the last answer is the code in force', async () => {
    const place = await createLocation(api, { name: 'Busy Gate' });
    const results = await Promise.all([1, 2, 3, 4].map(() => rotate(place.id)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const [stored] = await qrItems(place.id);
    const answered = results.find((r) => r.body.publicReference === stored.publicReference)!;
    expect(answered.body.rotatedAt).toBe(results.map((r) => r.body.rotatedAt).sort().at(-1));
    expect((await read(api, `/locations/${place.id}`)).body.version).toBe(5);
    expect((await auditOf(api, place.id)).filter((a) => a.action === 'location.qr_rotated')).toHaveLength(4);
  });

  it('needs locations:qr (locations:write is not enough)', async () => {
    const writer = await keyWith(api, ['locations:read', 'locations:write']);
    const denied = expectProblem(await rotate(site.id, { token: writer }), 403, 'SCOPE_REQUIRED');
    expect(denied.requiredScopes).toEqual(['locations:qr']);
    const rotator = await keyWith(api, ['locations:qr']);
    expect((await rotate(site.id, { token: rotator })).status).toBe(200);
  });

  it("answers 404 for another organization's location and writes nothing", async () => {
    const before = await countByType(api.db);
    expectProblem(await rotate(api.demo.otherOrganizationLocations[0]), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await rotate(randomUUID()), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(
      await call('POST', `${api.orgUrl(api.demo.otherOrganizationId)}/locations/${site.id}/qr/rotate`, { token: api.demo.keys.otherOrganization, idempotencyKey: randomUUID() }),
      404,
      'RESOURCE_NOT_FOUND',
    );
    const after = await countByType(api.db);
    // Failed requests leave no idempotency lock behind, and nothing else.
    expect(after).toEqual(before);
  });
});
