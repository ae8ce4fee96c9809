import { createHash } from 'node:crypto';
import { hasScope, requireScopes, type Principal } from '../shared/auth/principal';
import { jitteredBackoff, type TxItem } from '../shared/ddb/transaction';
import { EtagMismatchError, NotFoundError, TransactionConflictError, ValidationError, type FieldError } from '../shared/errors';
import { assertEtag, entityEtag } from '../shared/domain/etag';
import { masterDataAudit } from './audit';
import type { Contact, ContactChange } from './contact-store';
import type { LocationChange, LocationRecord } from './store';

/** A location store: the DynamoDB adapter (store.ts, contact-store.ts) or a test double. */
export interface LocationStore {
  getLocation(organizationId: string, id: string): Promise<LocationRecord | undefined>;
  getContact(organizationId: string, id: string): Promise<Contact | undefined>;
  getContacts(organizationId: string, ids: readonly string[]): Promise<ReadonlyMap<string, Contact>>;
  /** The public reference of the location's current QR secret; null before the first rotation. */
  getQrReference(organizationId: string, locationId: string): Promise<string | null>;
  saveLocation(change: LocationChange, extra: readonly TxItem[]): Promise<void>;
  saveContact(change: ContactChange, extra: readonly TxItem[]): Promise<void>;
  /** Commits items of a write that changed nothing (its idempotency record). */
  commitItems(items: readonly TxItem[]): Promise<void>;
}

