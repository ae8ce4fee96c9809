import { randomUUID } from 'node:crypto';
import { locationMaterialResponseSchema, stockAdjustmentResponseSchema } from '../../services/materials/schemas';
import { call, countByType, expectParameters, expectPointers, expectProblem, itemsOfType, startApi, tableFingerprint, walkPages, withQuery, type ApiFixture, type ApiResponse } from '../support/api';
import { auditOf, createLocation, createMaterial, read, send, sent } from './locations-fixture';

/**
 * Location stock links and the append-only stock ledger: stock is the sum of a pair's
 * adjustments, kept on the link in the same transaction; it never goes below zero unless the
 * adjustment says why; concurrent adjustments keep it exact.
 */
let api: ApiFixture;
let site: any;
let soap: any;

const linkPath = (locationId: string, materialId: string) => `/locations/${locationId}/materials/${materialId}`;
const adjust = (body: Record<string, unknown>, options: Parameters<typeof send>[4] = {}) => send(api, 'POST', '/materials/stock-adjustments', body, options);
const stockOf = async (locationId: string, materialId: string) =>
  (await read(api, `/locations/${locationId}/materials`)).body.items.find((l: { materialId: string }) => l.materialId === materialId)?.stock;
const ledger = async (query: Record<string, string | number>): Promise<any[]> =>
  (await walkPages(withQuery(`${api.orgUrl()}/materials/stock-adjustments`, query), api.demo.keys.admin)).flatMap((p) => p.body.items);

/** A fresh linked pair, so that each case starts from stock 0. */
async function linkedPair(): Promise<{ locationId: string; materialId: string }> {
  const location = await createLocation(api, { name: `Store ${randomUUID().slice(0, 8)}` });
  const material = await createMaterial(api, { name: `Item ${randomUUID().slice(0, 8)}`, unit: 'pcs' });
  await sent(api, 'PUT', linkPath(location.id, material.id));
  return { locationId: location.id, materialId: material.id };
}

beforeAll(async () => {
  api = await startApi();
  site = await createLocation(api, { name: 'Stock Depot' });
  soap = await createMaterial(api, { name: 'Hand soap', preferredOrderQuantity: 24, reorderLevel: 6 });
});
afterAll(() => api?.close());

