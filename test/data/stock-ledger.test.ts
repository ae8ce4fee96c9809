import { randomUUID } from 'node:crypto';
import { putLocation } from '../../services/locations/public';
import { adjustStock, createMaterial, linkMaterial, unlinkMaterial, type MaterialPorts } from '../../services/materials/domain';
import { getLink, listAdjustments, materialsStore, saveAdjustment } from '../../services/materials/store';
import { ConcurrentChangeError } from '../../services/shared/domain/conflict';
import { inUnitOfWork, TransactionUnit, type UnitOfWork } from '../../services/shared/ddb/unit-of-work';
import type { Principal } from '../../services/shared/auth/principal';
import type { Db } from '../../services/shared/ddb/client';
import { scanTable } from '../support/api';
import { createTestTable } from '../support/table';

/**
 * The stock ledger on DynamoDB Local: the link's stock is the sum of the pair's adjustments
 * under concurrency, a stale link never commits, and the ledger Queries bound time exactly.
 */
let db: Db;
const ORG = '44444444-4444-4444-8444-444444444444';
const principal: Principal = { organizationId: ORG, keyId: 'ledger', keyLabel: 'Ledger test', environment: 'TEST', scopes: new Set(['materials:write']) };
const actor = { principal, requestId: 'req-ledger' };
const portsOf = (unit: UnitOfWork, now = () => new Date()): MaterialPorts => ({ store: materialsStore(db, unit), now, newId: randomUUID });
/** Runs a use case as the area handler does: in a unit of work, again while a read went stale. */
const run = <T>(work: (ports: MaterialPorts) => Promise<T>, now?: () => Date) => inUnitOfWork(db, (unit) => work(portsOf(unit, now)));

async function pair(): Promise<{ locationId: string; materialId: string }> {
  const locationId = randomUUID();
  const at = new Date().toISOString();
  await putLocation(db, { id: locationId, organizationId: ORG, name: 'Store', createdAt: at, updatedAt: at });
  const material = await run((ports) => createMaterial(ports, actor, { name: 'Item' }));
  await run((ports) => linkMaterial(ports, actor, locationId, material.id));
  return { locationId, materialId: material.id };
}

beforeAll(async () => {
  db = await createTestTable();
});

