import type { Actor } from '../shared/domain/actor';
import { assertEtag, versionedEtag } from '../shared/domain/etag';
import { changedAttributes, givenAttributes } from '../shared/domain/lifecycle';
import { NotFoundError } from '../shared/errors';
import { audit, type LocationPorts } from './domain';
import type { Contact } from './model';

/** Reusable contacts: organization-owned personal data that locations link to by id. */

export const contactEtag = versionedEtag<Contact>('contact');

export interface ContactInput {
  readonly name: string;
  readonly email?: string | null;
  readonly phone?: string | null;
  readonly role?: string | null;
}

export type ContactPatch = Partial<ContactInput>;

/**
 * Creates a reusable contact (contacts:write). Output: the contact.
 * 1. Build version 1.  2. Stage it with its search words and an audit entry naming the
 * attributes set, never their values.
 */
export async function createContact(ports: LocationPorts, actor: Actor, input: ContactInput): Promise<Contact> {
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
  ports.store.saveContact({ after: contact, audit: audit(ports, actor, now, { action: 'contact.created', entity: { type: 'contact', id: contact.id }, changedAttributes: givenAttributes(input) }) });
  return contact;
}

/**
 * Changes a contact (partial); every location it is linked to shows the new values.
 * 1. Read (404); If-Match must be its ETag (412).  2. Nothing changed: answer it as it is.
 * 3. Stage the next version; the audit entry names the changed attributes, never their values.
 */
export async function updateContact(ports: LocationPorts, actor: Actor, id: string, ifMatch: string, patch: ContactPatch): Promise<Contact> {
  const current = await ports.store.getContact(actor.principal.organizationId, id);
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
  if (changed.length === 0) return current;
  const next: Contact = { ...candidate, version: current.version + 1, updatedAt: now };
  ports.store.saveContact({ before: current, after: next, audit: audit(ports, actor, now, { action: 'contact.updated', entity: { type: 'contact', id }, changedAttributes: changed }) });
  return next;
}