/** Ports of the locations use cases. */
export interface LocationPorts {
  readonly store: LocationStore;
  readonly now: () => Date;
  readonly newId: () => string;
  /** Cryptographically random bytes (QR secrets and references). */
  readonly randomBytes: (size: number) => Buffer;
  /** Waits between attempts of a contended write. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Who asks, and under which request ID (the audit entry's requestId = X-Request-Id). */
export interface Actor {
  readonly principal: Principal;
  readonly requestId: string;
}

/** Items the caller commits in the same transaction (the idempotency record of the response). */
export type ExtraItems<T> = (outcome: T) => Promise<readonly TxItem[]>;

/**
 * A location as a caller may see it: `contacts` (the values of the linked contacts, in
 * link order) only when the key holds contacts:read; otherwise the member is absent.
 */
export interface LocationView {
  readonly location: LocationRecord;
  readonly contacts?: readonly Contact[];
}

export interface QrRotation {
  readonly view: LocationView;
  readonly publicReference: string;
  readonly rotatedAt: string;
}

export const MAX_CONTACTS_PER_LOCATION = 20;
const ROTATION_ATTEMPTS = 5;

export const locationEtag = (l: LocationRecord): string => entityEtag('location', l.id, l.version);
export const contactEtag = (c: Contact): string => entityEtag('contact', c.id, c.version);

export interface LocationInput {
  readonly name: string;
  readonly address?: string | null;
  readonly contactIds?: readonly string[];
}

export interface LocationPatch {
  readonly name?: string;
  readonly address?: string | null;
  readonly contactIds?: readonly string[];
  readonly archived?: boolean;
}

/**
 * Creates a location. Input: name, address, optional contact ids; output: the location view.
 * 1. Linking contacts needs contacts:write; each contact must exist in the organization (422 at its index).
 * 2. Build version 1 (active, no QR rotation yet).
 * 3. Commit ONE transaction: location, search words, contact checks, audit (attribute names only), idempotency.
 */
export async function createLocation(ports: LocationPorts, actor: Actor, input: LocationInput, extra: ExtraItems<LocationView>): Promise<LocationView> {
  const org = actor.principal.organizationId;
  const contactIds = input.contactIds ?? [];
  if (input.contactIds !== undefined) requireScopes(actor.principal, ['contacts:write']);
  const contacts = await existingContacts(ports.store, org, contactIds);
  const now = ports.now().toISOString();
  const location: LocationRecord = {
    id: ports.newId(),
    organizationId: org,
    name: input.name,
    address: input.address ?? null,
    archived: false,
    archivedAt: null,
    contactIds: [...contactIds],
    qrRotatedAt: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  const view = visibleView(actor.principal, location, contacts);
  const audit = masterDataAudit(ports.newId(), actor, now, 'location.created', { type: 'location', id: location.id }, { changedAttributes: presentAttributes(input) });
  await ports.store.saveLocation({ after: location, audit, contactChecks: contactChecks(contactIds) }, await extra(view));
  return view;
}

/**
 * Changes a location (partial). Input: id, If-Match, the fields to change; output: the view.
 * 1. Read the location (404); If-Match must be its ETag (412).
 * 2. Replacing contactIds needs contacts:write and contacts of this organization (422).
 * 3. Nothing changed: answer the location as it is (same ETag, no audit entry).
 * 4. Commit the next version (archived moves it between the active and archived lists);
 *    of two changes from one ETag exactly one commits, the other gets 412.
 */
export async function updateLocation(ports: LocationPorts, actor: Actor, id: string, ifMatch: string, patch: LocationPatch, extra: ExtraItems<LocationView>): Promise<LocationView> {
  const org = actor.principal.organizationId;
  const current = await existingLocation(ports.store, org, id);
  assertEtag(ifMatch, locationEtag(current));
  if (patch.contactIds !== undefined) requireScopes(actor.principal, ['contacts:write']);
  await existingContacts(ports.store, org, patch.contactIds ?? []);
  const now = ports.now().toISOString();
  const candidate: LocationRecord = {
    ...current,
    name: patch.name ?? current.name,
    address: patch.address === undefined ? current.address : patch.address,
    contactIds: [...(patch.contactIds ?? current.contactIds)],
    ...archiveState(current, patch.archived ?? current.archived, now),
  };
  const changed = changedAttributes(current, candidate, ['name', 'address', 'contactIds', 'archived']);
  const contacts = await visibleContacts(ports.store, actor.principal, candidate);
  return commitLocationChange(ports, actor, current, candidate, changed, 'location.updated', contacts, extra, contactChecks(patch.contactIds ?? []));
}

/**
 * Archives a location (DELETE). It stays readable by id (time entries and work events refer to
 * it), leaves the default list and search, and can be restored with PATCH `archived: false`.
 * If-Match is optional; when sent it must be the current ETag. Archiving an archived location
 * changes nothing.
 */
export async function archiveLocation(ports: LocationPorts, actor: Actor, id: string, ifMatch: string | undefined, extra: ExtraItems<LocationView>): Promise<LocationView> {
  const org = actor.principal.organizationId;
  const current = await existingLocation(ports.store, org, id);
  if (ifMatch !== undefined) assertEtag(ifMatch, locationEtag(current));
  const contacts = await visibleContacts(ports.store, actor.principal, current);
  const now = ports.now().toISOString();
  const next: LocationRecord = { ...current, ...archiveState(current, true, now) };
  return commitLocationChange(ports, actor, current, next, current.archived ? [] : ['archived'], 'location.archived', contacts, extra);
}

/**
 * Links a reusable contact to a location (needs locations:write and contacts:write).
 * 1. Location and contact must exist in the organization (404 for either path id).
 * 2. Already linked: nothing changes. At most 20 contacts per location (422).
 * 3. Commit the next version with the contact id appended, and an audit entry naming the contact id.
 */
export async function linkContact(ports: LocationPorts, actor: Actor, locationId: string, contactId: string, ifMatch: string | undefined, extra: ExtraItems<LocationView>): Promise<LocationView> {
  const org = actor.principal.organizationId;
  const current = await existingLocation(ports.store, org, locationId);
  if (ifMatch !== undefined) assertEtag(ifMatch, locationEtag(current));
  if (!(await ports.store.getContact(org, contactId))) throw new NotFoundError(`Contact ${contactId}`);
  const linked = current.contactIds.includes(contactId);
  if (!linked && current.contactIds.length >= MAX_CONTACTS_PER_LOCATION) {
    throw new ValidationError([{ parameter: 'contactId', detail: `Location ${locationId} already has ${MAX_CONTACTS_PER_LOCATION} contacts, the most a location can have; unlink one first.` }]);
  }
  const next: LocationRecord = { ...current, contactIds: linked ? current.contactIds : [...current.contactIds, contactId] };
  const contacts = await visibleContacts(ports.store, actor.principal, next);
  return commitLocationChange(ports, actor, current, next, linked ? [] : ['contactIds'], 'location.contact_linked', contacts, extra, [], { contactId });
}

/** Unlinks a contact from a location; the contact itself stays. Not linked: nothing changes. */
export async function unlinkContact(ports: LocationPorts, actor: Actor, locationId: string, contactId: string, ifMatch: string | undefined, extra: ExtraItems<LocationView>): Promise<LocationView> {
  const org = actor.principal.organizationId;
  const current = await existingLocation(ports.store, org, locationId);
  if (ifMatch !== undefined) assertEtag(ifMatch, locationEtag(current));
  if (!(await ports.store.getContact(org, contactId))) throw new NotFoundError(`Contact ${contactId}`);
  const linked = current.contactIds.includes(contactId);
  const next: LocationRecord = { ...current, contactIds: current.contactIds.filter((c) => c !== contactId) };
  const contacts = await visibleContacts(ports.store, actor.principal, next);
  return commitLocationChange(ports, actor, current, next, linked ? ['contactIds'] : [], 'location.contact_unlinked', contacts, extra, [], { contactId });
}

/**
 * Rotates a location's QR secret (locations:qr). Output: the new public reference and the
 * rotation time; the secret itself never leaves this function and is stored only as its SHA-256.
 * 1. Read the location (404) and the public reference of its current secret.
 * 2. Draw a new 256-bit secret and a new 128-bit public reference; hash the secret.
 * 3. Commit ONE transaction: the secret item replaces the previous one (which stops being
 *    valid at once), the location's next version with `qrRotatedAt`, an audit entry that says
 *    only that a rotation happened, idempotency.
 * 4. A concurrent change of the location or another rotation committed first: start again
 *    from 1, so the answer is always the secret in force when it committed.
 */
export async function rotateQr(ports: LocationPorts, actor: Actor, locationId: string, extra: ExtraItems<QrRotation>): Promise<QrRotation> {
  const org = actor.principal.organizationId;
  for (let attempt = 1; ; attempt += 1) {
    const current = await existingLocation(ports.store, org, locationId);
    const previousReference = await ports.store.getQrReference(org, locationId);
    const secret = ports.randomBytes(32).toString('base64url');
    const rotatedAt = ports.now().toISOString();
    const publicReference = `qr_${ports.randomBytes(16).toString('hex')}`;
    const next: LocationRecord = { ...current, qrRotatedAt: rotatedAt, version: current.version + 1, updatedAt: rotatedAt };
    const outcome: QrRotation = { view: visibleView(actor.principal, next, await visibleContacts(ports.store, actor.principal, next)), publicReference, rotatedAt };
    const audit = masterDataAudit(ports.newId(), actor, rotatedAt, 'location.qr_rotated', { type: 'location', id: locationId });
    try {
      await ports.store.saveLocation(
        { before: current, after: next, audit, qr: { next: { publicReference, secretHash: sha256Hex(secret), rotatedAt }, previousReference } },
        await extra(outcome),
      );
      return outcome;
    } catch (error) {
      if (!(error instanceof EtagMismatchError)) throw error;
      if (attempt >= ROTATION_ATTEMPTS) throw new TransactionConflictError({ cause: error });
      await (ports.sleep ?? defaultSleep)(jitteredBackoff(attempt));
    }
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

export interface ContactInput {
  readonly name: string;
  readonly email?: string | null;
  readonly phone?: string | null;
  readonly role?: string | null;
}

export type ContactPatch = Partial<ContactInput>;

/**
 * Creates a reusable contact (contacts:write). Output: the contact.
 * 1. Build version 1.  2. Commit ONE transaction: contact, search words, audit (attribute names only), idempotency.
 */
export async function createContact(ports: LocationPorts, actor: Actor, input: ContactInput, extra: ExtraItems<Contact>): Promise<Contact> {
  const now = ports.now().toISOString();
  const contact: Contact = {
    id: ports.newId(),
    organizationId: actor.principal.organizationId,
    name: input.name,
    email: input.email ?? null,
    phone: input.phone ?? null,
    role: input.role ?? null,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  const audit = masterDataAudit(ports.newId(), actor, now, 'contact.created', { type: 'contact', id: contact.id }, { changedAttributes: presentAttributes(input) });
  await ports.store.saveContact({ after: contact, audit }, await extra(contact));
  return contact;
}

/**
 * Changes a contact (partial); every location it is linked to shows the new values.
 * 1. Read (404); If-Match must be its ETag (412).  2. Nothing changed: answer it as it is.
 * 3. Commit the next version; the audit entry names the changed attributes, never their values.
 */
export async function updateContact(ports: LocationPorts, actor: Actor, id: string, ifMatch: string, patch: ContactPatch, extra: ExtraItems<Contact>): Promise<Contact> {
  const org = actor.principal.organizationId;
  const current = await ports.store.getContact(org, id);
  if (!current) throw new NotFoundError(`Contact ${id}`);
  assertEtag(ifMatch, contactEtag(current));
  const now = ports.now().toISOString();
  const candidate: Contact = {
    ...current,
    name: patch.name ?? current.name,
    email: patch.email === undefined ? current.email : patch.email,
    phone: patch.phone === undefined ? current.phone : patch.phone,
    role: patch.role === undefined ? current.role : patch.role,
  };
  const changed = changedAttributes(current, candidate, ['name', 'email', 'phone', 'role']);
  if (changed.length === 0) {
    await ports.store.commitItems(await extra(current));
    return current;
  }
  const next: Contact = { ...candidate, version: current.version + 1, updatedAt: now };
  const audit = masterDataAudit(ports.newId(), actor, now, 'contact.updated', { type: 'contact', id }, { changedAttributes: changed });
  await ports.store.saveContact({ before: current, after: next, audit }, await extra(next));
  return next;
}

/** Reads for responses: the views of these locations, with contact values only for keys that hold contacts:read. */
export async function locationViews(store: LocationStore, principal: Principal, locations: readonly LocationRecord[]): Promise<LocationView[]> {
  if (!hasScope(principal, 'contacts:read')) return locations.map((location) => ({ location }));
  const contacts = await store.getContacts(principal.organizationId, locations.flatMap((l) => l.contactIds));
  return locations.map((location) => ({ location, contacts: linkedContacts(location, contacts) }));
}

export async function existingLocation(store: LocationStore, org: string, id: string): Promise<LocationRecord> {
  const location = await store.getLocation(org, id);
  if (!location) throw new NotFoundError(`Location ${id}`);
  return location;
}

/** Commits `candidate` as the next version, or only the caller's items when nothing changed. */
async function commitLocationChange(
  ports: LocationPorts,
  actor: Actor,
  current: LocationRecord,
  candidate: LocationRecord,
  changed: readonly string[],
  action: string,
  contacts: ReadonlyMap<string, Contact>,
  extra: ExtraItems<LocationView>,
  checks: readonly { contactId: string; pointer: string }[] = [],
  references?: Readonly<Record<string, string>>,
): Promise<LocationView> {
  if (changed.length === 0) {
    const view = visibleView(actor.principal, current, contacts);
    await ports.store.commitItems(await extra(view));
    return view;
  }
  const now = ports.now().toISOString();
  const next: LocationRecord = { ...candidate, version: current.version + 1, updatedAt: now };
  const view = visibleView(actor.principal, next, contacts);
  const audit = masterDataAudit(ports.newId(), actor, now, action, { type: 'location', id: next.id }, { changedAttributes: changed, references });
  await ports.store.saveLocation({ before: current, after: next, audit, contactChecks: checks }, await extra(view));
  return view;
}

function archiveState(current: LocationRecord, archived: boolean, now: string): Pick<LocationRecord, 'archived' | 'archivedAt'> {
  if (archived === current.archived) return { archived, archivedAt: current.archivedAt };
  return { archived, archivedAt: archived ? now : null };
}

/** The contacts of `ids`; a missing one is 422 at its index in the body's contactIds. */
async function existingContacts(store: LocationStore, org: string, ids: readonly string[]): Promise<ReadonlyMap<string, Contact>> {
  const duplicates = ids.map((id, i) => ({ id, i })).filter(({ id, i }) => ids.indexOf(id) !== i);
  const tooMany = ids.length > MAX_CONTACTS_PER_LOCATION ? [{ pointer: '/contactIds', detail: `At most ${MAX_CONTACTS_PER_LOCATION} contacts per location; got ${ids.length}.` }] : [];
  if (duplicates.length > 0 || tooMany.length > 0) {
    throw new ValidationError([...tooMany, ...duplicates.map(({ id, i }) => ({ pointer: `/contactIds/${i}`, detail: `Contact ${id} is listed more than once.` }))]);
  }
  if (ids.length === 0) return new Map();
  const found = await store.getContacts(org, ids);
  const missing: FieldError[] = ids
    .map((id, i) => ({ id, i }))
    .filter(({ id }) => !found.has(id))
    .map(({ id, i }) => ({ pointer: `/contactIds/${i}`, detail: `Contact ${id} does not exist in this organization.` }));
  if (missing.length > 0) throw new ValidationError(missing);
  return found;
}

const contactChecks = (ids: readonly string[]) => ids.map((contactId, i) => ({ contactId, pointer: `/contactIds/${i}` }));

async function visibleContacts(store: LocationStore, principal: Principal, location: LocationRecord): Promise<ReadonlyMap<string, Contact>> {
  if (!hasScope(principal, 'contacts:read') || location.contactIds.length === 0) return new Map();
  return store.getContacts(principal.organizationId, location.contactIds);
}

function visibleView(principal: Principal, location: LocationRecord, contacts: ReadonlyMap<string, Contact>): LocationView {
  return hasScope(principal, 'contacts:read') ? { location, contacts: linkedContacts(location, contacts) } : { location };
}

const linkedContacts = (location: LocationRecord, contacts: ReadonlyMap<string, Contact>): Contact[] =>
  location.contactIds.map((id) => contacts.get(id)).filter((c): c is Contact => c !== undefined);

function changedAttributes<T extends object>(before: T, after: T, names: readonly (keyof T & string)[]): string[] {
  return names.filter((n) => JSON.stringify(before[n]) !== JSON.stringify(after[n]));
}

const presentAttributes = (input: object): string[] =>
  Object.entries(input)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k]) => k)
    .sort();
