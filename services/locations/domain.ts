import { createHash } from 'node:crypto';
import { auditFor, type AuditEntry } from '../audit/model';
import { hasScope, requireScopes, type Principal } from '../shared/auth/principal';
import type { Actor } from '../shared/domain/actor';
import { assertEtag, assertSentEtag, versionedEtag } from '../shared/domain/etag';
import { archiveState, changedAttributes, givenAttributes, newArchivable, patched, revised } from '../shared/domain/lifecycle';
import { NotFoundError, ValidationError, type FieldError } from '../shared/errors';
import type { Contact, LocationRecord, QrSecret } from './model';
import type { UseCasePorts } from '../shared/domain/ports';

export type { Contact, LocationRecord, QrSecret } from './model';

/** A location write: the location before (absent for a create) and after, with its audit entry. */
export interface LocationChange {
  /** The stored state the change was decided on; absent for a new location. */
  readonly before?: LocationRecord;
  readonly after: LocationRecord;
  readonly audit: AuditEntry;
  /** Contacts that must exist in the organization at commit time, with the body field that named each. */
  readonly contactChecks?: readonly ContactCheck[];
  /** A rotation: the new secret replaces `previousReference`'s (null: the first one). */
  readonly qr?: { readonly next: QrSecret; readonly previousReference: string | null };
}

export interface ContactCheck {
  readonly contactId: string;
  /** The JSON pointer of the body field that named the contact (`/contactIds/<i>`). */
  readonly pointer: string;
}

export interface ContactChange {
  readonly before?: Contact;
  readonly after: Contact;
  readonly audit: AuditEntry;
}

/**
 * The locations store port: reads, and `save*` that stage a change in the request's unit of
 * work (committed once the use case returns, with the idempotency record). The DynamoDB
 * adapter is store.ts (contacts: store-contacts.ts). A change whose reads went stale
 * meanwhile makes the whole use case run again from its reads (the area handler does that).
 */
export interface LocationStore {
  getLocation(organizationId: string, id: string): Promise<LocationRecord | undefined>;
  getContact(organizationId: string, id: string): Promise<Contact | undefined>;
  getContacts(organizationId: string, ids: readonly string[]): Promise<ReadonlyMap<string, Contact>>;
  /** The public reference of the location's current QR secret; null before the first rotation. */
  getQrReference(organizationId: string, locationId: string): Promise<string | null>;
  saveLocation(change: LocationChange): void;
  saveContact(change: ContactChange): void;
}

/** Ports of the locations use cases. */
export interface LocationPorts extends UseCasePorts<LocationStore> {
  /** Cryptographically random bytes (QR secrets and references). */
  readonly randomBytes: (size: number) => Buffer;
}

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

export const locationEtag = versionedEtag<LocationRecord>('location');

/** An audit entry of this request, with a fresh id. */
export const audit = auditFor;

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
 * 3. Stage it with its search words, the contact checks and an audit entry naming the
 *    attributes given (never their values).
 */
export async function createLocation(ports: LocationPorts, actor: Actor, input: LocationInput): Promise<LocationView> {
  const org = actor.principal.organizationId;
  const contactIds = input.contactIds ?? [];
  if (input.contactIds !== undefined) requireScopes(actor.principal, ['contacts:write']);
  const contacts = await existingContacts(ports.store, org, contactIds);
  const now = ports.now().toISOString();
  const location: LocationRecord = {
    ...newArchivable(ports.newId(), org, now),
    name: input.name,
    address: input.address ?? null,
    contactIds: [...contactIds],
    qrRotatedAt: null,
  };
  ports.store.saveLocation({
    after: location,
    audit: audit(ports, actor, now, { action: 'location.created', entity: { type: 'location', id: location.id }, changedAttributes: givenAttributes(input) }),
    contactChecks: contactChecks(contactIds),
  });
  return visibleView(actor.principal, location, contacts);
}

/**
 * Changes a location (partial). Input: id, If-Match, the fields to change; output: the view.
 * 1. Read the location (404); If-Match must be its ETag (412).
 * 2. Replacing contactIds needs contacts:write and contacts of this organization (422).
 * 3. Nothing changed: answer the location as it is (same ETag, no audit entry).
 * 4. Stage the next version (archived moves it between the active and archived lists); of
 *    two changes from one ETag exactly one commits, the other runs again and answers 412.
 */