describe('PUT /locations/{locationId}/materials/{materialId}', () => {
  it('links with stock 0: stock data only, no article or ordering data', async () => {
    const res = await sent(api, 'PUT', linkPath(site.id, soap.id));
    expect(res.body).toEqual({ locationId: site.id, materialId: soap.id, stock: 0, linkedAt: expect.any(String), lastAdjustedAt: null, updatedAt: expect.any(String) });
    expect(locationMaterialResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.headers.get('etag')).toBe(`"location-material:${site.id}:${soap.id}:${Date.parse(res.body.linkedAt)}:v1"`);
    const again = await sent(api, 'PUT', linkPath(site.id, soap.id));
    expect(again.body).toEqual(res.body);
    expect((await auditOf(api, soap.id)).filter((a) => a.action === 'material.linked_to_location')).toEqual([
      expect.objectContaining({ references: { locationId: site.id }, requestId: res.requestId }),
    ]);
    const [stored] = (await itemsOfType(api.db, 'StockLink')).filter((l) => l.materialId === soap.id);
    expect(Object.keys(stored)).not.toEqual(expect.arrayContaining(['preferredOrderQuantityMilli']));
    expect(Object.keys(stored).filter((k) => /order|reorder|article|supplier/i.test(k))).toEqual([]);
  });

  it("answers 404 for another organization's location or material, and for unknown ids", async () => {
    const theirMaterial = await call('POST', `${api.orgUrl(api.demo.otherOrganizationId)}/materials`, { token: api.demo.keys.otherOrganization, idempotencyKey: randomUUID(), body: { name: 'Globex soap' } });
    expectProblem(await send(api, 'PUT', linkPath(site.id, theirMaterial.body.id)), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await send(api, 'PUT', linkPath(api.demo.otherOrganizationLocations[0], soap.id)), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await send(api, 'PUT', linkPath(randomUUID(), soap.id)), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await read(api, `/locations/${api.demo.otherOrganizationLocations[0]}/materials`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('honours If-Match when sent: against the link when it exists, and 412 when there is no link to match', async () => {
    const location = await createLocation(api, { name: `Guarded ${randomUUID().slice(0, 8)}` });
    const material = await createMaterial(api, { name: `Guarded item ${randomUUID().slice(0, 8)}` });
    const path = linkPath(location.id, material.id);
    const v1 = `"location-material:${location.id}:${material.id}:v1"`;
    let before = await tableFingerprint(api.db);
    // No link yet: no If-Match can match, not even the ETag the new link would get.
    for (const ifMatch of ['"garbage"', v1]) expectProblem(await send(api, 'PUT', path, undefined, { ifMatch }), 412, 'ETAG_MISMATCH');
    expect(await tableFingerprint(api.db)).toBe(before);
    expect(await stockOf(location.id, material.id)).toBeUndefined();

    const linked = await sent(api, 'PUT', path);
    await sent(api, 'POST', '/materials/stock-adjustments', { locationId: location.id, materialId: material.id, quantityChange: 3, reason: 'Delivery' }, 201);
    const current = `"location-material:${location.id}:${material.id}:${Date.parse(linked.body.linkedAt)}:v2"`;
    before = await tableFingerprint(api.db);
    for (const ifMatch of ['"garbage"', linked.headers.get('etag')!]) expectProblem(await send(api, 'PUT', path, undefined, { ifMatch }), 412, 'ETAG_MISMATCH');
    expect(await tableFingerprint(api.db)).toBe(before);
    const same = await sent(api, 'PUT', path, undefined, 200, { ifMatch: current });
    expect(same.headers.get('etag')).toBe(current);
    expect(same.body).toMatchObject({ stock: 3, linkedAt: linked.body.linkedAt });
  });

  it('refuses a new link to an archived material (422 at materialId, nothing written); existing links stay and still take adjustments', async () => {
    const location = await createLocation(api, { name: `Phase-out ${randomUUID().slice(0, 8)}` });
    const kept = await createMaterial(api, { name: `Old stock ${randomUUID().slice(0, 8)}` });
    const fresh = await createMaterial(api, { name: `Old unlinked ${randomUUID().slice(0, 8)}` });
    const link = await sent(api, 'PUT', linkPath(location.id, kept.id));
    await sent(api, 'POST', '/materials/stock-adjustments', { locationId: location.id, materialId: kept.id, quantityChange: 5, reason: 'Delivery' }, 201);
    for (const m of [kept, fresh]) await sent(api, 'DELETE', `/materials/${m.id}`);

    const before = await tableFingerprint(api.db);
    expectParameters(await send(api, 'PUT', linkPath(location.id, fresh.id)), ['materialId']);
    expect(await tableFingerprint(api.db)).toBe(before);
    expect(await stockOf(location.id, fresh.id)).toBeUndefined();

    // The existing link stays; repeating it answers it unchanged.
    const again = await sent(api, 'PUT', linkPath(location.id, kept.id));
    expect(again.body).toMatchObject({ stock: 5, linkedAt: link.body.linkedAt });
    // Writing off the remaining stock of an archived material is allowed.
    const writeOff = await sent(api, 'POST', '/materials/stock-adjustments', { locationId: location.id, materialId: kept.id, quantityChange: -5, reason: 'Phased out' }, 201);
    expect(writeOff.body).toMatchObject({ stockBefore: 5, stockAfter: 0 });

    // Restored, it can be linked again.
    const restored = await read(api, `/materials/${fresh.id}`);
    await sent(api, 'PATCH', `/materials/${fresh.id}`, { archived: false }, 200, { ifMatch: restored.headers.get('etag')! });
    expect((await sent(api, 'PUT', linkPath(location.id, fresh.id))).body.stock).toBe(0);
  });

  it('refuses a new link to an archived location (422 at locationId, nothing written); its existing links stay; restored, it links again', async () => {
    const location = await createLocation(api, { name: `Closed site ${randomUUID().slice(0, 8)}` });
    const kept = await createMaterial(api, { name: `Site stock ${randomUUID().slice(0, 8)}` });
    const fresh = await createMaterial(api, { name: `Site newcomer ${randomUUID().slice(0, 8)}` });
    const link = await sent(api, 'PUT', linkPath(location.id, kept.id));
    await sent(api, 'POST', '/materials/stock-adjustments', { locationId: location.id, materialId: kept.id, quantityChange: 4, reason: 'Delivery' }, 201);
    const archived = await sent(api, 'DELETE', `/locations/${location.id}`);

    const before = await tableFingerprint(api.db);
    const refused = await send(api, 'PUT', linkPath(location.id, fresh.id));
    expectParameters(refused, ['locationId']);
    expect(refused.body.errors).toEqual([{ parameter: 'locationId', detail: `Location ${location.id} is archived: a material cannot be linked to an archived location; restore it first (PATCH archived: false).` }]);
    expect(refused.headers.get('etag')).toBeNull();
    expect(await tableFingerprint(api.db)).toBe(before);
    // An archived material as well: both parameters are named at once, and nothing is written.
    const archivedMaterial = await sent(api, 'DELETE', `/materials/${fresh.id}`);
    const beforeBoth = await tableFingerprint(api.db);
    expectParameters(await send(api, 'PUT', linkPath(location.id, fresh.id)), ['locationId', 'materialId']);
    expect(await tableFingerprint(api.db)).toBe(beforeBoth);
    const restoredMaterial = await sent(api, 'PATCH', `/materials/${fresh.id}`, { archived: false }, 200, { ifMatch: archivedMaterial.headers.get('etag')! });
    expect(restoredMaterial.body.archived).toBe(false);
    expect(await stockOf(location.id, fresh.id)).toBeUndefined();
    expect((await itemsOfType(api.db, 'StockLink')).filter((l) => l.materialId === fresh.id)).toEqual([]);
    expect((await auditOf(api, fresh.id)).map((a) => a.action)).toEqual(['material.created', 'material.archived', 'material.updated']);

    // The existing link stays: repeating it answers it unchanged (no new version, no audit entry).
    const keptLink = async () => (await itemsOfType(api.db, 'StockLink')).filter((l) => l.materialId === kept.id);
    const storedBefore = await keptLink();
    const again = await send(api, 'PUT', linkPath(location.id, kept.id));
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe(`"location-material:${location.id}:${kept.id}:${Date.parse(link.body.linkedAt)}:v2"`);
    expect(again.body).toMatchObject({ locationId: location.id, materialId: kept.id, stock: 4, linkedAt: link.body.linkedAt });
    expect(await keptLink()).toEqual(storedBefore);
    expect((await auditOf(api, kept.id)).filter((a) => a.action === 'material.linked_to_location')).toHaveLength(1);

    // Restored, the location takes new links again.
    await sent(api, 'PATCH', `/locations/${location.id}`, { archived: false }, 200, { ifMatch: archived.headers.get('etag')! });
    const linked = await sent(api, 'PUT', linkPath(location.id, fresh.id));
    expect(linked.body).toMatchObject({ locationId: location.id, materialId: fresh.id, stock: 0 });
    expect(linked.headers.get('etag')).toBe(`"location-material:${location.id}:${fresh.id}:${Date.parse(linked.body.linkedAt)}:v1"`);
    expect((await auditOf(api, fresh.id)).filter((a) => a.action === 'material.linked_to_location')).toEqual([
      expect.objectContaining({ references: { locationId: location.id }, requestId: linked.requestId }),
    ]);
  });

  it('lists the links of a location with their stock, in pages', async () => {
    const location = await createLocation(api, { name: 'Shelf' });
    const materials = await Promise.all([1, 2, 3].map((i) => createMaterial(api, { name: `Shelf item ${i}` })));
    for (const m of materials) await sent(api, 'PUT', linkPath(location.id, m.id));
    const pages = await walkPages(withQuery(`${api.orgUrl()}/locations/${location.id}/materials`, { limit: 2 }), api.demo.keys.readOnly);
    expect(pages).toHaveLength(2);
    expect(pages.flatMap((p) => p.body.items.map((l: { materialId: string }) => l.materialId)).sort()).toEqual(materials.map((m) => m.id).sort());
  });
});

describe('POST /materials/stock-adjustments', () => {
  it('appends an adjustment and moves the stock in the same transaction, with its audit entry', async () => {
    const pair = await linkedPair();
    const res = await adjust({ ...pair, quantityChange: 12.5, reason: 'Delivery note 4711' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), ...pair, type: 'ADJUSTMENT', quantityChange: 12.5, stockBefore: 0, stockAfter: 12.5, reason: 'Delivery note 4711', negativeStockReason: null, recordedAt: expect.any(String) });
    expect(stockAdjustmentResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.headers.get('etag')).toBe(`"stock-adjustment:${res.body.id}:v1"`);
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/materials/stock-adjustments?locationId=${pair.locationId}&materialId=${pair.materialId}`);
    expect(await stockOf(pair.locationId, pair.materialId)).toBe(12.5);
    const [audit] = await auditOf(api, res.body.id);
    expect(audit).toMatchObject({
      action: 'stock_adjustment.created',
      entity: { type: 'stock_adjustment', id: res.body.id },
      references: pair,
      reason: 'Delivery note 4711',
      after: { quantityChange: 12.5, stockBefore: 0, stockAfter: 12.5, negativeStockReason: null },
      requestId: res.requestId,
    });
  });

  it('keeps decimal sums exact', async () => {
    const pair = await linkedPair();
    for (let i = 0; i < 10; i += 1) await sent(api, 'POST', '/materials/stock-adjustments', { ...pair, quantityChange: 0.1, reason: 'Refill' });
    expect(await stockOf(pair.locationId, pair.materialId)).toBe(1);
  });

  it('refuses a decrease below zero without negativeStockReason (422 at /quantityChange), and writes nothing', async () => {
    const pair = await linkedPair();
    await sent(api, 'POST', '/materials/stock-adjustments', { ...pair, quantityChange: 3, reason: 'Count' });
    const before = await countByType(api.db);
    const res = await adjust({ ...pair, quantityChange: -5, reason: 'Used for the lobby' });
    expectPointers(res, ['/quantityChange']);
    expect(res.body).toMatchObject({ currentStock: 3, resultingStock: -2 });
    expect(await countByType(api.db)).toEqual(before);
    expect(await stockOf(pair.locationId, pair.materialId)).toBe(3);
  });

  it('lets the stock go negative when the adjustment says why, and accepts any increase afterwards', async () => {
    const pair = await linkedPair();
    const neg = await sent(api, 'POST', '/materials/stock-adjustments', { ...pair, quantityChange: -4, reason: 'Used on site', negativeStockReason: 'Delivery not yet booked' });
    expect(neg.body).toMatchObject({ stockBefore: 0, stockAfter: -4, negativeStockReason: 'Delivery not yet booked' });
    expect((await auditOf(api, neg.body.id))[0].after).toMatchObject({ stockAfter: -4, negativeStockReason: 'Delivery not yet booked' });
    const up = await sent(api, 'POST', '/materials/stock-adjustments', { ...pair, quantityChange: 1, reason: 'Partial delivery' });
    expect(up.body).toMatchObject({ stockBefore: -4, stockAfter: -3 });
    expectPointers(await adjust({ ...pair, quantityChange: -1, reason: 'More use' }), ['/quantityChange']);
  });

  it('validates the body: zero, too many decimals, missing reason, unknown fields', async () => {
    const pair = await linkedPair();
    expectPointers(await adjust({ ...pair, quantityChange: 0, reason: 'x' }), ['/quantityChange']);
    expectPointers(await adjust({ ...pair, quantityChange: 1.0001, reason: 'x' }), ['/quantityChange']);
    const before = await countByType(api.db);
    expectPointers(await adjust({ ...pair, quantityChange: 0.30000000000001, reason: 'x' }), ['/quantityChange']);
    expect(await countByType(api.db)).toEqual(before);
    expectPointers(await adjust({ ...pair, quantityChange: 1 }), ['/reason']);
    expectPointers(await adjust({ ...pair, quantityChange: 1, reason: 'x', stock: 5 }), ['/stock']);
    expectPointers(await adjust({ locationId: 'x', materialId: pair.materialId, quantityChange: 1, reason: 'x' }), ['/locationId']);
  });

  it("rejects another organization's location or material with 422 at the field, and an unlinked pair at /materialId", async () => {
    const pair = await linkedPair();
    const theirMaterial = await call('POST', `${api.orgUrl(api.demo.otherOrganizationId)}/materials`, { token: api.demo.keys.otherOrganization, idempotencyKey: randomUUID(), body: { name: 'Theirs' } });
    const unlinked = await createMaterial(api, { name: 'Never linked' });
    const before = await countByType(api.db);
    expectPointers(await adjust({ locationId: api.demo.otherOrganizationLocations[0], materialId: pair.materialId, quantityChange: 1, reason: 'x' }), ['/locationId']);
    expectPointers(await adjust({ locationId: pair.locationId, materialId: theirMaterial.body.id, quantityChange: 1, reason: 'x' }), ['/materialId']);
    expectPointers(await adjust({ locationId: api.demo.otherOrganizationLocations[0], materialId: theirMaterial.body.id, quantityChange: 1, reason: 'x' }), ['/locationId', '/materialId']);
    const res = await adjust({ locationId: pair.locationId, materialId: unlinked.id, quantityChange: 1, reason: 'x' });
    expectPointers(res, ['/materialId']);
    expect(res.body.errors[0].detail).toMatch(/not linked/);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('needs an Idempotency-Key; a replay answers the original and changes the stock once', async () => {
    const pair = await linkedPair();
    expectProblem(await adjust({ ...pair, quantityChange: 1, reason: 'x' }, { idempotencyKey: undefined }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    const key = randomUUID();
    const first = await adjust({ ...pair, quantityChange: 2, reason: 'Delivery' }, { idempotencyKey: key });
    const again = await adjust({ ...pair, quantityChange: 2, reason: 'Delivery' }, { idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await stockOf(pair.locationId, pair.materialId)).toBe(2);
    expectProblem(await adjust({ ...pair, quantityChange: 3, reason: 'Delivery' }, { idempotencyKey: key }), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await stockOf(pair.locationId, pair.materialId)).toBe(2);
  });

  it('needs materials:write', async () => {
    const pair = await linkedPair();
    expectProblem(await adjust({ ...pair, quantityChange: 1, reason: 'x' }, { token: api.demo.keys.readOnly }), 403, 'SCOPE_REQUIRED');
  });
});

describe('concurrent adjustments', () => {
  it('keep the stock exact: every change lands once and the ledger chains stockBefore to stockAfter', async () => {
    const pair = await linkedPair();
    const changes = [5, -1, 2, 3, -2, 4, 1, -3, 6, 2, 1, -1];
    const results = await Promise.all(changes.map((quantityChange, i) => adjust({ ...pair, quantityChange, reason: `parallel ${i}`, negativeStockReason: 'Order of arrival is not known' })));
    expect(results.map((r) => r.status)).toEqual(changes.map(() => 201));
    const total = changes.reduce((a, b) => a + b, 0);
    expect(await stockOf(pair.locationId, pair.materialId)).toBe(total);
    const lines = await ledger(pair);
    expect(lines).toHaveLength(changes.length);
    let stock = 0;
    for (const line of lines) {
      expect(line.stockBefore).toBe(stock);
      stock = line.stockAfter;
    }
    expect(stock).toBe(total);
    expect(new Set(lines.map((l) => l.recordedAt)).size).toBe(lines.length);
  });

  it('never take the stock below zero without a reason: of more decreases than stock, exactly enough commit', async () => {
    const pair = await linkedPair();
    await sent(api, 'POST', '/materials/stock-adjustments', { ...pair, quantityChange: 5, reason: 'Start' });
    const results: ApiResponse[] = await Promise.all(Array.from({ length: 9 }, (_, i) => adjust({ ...pair, quantityChange: -1, reason: `take ${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    for (const r of results.filter((x) => x.status !== 201)) expectPointers(r, ['/quantityChange']);
    expect(await stockOf(pair.locationId, pair.materialId)).toBe(0);
    expect((await auditOf(api, pair.materialId)).length).toBeGreaterThan(0);
    const audits = (await itemsOfType(api.db, 'AuditEntry')).filter((a) => a.action === 'stock_adjustment.created' && a.references?.locationId === pair.locationId);
    expect(audits).toHaveLength(6);
  });
});

describe('GET /materials/stock-adjustments', () => {
  let a: { locationId: string; materialId: string };
  let b: { locationId: string; materialId: string };
  let times: string[];

  beforeAll(async () => {
    a = await linkedPair();
    b = { locationId: a.locationId, materialId: (await createMaterial(api, { name: 'Second item' })).id };
    await sent(api, 'PUT', linkPath(b.locationId, b.materialId));
    times = [];
    for (const [pair, q] of [[a, 1], [b, 2], [a, 3], [b, 4]] as const) {
      times.push((await sent(api, 'POST', '/materials/stock-adjustments', { ...pair, quantityChange: q, reason: `r${q}` })).body.recordedAt);
    }
  });

  it('filters by location, material or both, oldest first, in pages', async () => {
    const q = (lines: any[]) => lines.map((l) => l.quantityChange);
    expect(q(await ledger({ locationId: a.locationId, limit: 1 }))).toEqual([1, 2, 3, 4]);
    expect(q(await ledger({ materialId: b.materialId, limit: 1 }))).toEqual([2, 4]);
    expect(q(await ledger({ ...a, limit: 1 }))).toEqual([1, 3]);
    const all = await ledger({ limit: 200 });
    expect(all.map((l) => l.recordedAt)).toEqual([...all.map((l) => l.recordedAt)].sort());
    expect(q(all.filter((l) => l.locationId === a.locationId))).toEqual([1, 2, 3, 4]);
  });

  it('bounds by recordedAt: from inclusive, to exclusive', async () => {
    expect((await ledger({ locationId: a.locationId, from: times[1], to: times[3] })).map((l) => l.quantityChange)).toEqual([2, 3]);
    expect((await ledger({ ...a, from: times[0], to: times[2] })).map((l) => l.quantityChange)).toEqual([1]);
  });

  it("shows nothing of another organization's ledger and rejects bad filters", async () => {
    const theirs = await walkPages(`${api.orgUrl(api.demo.otherOrganizationId)}/materials/stock-adjustments`, api.demo.keys.otherOrganization);
    expect(theirs.flatMap((p) => p.body.items)).toEqual([]);
    const probe = await call('GET', withQuery(`${api.orgUrl(api.demo.otherOrganizationId)}/materials/stock-adjustments`, { locationId: a.locationId }), { token: api.demo.keys.otherOrganization });
    expect(probe.body.items).toEqual([]);
    expectParameters(await call('GET', withQuery(`${api.orgUrl()}/materials/stock-adjustments`, { from: times[2], to: times[1] }), { token: api.demo.keys.admin }), ['to']);
    expectParameters(await call('GET', withQuery(`${api.orgUrl()}/materials/stock-adjustments`, { materialId: 'x' }), { token: api.demo.keys.admin }), ['materialId']);
  });
});

describe('DELETE /locations/{locationId}/materials/{materialId}', () => {
  it('writes the remaining stock off to zero in the ledger, removes the link, and relinks from zero', async () => {
    const pair = await linkedPair();
    await sent(api, 'POST', '/materials/stock-adjustments', { ...pair, quantityChange: 7, reason: 'Delivery' });
    const res = await send(api, 'DELETE', linkPath(pair.locationId, pair.materialId));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await stockOf(pair.locationId, pair.materialId)).toBeUndefined();
    const lines = await ledger(pair);
    expect(lines.at(-1)).toMatchObject({ type: 'UNLINK_WRITE_OFF', quantityChange: -7, stockBefore: 7, stockAfter: 0 });
    const unlinkAudit = (await auditOf(api, pair.materialId)).find((x) => x.action === 'material.unlinked_from_location')!;
    expect(unlinkAudit).toMatchObject({ references: { locationId: pair.locationId, stockAdjustmentId: lines.at(-1).id }, after: { writtenOffStock: 7 }, requestId: res.requestId });
    expectProblem(await send(api, 'DELETE', linkPath(pair.locationId, pair.materialId)), 404, 'RESOURCE_NOT_FOUND');
    expectPointers(await adjust({ ...pair, quantityChange: 1, reason: 'x' }), ['/materialId']);
    expect((await sent(api, 'PUT', linkPath(pair.locationId, pair.materialId))).body.stock).toBe(0);
  });

  it('writes no ledger line when the stock is zero, and honours If-Match', async () => {
    const pair = await linkedPair();
    const etag = (await sent(api, 'PUT', linkPath(pair.locationId, pair.materialId))).headers.get('etag')!;
    expectProblem(await send(api, 'DELETE', linkPath(pair.locationId, pair.materialId), undefined, { ifMatch: etag.replace(':v1"', ':v9"') }), 412, 'ETAG_MISMATCH');
    expect((await send(api, 'DELETE', linkPath(pair.locationId, pair.materialId), undefined, { ifMatch: etag })).status).toBe(204);
    expect(await ledger(pair)).toEqual([]);
    // Linked again, it is another link (stock 0, version 1 again): the first link's ETag no longer matches it.
    await new Promise((resolve) => setTimeout(resolve, 2));
    const relinked = await sent(api, 'PUT', linkPath(pair.locationId, pair.materialId));
    expect(relinked.headers.get('etag')).not.toBe(etag);
    expectProblem(await send(api, 'DELETE', linkPath(pair.locationId, pair.materialId), undefined, { ifMatch: etag }), 412, 'ETAG_MISMATCH');
    expect(await stockOf(pair.locationId, pair.materialId)).toBe(0);
  });
});
