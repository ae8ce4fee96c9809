import { randomBytes, randomUUID } from 'node:crypto';
import {
  createLocation,
  linkContact,
  locationViews,
  MAX_CONTACTS_PER_LOCATION,
  rotateQr,
  updateLocation,
  type Contact,
  type ContactChange,
  type LocationChange,
  type LocationPorts,
  type LocationRecord,
  type LocationStore,
} from '../../services/locations/domain';
import type { Principal } from '../../services/shared/auth/principal';
import type { TxItem } from '../../services/shared/ddb/transaction';
import { ConcurrentChangeError, retryOnConflict } from '../../services/shared/domain/conflict';
import { ScopeRequiredError, TransactionConflictError, ValidationError } from '../../services/shared/errors';

/** The locations use cases against an in-memory store: the rules, without I/O. */
const ORG = '33333333-3333-4333-8333-333333333333';
const ALL = ['locations:read', 'locations:write', 'locations:qr', 'contacts:read', 'contacts:write'];
const principal = (scopes: readonly string[] = ALL): Principal => ({ organizationId: ORG, keyId: 'k', keyLabel: 'Key', environment: 'TEST', scopes: new Set(scopes) });
const actor = (scopes?: readonly string[]) => ({ principal: principal(scopes), requestId: 'req' });

/**
 * Stages like the DynamoDB adapter does; `commit` applies what one attempt staged, with the
 * caller's items (the idempotency record), as the kit's unit of work does.
 */
class MemoryStore implements LocationStore {
  readonly locations = new Map<string, LocationRecord>();
  readonly contacts = new Map<string, Contact>();
  readonly saved: LocationChange[] = [];
  readonly committed: (readonly (TxItem | string)[])[] = [];
  contactReads = 0;
  /** Makes the next N commits of a location change fail as if the version moved. */
  failNextSaves = 0;
  #staged: (LocationChange | ContactChange)[] = [];

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
  saveLocation(change: LocationChange) {
    this.#staged.push(change);
  }
  saveContact(change: ContactChange) {
    this.#staged.push(change);
  }
  /** Starts an attempt: what an earlier attempt staged is dropped, as with a fresh unit of work. */
  begin() {
    this.#staged = [];
  }
  commit(extra: readonly TxItem[]) {
    const staged = this.#staged;
    this.#staged = [];
    if (staged.some((c) => c.audit.entity.type === 'location') && this.failNextSaves > 0) {
      this.failNextSaves -= 1;
      throw new ConcurrentChangeError('The location');
    }
    for (const change of staged) {
      if (change.audit.entity.type === 'location') {
        this.saved.push(change as LocationChange);
        this.locations.set(change.after.id, change.after as LocationRecord);
      } else this.contacts.set(change.after.id, change.after as Contact);
    }
    this.committed.push([...staged.map((c) => c.audit.action), ...extra]);
  }
}

let store: MemoryStore;
let ports: LocationPorts;

/** Runs a use case as the area handler does: one commit per attempt, again while a read went stale. */
const run = <T>(work: (p: LocationPorts) => Promise<T>, extra: readonly TxItem[] = []): Promise<T> =>
  retryOnConflict(
    async () => {
      store.begin();
      const result = await work(ports);
      store.commit(extra);
      return result;
    },
    { sleep: async () => {} },
  );


const contact = (name: string): Contact => {
  const c: Contact = { id: randomUUID(), organizationId: ORG, name, email: `${name}@example.com`, phone: null, role: null, version: 1, createdAt: 't', updatedAt: 't' };
  store.contacts.set(c.id, c);
  return c;
};

beforeEach(() => {
  store = new MemoryStore();
  ports = { store, now: () => new Date('2026-03-02T08:00:00Z'), newId: randomUUID, randomBytes };
});

describe('location views', () => {
  it('carry contact values only for keys with contacts:read, and read no contact otherwise', async () => {
    const c = contact('anna');
    const view = await run((p) => createLocation(p, actor(), { name: 'Site', contactIds: [c.id] }));
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
    await expect(run((p) => createLocation(p, actor(['locations:write']), { name: 'Site', contactIds: [c.id] }))).rejects.toBeInstanceOf(ScopeRequiredError);
    expect(store.saved).toEqual([]);
  });

  it('points at each unknown or repeated contact id', async () => {
    const c = contact('cleo');
    const missing = randomUUID();
    await expect(run((p) => createLocation(p, actor(), { name: 'Site', contactIds: [c.id, missing] }))).rejects.toMatchObject({ errors: [{ pointer: '/contactIds/1' }] });
    await expect(run((p) => createLocation(p, actor(), { name: 'Site', contactIds: [c.id, c.id] }))).rejects.toMatchObject({ errors: [{ pointer: '/contactIds/1' }] });
  });

  it('audits attribute names and no values', async () => {
    const c = contact('dora');
    await run((p) => createLocation(p, actor(), { name: 'Private Site', address: 'Home 1', contactIds: [c.id] }));
    const { audit } = store.saved[0];
    expect(audit).toMatchObject({ action: 'location.created', changedAttributes: ['address', 'contactIds', 'name'], requestId: 'req' });
    expect(JSON.stringify(audit)).not.toMatch(/Private Site|Home 1|dora/);
  });
});

describe('updateLocation', () => {
  it('commits only the caller items (no new version, no audit) when nothing changes', async () => {
    const { location } = await run((p) => createLocation(p, actor(), { name: 'Same' }));
    const marker: TxItem = { label: 'idempotency', op: { ConditionCheck: { Key: { PK: 'x', SK: 'y' }, ConditionExpression: 'attribute_exists(PK)' } } };
    const view = await run((p) => updateLocation(p, actor(), location.id, `"location:${location.id}:v1"`, { name: 'Same' }), [marker]);
    expect(view.location.version).toBe(1);
    expect(store.saved).toHaveLength(1);
    expect(store.committed.at(-1)).toEqual([marker]);
  });
});

describe('linkContact', () => {
  it(`refuses a ${MAX_CONTACTS_PER_LOCATION + 1}st contact`, async () => {
    const ids = Array.from({ length: MAX_CONTACTS_PER_LOCATION }, (_, i) => contact(`c${i}`).id);
    const { location } = await run((p) => createLocation(p, actor(), { name: 'Full', contactIds: ids }));
    await expect(run((p) => linkContact(p, actor(), location.id, contact('extra').id, undefined))).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('rotateQr', () => {
  it('starts again when a concurrent change committed first, and answers the rotation that committed', async () => {
    const { location } = await run((p) => createLocation(p, actor(), { name: 'Gate' }));
    store.failNextSaves = 2;
    const rotation = await run((p) => rotateQr(p, actor(), location.id));
    const last = store.saved.at(-1)!;
    expect(last.qr?.next.publicReference).toBe(rotation.publicReference);
    expect(last.audit).toMatchObject({ action: 'location.qr_rotated' });
    expect(Object.keys(last.audit).sort()).toEqual(['action', 'actor', 'entity', 'id', 'occurredAt', 'organizationId', 'requestId']);
    expect(JSON.stringify(rotation)).not.toContain(last.qr!.next.secretHash);
  });

  it('gives up with 503 TRANSACTION_CONFLICT after repeated conflicts', async () => {
    const { location } = await run((p) => createLocation(p, actor(), { name: 'Gate' }));
    store.failNextSaves = 99;
    await expect(run((p) => rotateQr(p, actor(), location.id))).rejects.toBeInstanceOf(TransactionConflictError);
  });
});