export async function updateLocation(ports: LocationPorts, actor: Actor, id: string, ifMatch: string, patch: LocationPatch): Promise<LocationView> {
  const org = actor.principal.organizationId;
  const current = await existingLocation(ports.store, org, id);
  assertEtag(ifMatch, locationEtag(current));
  if (patch.contactIds !== undefined) requireScopes(actor.principal, ['contacts:write']);
  await existingContacts(ports.store, org, patch.contactIds ?? []);
  const now = ports.now().toISOString();
  const candidate: LocationRecord = {
    ...current,
    ...patched(current, patch, ['name', 'address']),
    contactIds: [...(patch.contactIds ?? current.contactIds)],
    ...archiveState(current, patch.archived ?? current.archived, now),
  };
  const changed = changedAttributes(current, candidate, ['name', 'address', 'contactIds', 'archived']);
  const contacts = await visibleContacts(ports.store, actor.principal, candidate);
  return stageLocationChange(ports, actor, { current, candidate, changed, action: 'location.updated', contacts, checks: contactChecks(patch.contactIds ?? []) });
}

/**
 * Archives a location (DELETE). It stays readable by id (time entries and work events refer to
 * it), leaves the default list and search, and can be restored with PATCH `archived: false`.
 * If-Match is optional; when sent it must be the current ETag. Archiving an archived location
 * changes nothing.
 */
export async function archiveLocation(ports: LocationPorts, actor: Actor, id: string, ifMatch: string | undefined): Promise<LocationView> {
  const org = actor.principal.organizationId;
  const current = await existingLocation(ports.store, org, id);
  assertSentEtag(ifMatch, locationEtag(current));
  const contacts = await visibleContacts(ports.store, actor.principal, current);
  const now = ports.now().toISOString();
  const candidate: LocationRecord = { ...current, ...archiveState(current, true, now) };
  return stageLocationChange(ports, actor, { current, candidate, changed: current.archived ? [] : ['archived'], action: 'location.archived', contacts });
}

/**
 * Links a reusable contact to a location (needs locations:write and contacts:write).
 * 1. Location and contact must exist in the organization (404 for either path id).
 * 2. Already linked: nothing changes. At most 20 contacts per location (422).
 * 3. Stage the next version with the contact id appended, and an audit entry naming the contact id.
 */
export async function linkContact(ports: LocationPorts, actor: Actor, locationId: string, contactId: string, ifMatch: string | undefined): Promise<LocationView> {
  const org = actor.principal.organizationId;
  const current = await existingLocation(ports.store, org, locationId);
  assertSentEtag(ifMatch, locationEtag(current));
  if (!(await ports.store.getContact(org, contactId))) throw new NotFoundError(`Contact ${contactId}`);
  const linked = current.contactIds.includes(contactId);
  if (!linked && current.contactIds.length >= MAX_CONTACTS_PER_LOCATION) {
    throw new ValidationError([{ parameter: 'contactId', detail: `Location ${locationId} already has ${MAX_CONTACTS_PER_LOCATION} contacts, the most a location can have; unlink one first.` }]);
  }
  const candidate: LocationRecord = { ...current, contactIds: linked ? current.contactIds : [...current.contactIds, contactId] };
  const contacts = await visibleContacts(ports.store, actor.principal, candidate);
  return stageLocationChange(ports, actor, { current, candidate, changed: linked ? [] : ['contactIds'], action: 'location.contact_linked', contacts, references: { contactId } });
}

/** Unlinks a contact from a location; the contact itself stays. Not linked: nothing changes. */
export async function unlinkContact(ports: LocationPorts, actor: Actor, locationId: string, contactId: string, ifMatch: string | undefined): Promise<LocationView> {
  const org = actor.principal.organizationId;
  const current = await existingLocation(ports.store, org, locationId);
  assertSentEtag(ifMatch, locationEtag(current));
  if (!(await ports.store.getContact(org, contactId))) throw new NotFoundError(`Contact ${contactId}`);
  const linked = current.contactIds.includes(contactId);
  const candidate: LocationRecord = { ...current, contactIds: current.contactIds.filter((c) => c !== contactId) };
  const contacts = await visibleContacts(ports.store, actor.principal, candidate);
  return stageLocationChange(ports, actor, { current, candidate, changed: linked ? ['contactIds'] : [], action: 'location.contact_unlinked', contacts, references: { contactId } });
}

