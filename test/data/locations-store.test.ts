import { randomUUID } from 'node:crypto';
import type { AuditEntry } from '../../services/audit/model';
import type { LocationChange } from '../../services/locations/domain';
import { locationFromItem, type LocationRecord } from '../../services/locations/model';
import { listLocations, putLocation, saveLocation as stageLocation } from '../../services/locations/store';
import type { Db } from '../../services/shared/ddb/client';
import { TransactionUnit } from '../../services/shared/ddb/unit-of-work';
import { ConcurrentChangeError } from '../../services/shared/domain/conflict';
import { ValidationError } from '../../services/shared/errors';
import { scanTable } from '../support/api';
import { createTestTable } from '../support/table';

/** The locations store on DynamoDB Local: one transaction per change, search scopes, versions. */
let db: Db;
const ORG = '55555555-5555-4555-8555-555555555555';
const at = '2026-03-02T08:00:00.000Z';

const audit = (entityId: string): AuditEntry => ({
  id: randomUUID(),
  organizationId: ORG,
  occurredAt: at,
  actor: { type: 'API_KEY', keyId: 'k', label: 'Store test' },
  action: 'location.updated',
  entity: { type: 'location', id: entityId },
  requestId: 'req',
});

const record = (name: string, over: Partial<LocationRecord> = {}): LocationRecord => ({
  id: randomUUID(),
  organizationId: ORG,
  name,
  address: null,
  archived: false,
  archivedAt: null,
  contactIds: [],
  qrRotatedAt: null,
  version: 1,
  createdAt: at,
  updatedAt: at,
  ...over,
});

const searchScopesOf = async (id: string) =>
  [...new Set((await scanTable(db)).filter((i) => i.itemType === 'SearchIndex' && i.entityId === id).map((i) => (i.PK as string).split('#SEARCH#')[1]))];

/** Stages one change in a fresh unit of work and commits it, as the area handler does. */
async function saveLocation(change: LocationChange): Promise<void> {
  const unit = new TransactionUnit(db);
  stageLocation(unit, change);
  await unit.commit();
}

beforeAll(async () => {
  db = await createTestTable();
});

describe('saveLocation', () => {
  it('moves the search words to the archived scope and back', async () => {
    const created = record('Lighthouse Point');
    await saveLocation({ after: created, audit: audit(created.id) });
    expect(await searchScopesOf(created.id)).toEqual(['location']);
    const archived = { ...created, archived: true, archivedAt: at, version: 2 };
    await saveLocation({ before: created, after: archived, audit: audit(created.id) });
    expect(await searchScopesOf(created.id)).toEqual(['location_archived']);
    await saveLocation({ before: archived, after: { ...archived, archived: false, archivedAt: null, version: 3 }, audit: audit(created.id) });
    expect(await searchScopesOf(created.id)).toEqual(['location']);
  });

  it('changes a location written before versions only as version 1', async () => {
    const id = randomUUID();
    await putLocation(db, { id, organizationId: ORG, name: 'Old Item', createdAt: at, updatedAt: at });
    const current = record('Old Item', { id });
    await expect(saveLocation({ before: { ...current, version: 2 }, after: { ...current, name: 'X', version: 3 }, audit: audit(id) })).rejects.toBeInstanceOf(ConcurrentChangeError);
    await saveLocation({ before: current, after: { ...current, name: 'New Item', version: 2 }, audit: audit(id) });
    const stored = (await scanTable(db)).find((i) => i.itemType === 'Location' && i.id === id)!;
    expect(locationFromItem(stored)).toMatchObject({ name: 'New Item', version: 2 });
  });

  it('writes nothing, audit included, when a contact check fails', async () => {
    const created = record('Checked', { contactIds: [randomUUID()] });
    const entry = audit(created.id);
    await expect(saveLocation({ after: created, audit: entry, contactChecks: [{ contactId: created.contactIds[0], pointer: '/contactIds/0' }] })).rejects.toBeInstanceOf(ValidationError);
    const items = await scanTable(db);
    expect(items.filter((i) => i.id === created.id || i.id === entry.id || i.entityId === created.id)).toEqual([]);
  });
});

describe('listLocations', () => {
  it('pages the active and the archived partitions by name, one Query each', async () => {
    const org = randomUUID();
    for (const name of ['b', 'a', 'c']) await saveLocation({ after: { ...record(name), organizationId: org }, audit: { ...audit('x'), organizationId: org } });
    const archived = { ...record('z', { archived: true, archivedAt: at }), organizationId: org };
    await saveLocation({ after: archived, audit: { ...audit(archived.id), organizationId: org } });
    const first = await listLocations(db, org, { archived: false, limit: 2 });
    expect(first.items.map((l) => l.name)).toEqual(['a', 'b']);
    const second = await listLocations(db, org, { archived: false, limit: 2, after: first.next });
    expect(second.items.map((l) => l.name)).toEqual(['c']);
    expect(second.next).toBeUndefined();
    expect((await listLocations(db, org, { archived: true, limit: 10 })).items.map((l) => l.name)).toEqual(['z']);
  });
});