describe('adjustStock under concurrency', () => {
  it('keeps the stock equal to the sum of the committed adjustments', async () => {
    const p = await pair();
    const changes = Array.from({ length: 16 }, (_, i) => (i % 3 === 0 ? -2 : 3));
    await Promise.all(changes.map((quantityChange) => run((ports) => adjustStock(ports, actor, { ...p, quantityChange, reason: 'r', negativeStockReason: 'order unknown' }), undefined)));
    const link = await getLink(db, ORG, p.locationId, p.materialId);
    const lines = (await listAdjustments(db, ORG, { ...p, limit: 200 })).items;
    expect(lines).toHaveLength(16);
    expect(link!.stockMilli).toBe(lines.reduce((sum, l) => sum + l.quantityChangeMilli, 0));
    expect(link!.stockMilli).toBe(changes.reduce((a, b) => a + b, 0) * 1000);
    expect(link!.version).toBe(17);
  });

  it('never commits an adjustment computed from a stale link', async () => {
    const p = await pair();
    const stale = (await getLink(db, ORG, p.locationId, p.materialId))!;
    await run((ports) => adjustStock(ports, actor, { ...p, quantityChange: 1, reason: 'first' }));
    const adjustment = { id: randomUUID(), organizationId: ORG, ...p, type: 'ADJUSTMENT' as const, quantityChangeMilli: 5000, stockBeforeMilli: 0, stockAfterMilli: 5000, reason: 'stale', negativeStockReason: null, recordedAt: new Date().toISOString() };
    const audit = { id: randomUUID(), organizationId: ORG, occurredAt: adjustment.recordedAt, actor: { type: 'API_KEY' as const, keyId: 'k', label: 'l' }, action: 'stock_adjustment.created', entity: { type: 'stock_adjustment', id: adjustment.id }, requestId: 'r' };
    const unit = new TransactionUnit(db);
    saveAdjustment(unit, { before: stale, after: { ...stale, stockMilli: 5000, version: stale.version + 1 }, adjustment, audit });
    await expect(unit.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
    const items = await scanTable(db);
    expect(items.find((i) => i.id === adjustment.id)).toBeUndefined();
    expect(items.find((i) => i.id === audit.id)).toBeUndefined();
    expect((await getLink(db, ORG, p.locationId, p.materialId))!.stockMilli).toBe(1000);
  });

  it('orders the ledger by the order of the stock changes, even when the clock goes back', async () => {
    const p = await pair();
    const fixed = () => new Date('2026-01-01T00:00:00.000Z');
    await run((ports) => adjustStock(ports, actor, { ...p, quantityChange: 1, reason: 'a' }), fixed);
    await run((ports) => adjustStock(ports, actor, { ...p, quantityChange: 2, reason: 'b' }), fixed);
    const lines = (await listAdjustments(db, ORG, { ...p, limit: 10 })).items;
    expect(lines.map((l) => [l.quantityChangeMilli, l.stockAfterMilli])).toEqual([[1000, 1000], [2000, 3000]]);
    expect(lines[1].recordedAt > lines[0].recordedAt).toBe(true);
  });

  it('lets an unlink and adjustments race without losing stock from the ledger', async () => {
    const p = await pair();
    await run((ports) => adjustStock(ports, actor, { ...p, quantityChange: 10, reason: 'start' }));
    const results = await Promise.allSettled([
      run((ports) => adjustStock(ports, actor, { ...p, quantityChange: 1, reason: 'race' })),
      run((ports) => unlinkMaterial(ports, actor, p.locationId, p.materialId, undefined)),
      run((ports) => adjustStock(ports, actor, { ...p, quantityChange: 2, reason: 'race' })),
    ]);
    expect(results[1].status).toBe('fulfilled');
    const lines = (await listAdjustments(db, ORG, { ...p, limit: 10 })).items;
    // Whatever committed before the unlink is written off by it; nothing after it committed.
    expect(lines.at(-1)).toMatchObject({ type: 'UNLINK_WRITE_OFF', stockAfterMilli: 0 });
    expect(lines.reduce((sum, l) => sum + l.quantityChangeMilli, 0)).toBe(0);
    expect(await getLink(db, ORG, p.locationId, p.materialId)).toBeUndefined();
  });
});

describe('linkMaterial against a location archived meanwhile', () => {
  /** A location written as the seed writes them (no `archived` yet: active). */
  async function site(): Promise<{ id: string; organizationId: string; name: string; createdAt: string; updatedAt: string }> {
    const at = new Date().toISOString();
    const location = { id: randomUUID(), organizationId: ORG, name: 'Closing site', createdAt: at, updatedAt: at };
    await putLocation(db, location);
    return location;
  }
  const archive = (location: Awaited<ReturnType<typeof site>>) => putLocation(db, { ...location, archived: true, archivedAt: new Date().toISOString() } as never);

  it('never commits a new link that the location check refuses: the failed condition is a concurrent change, not an error of the request', async () => {
    const location = await site();
    const material = await run((ports) => createMaterial(ports, actor, { name: 'Item' }));
    // Decided on the active location, committed after it was archived.
    const unit = new TransactionUnit(db);
    await linkMaterial(portsOf(unit), actor, location.id, material.id);
    await archive(location);
    await expect(unit.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
    expect(await getLink(db, ORG, location.id, material.id)).toBeUndefined();
  });

  it('runs again from its reads and answers 422 at the parameter locationId; nothing is written', async () => {
    const location = await site();
    const material = await run((ports) => createMaterial(ports, actor, { name: 'Item' }));
    let reads = 0;
    /** The first read sees the location active; the location is archived right after it, before the commit. */
    const racing = (ports: MaterialPorts): MaterialPorts => ({
      ...ports,
      store: {
        ...ports.store,
        readWriteContext: async (org, locationId, materialId) => {
          const context = await ports.store.readWriteContext(org, locationId, materialId);
          reads += 1;
          if (reads === 1) await archive(location);
          return context;
        },
      },
    });
    const ofMaterial = async () => (await scanTable(db)).filter((i) => i.materialId === material.id || i.entity?.id === material.id || i.id === material.id);
    const before = await ofMaterial();
    await expect(run((ports) => linkMaterial(racing(ports), actor, location.id, material.id))).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ parameter: 'locationId', detail: expect.stringContaining(`Location ${location.id} is archived`) }],
    });
    expect(reads).toBe(2);
    expect(await getLink(db, ORG, location.id, material.id)).toBeUndefined();
    // No link and no audit entry: the material, its items and its audit trail are as they were.
    expect(await ofMaterial()).toEqual(before);
  });
});

describe('listAdjustments', () => {
  it('bounds recordedAt with from inclusive and to exclusive, on every access pattern, and pages', async () => {
    const p = await pair();
    const at = ['2026-05-01T10:00:00.000Z', '2026-05-01T11:00:00.000Z', '2026-05-01T12:00:00.000Z'];
    for (const [i, t] of at.entries()) await run((ports) => adjustStock(ports, actor, { ...p, quantityChange: i + 1, reason: 'r' }), () => new Date(t));
    const from = at[1];
    const to = at[2];
    for (const filter of [p, { locationId: p.locationId }, { materialId: p.materialId }]) {
      const { items } = await listAdjustments(db, ORG, { ...filter, from, to, limit: 10 });
      expect(items.map((l) => l.recordedAt)).toEqual([at[1]]);
    }
    const first = await listAdjustments(db, ORG, { ...p, limit: 2 });
    expect(first.items).toHaveLength(2);
    const second = await listAdjustments(db, ORG, { ...p, limit: 2, after: first.after });
    expect(second.items.map((l) => l.quantityChangeMilli)).toEqual([3000]);
    expect(second.after).toBeUndefined();
  });

  it('keeps organizations apart', async () => {
    const other = await listAdjustments(db, randomUUID(), { limit: 200 });
    expect(other.items).toEqual([]);
  });
});