/**
 * Rotates a location's QR secret (locations:qr). Output: the new public reference and the
 * rotation time; the secret itself never leaves this function and is stored only as its SHA-256.
 * 1. Read the location (404); If-Match, when sent, must be its ETag (412, nothing rotated).
 *    Read the public reference of its current secret.
 * 2. Draw a new 256-bit secret and a new 128-bit public reference; hash the secret.
 * 3. Stage the secret item replacing the previous one (which stops being valid at once), the
 *    location's next version with `qrRotatedAt`, and an audit entry that says only that a
 *    rotation happened.
 * A concurrent change of the location or another rotation that committed first makes the
 * use case run again from 1, so the answer is always the secret in force when it committed.
 */
export async function rotateQr(ports: LocationPorts, actor: Actor, locationId: string, ifMatch?: string): Promise<QrRotation> {
  const org = actor.principal.organizationId;
  const current = await existingLocation(ports.store, org, locationId);
  assertSentEtag(ifMatch, locationEtag(current));
  const previousReference = await ports.store.getQrReference(org, locationId);
  const secret = ports.randomBytes(32).toString('base64url');
  const rotatedAt = ports.now().toISOString();
  const publicReference = `qr_${ports.randomBytes(16).toString('hex')}`;
  const next: LocationRecord = revised(current, rotatedAt, { qrRotatedAt: rotatedAt });
  ports.store.saveLocation({
    before: current,
    after: next,
    audit: audit(ports, actor, rotatedAt, { action: 'location.qr_rotated', entity: { type: 'location', id: locationId } }),
    qr: { next: { publicReference, secretHash: sha256Hex(secret), rotatedAt }, previousReference },
  });
  return { view: visibleView(actor.principal, next, await visibleContacts(ports.store, actor.principal, next)), publicReference, rotatedAt };
}

export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/** Reads for responses: the views of these locations, with contact values only for keys that hold contacts:read. */
export async function locationViews(store: Pick<LocationStore, 'getContacts'>, principal: Principal, locations: readonly LocationRecord[]): Promise<LocationView[]> {
  if (!hasScope(principal, 'contacts:read')) return locations.map((location) => ({ location }));
  const contacts = await store.getContacts(principal.organizationId, locations.flatMap((l) => l.contactIds));
  return locations.map((location) => ({ location, contacts: linkedContacts(location, contacts) }));
}

export async function existingLocation(store: Pick<LocationStore, 'getLocation'>, org: string, id: string): Promise<LocationRecord> {
  const location = await store.getLocation(org, id);
  if (!location) throw new NotFoundError(`Location ${id}`);
  return location;
}

interface LocationDecision {
  readonly current: LocationRecord;
  readonly candidate: LocationRecord;
  /** The attribute names that differ; none: nothing is staged. */
  readonly changed: readonly string[];
  readonly action: string;
  readonly contacts: ReadonlyMap<string, Contact>;
  readonly checks?: readonly ContactCheck[];
  readonly references?: Readonly<Record<string, string>>;
}

/** Stages `candidate` as the next version; when nothing changed, answers the location as it is. */
function stageLocationChange(ports: LocationPorts, actor: Actor, d: LocationDecision): LocationView {
  if (d.changed.length === 0) return visibleView(actor.principal, d.current, d.contacts);
  const now = ports.now().toISOString();
  const next: LocationRecord = revised(d.current, now, d.candidate);
  ports.store.saveLocation({
    before: d.current,
    after: next,
    audit: audit(ports, actor, now, { action: d.action, entity: { type: 'location', id: next.id }, changedAttributes: d.changed, references: d.references }),
    contactChecks: d.checks ?? [],
  });
  return visibleView(actor.principal, next, d.contacts);
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

const contactChecks = (ids: readonly string[]): ContactCheck[] => ids.map((contactId, i) => ({ contactId, pointer: `/contactIds/${i}` }));

async function visibleContacts(store: LocationStore, principal: Principal, location: LocationRecord): Promise<ReadonlyMap<string, Contact>> {
  if (!hasScope(principal, 'contacts:read') || location.contactIds.length === 0) return new Map();
  return store.getContacts(principal.organizationId, location.contactIds);
}

function visibleView(principal: Principal, location: LocationRecord, contacts: ReadonlyMap<string, Contact>): LocationView {
  return hasScope(principal, 'contacts:read') ? { location, contacts: linkedContacts(location, contacts) } : { location };
}

const linkedContacts = (location: LocationRecord, contacts: ReadonlyMap<string, Contact>): Contact[] =>
  location.contactIds.map((id) => contacts.get(id)).filter((c): c is Contact => c !== undefined);
