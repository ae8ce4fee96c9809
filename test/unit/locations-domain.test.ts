import { randomBytes, randomUUID } from 'node:crypto';
import type { Contact, ContactChange } from '../../services/locations/contact-store';
import {
  createLocation,
  linkContact,
  locationViews,
  MAX_CONTACTS_PER_LOCATION,
  rotateQr,
  updateLocation,
  type LocationPorts,
  type LocationStore,
} from '../../services/locations/domain';
import type { LocationChange, LocationRecord } from '../../services/locations/store';
import type { Principal } from '../../services/shared/auth/principal';
import type { TxItem } from '../../services/shared/ddb/transaction';
import { EtagMismatchError, ScopeRequiredError, TransactionConflictError, ValidationError } from '../../services/shared/errors';

/** The locations use cases against an in-memory store: the rules, without I/O. */
const ORG = '33333333-3333-4333-8333-333333333333';
const ALL = ['locations:read', 'locations:write', 'locations:qr', 'contacts:read', 'contacts:write'];
const principal = (scopes: readonly string[] = ALL): Principal => ({ organizationId: ORG, keyId: 'k', keyLabel: 'Key', environment: 'TEST', scopes: new Set(scopes) });
const actor = (scopes?: readonly string[]) => ({ principal: principal(scopes), requestId: 'req' });
const noExtra = async () => [] as TxItem[];

class MemoryStore implements LocationStore {
  readonly locations = new Map<string, LocationRecord>();
  readonly contacts = new Map<string, Contact>();
  readonly saved: LocationChange[] = [];
  readonly committed: (readonly TxItem[])[] = [];
  contactReads = 0;
  /** Makes the next N saveLocation calls fail as if the version moved. */
  failNextSaves = 0;

  async getLocation(_org: string, id: string) {
    return this.locations.get(id);
  }
  async getContact(_org: string, id: string) {
    return this.contacts.get(id);
  }
  async getContacts(_org: string, ids: readonly string[]) {
    this.contactReads += 1;
    return new Map(ids.filter((id) => this.contacts.has(id)).map((id) => [id, this.contacts.get(id)!]));
  }
  async getQrReference() {
    return null;
  }
  async saveLocation(change: LocationChange, extra: readonly TxItem[]) {
    if (this.failNextSaves > 0) {
      this.failNextSaves -= 1;
      throw new EtagMismatchError();
    }
    this.saved.push(change);
    this.committed.push(extra);
    this.locations.set(change.after.id, change.after);
  }
  async saveContact(change: ContactChange) {
    this.contacts.set(change.after.id, change.after);
  }
  async commitItems(items: readonly TxItem[]) {
    this.committed.push(items);
  }
}

let store: MemoryStore;
let ports: LocationPorts;

const contact = (name: string): Contact => {
  const c: Contact = { id: randomUUID(), organizationId: ORG, name, email: `${name}@example.com`, phone: null, role: null, version: 1, createdAt: 't', updatedAt: 't' };
  store.contacts.set(c.id, c);
  return c;
};

beforeEach(() => {
  store = new MemoryStore();
  ports = { store, now: () => new Date('2026-03-02T08:00:00Z'), newId: randomUUID, randomBytes, sleep: async () => {} };
});

describe('location views', () => {
  it('carry contact values only for keys with contacts:read, and read no contact otherwise', async () => {
    const c = contact('anna');
    const view = await createLocation(ports, actor(), { name: 'Site', contactIds: [c.id] }, noExtra);
    const [withScope] = await locationViews(store, principal(), [view.location]);
    expect(withScope.contacts).toEqual([c]);
    const reads = store.contactReads;
    const [without] = await locationViews(store, principal(['locations:read']), [view.location]);
    expect('contacts' in without).toBe(false);
    expect(store.contactReads).toBe(reads);
  });
});

describe('createLocation', () => {
  it('needs contacts:write to link contacts, before anything is written', async () => {
    const c = contact('ben');
    await expect(createLocation(ports, actor(['locations:write']), { name: 'Site', contactIds: [c.id] }, noExtra)).rejects.toBeInstanceOf(ScopeRequiredError);
    expect(store.saved).toEqual([]);
  });

  it('points at each unknown or repeated contact id', async () => {
    const c = contact('cleo');
    const missing = randomUUID();
    await expect(createLocation(ports, actor(), { name: 'Site', contactIds: [c.id, missing] }, noExtra)).rejects.toMatchObject({ errors: [{ pointer: '/contactIds/1' }] });
    await expect(createLocation(ports, actor(), { name: 'Site', contactIds: [c.id, c.id] }, noExtra)).rejects.toMatchObject({ errors: [{ pointer: '/contactIds/1' }] });
  });

  it('audits attribute names and no values', async () => {
    const c = contact('dora');
    await createLocation(ports, actor(), { name: 'Private Site', address: 'Home 1', contactIds: [c.id] }, noExtra);
    const { audit } = store.saved[0];
    expect(audit).toMatchObject({ action: 'location.created', changedAttributes: ['address', 'contactIds', 'name'], requestId: 'req' });
    expect(JSON.stringify(audit)).not.toMatch(/Private Site|Home 1|dora/);
  });
});

describe('updateLocation', () => {
  it('commits only the caller items (no new version, no audit) when nothing changes', async () => {
    const { location } = await createLocation(ports, actor(), { name: 'Same' }, noExtra);
    const marker: TxItem = { label: 'idempotency', op: { ConditionCheck: { Key: { PK: 'x', SK: 'y' }, ConditionExpression: 'attribute_exists(PK)' } } };
    const view = await updateLocation(ports, actor(), location.id, `"location:${location.id}:v1"`, { name: 'Same' }, async () => [marker]);
    expect(view.location.version).toBe(1);
    expect(store.saved).toHaveLength(1);
    expect(store.committed.at(-1)).toEqual([marker]);
  });
});

describe('linkContact', () => {
  it(`refuses a ${MAX_CONTACTS_PER_LOCATION + 1}st contact`, async () => {
    const ids = Array.from({ length: MAX_CONTACTS_PER_LOCATION }, (_, i) => contact(`c${i}`).id);
    const { location } = await createLocation(ports, actor(), { name: 'Full', contactIds: ids }, noExtra);
    await expect(linkContact(ports, actor(), location.id, contact('extra').id, undefined, noExtra)).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('rotateQr', () => {
  it('starts again when a concurrent change committed first, and answers the rotation that committed', async () => {
    const { location } = await createLocation(ports, actor(), { name: 'Gate' }, noExtra);
    store.failNextSaves = 2;
    const rotation = await rotateQr(ports, actor(), location.id, noExtra);
    const last = store.saved.at(-1)!;
    expect(last.qr?.next.publicReference).toBe(rotation.publicReference);
    expect(last.audit).toMatchObject({ action: 'location.qr_rotated' });
    expect(Object.keys(last.audit).sort()).toEqual(['action', 'actor', 'entity', 'id', 'occurredAt', 'organizationId', 'requestId']);
    expect(JSON.stringify(rotation)).not.toContain(last.qr!.next.secretHash);
  });

  it('gives up with 503 TRANSACTION_CONFLICT after repeated conflicts', async () => {
    const { location } = await createLocation(ports, actor(), { name: 'Gate' }, noExtra);
    store.failNextSaves = 99;
    await expect(rotateQr(ports, actor(), location.id, noExtra)).rejects.toBeInstanceOf(TransactionConflictError);
  });
});
