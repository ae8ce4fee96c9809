import type { Actor } from '../shared/domain/actor';
import { assertEtag, versionedEtag } from '../shared/domain/etag';
import { changedAttributes, givenAttributes, newRecord, orNull, patched, revised } from '../shared/domain/lifecycle';
import { NotFoundError } from '../shared/errors';
import { audit, type LocationPorts } from './domain';
import type { Contact } from './model';

/** Reusable contacts: organization-owned personal data that locations link to by id. */

export const contactEtag = versionedEtag<Contact>('contact');

/** A new contact: its name, and its optional fields named as the contact has them. */
export type ContactInput = Pick<Contact, 'name'> & Partial<Pick<Contact, 'email' | 'phone' | 'role'>>;

export type ContactPatch = Partial<ContactInput>;
const CONTACT_FIELDS = ['name', 'email', 'phone', 'role'] as const;

/**
 * Creates a reusable contact (contacts:write). Output: the contact.
 * 1. Build version 1.  2. Stage it with its search words and an audit entry naming the
 * attributes set, never their values.
 */
export async function createContact(ports: LocationPorts, actor: Actor, input: ContactInput): Promise<Contact> {
  const now = ports.now().toISOString();
  const contact: Contact = { ...newRecord(ports.newId(), actor.principal.organizationId, now), name: input.name, ...orNull(input, ['email', 'phone', 'role']) };
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
  const candidate = patched(current, patch, CONTACT_FIELDS);
  const changed = changedAttributes(current, candidate, CONTACT_FIELDS);
  if (changed.length === 0) return current;
  const next: Contact = revised(current, now, candidate);
  ports.store.saveContact({ before: current, after: next, audit: audit(ports, actor, now, { action: 'contact.updated', entity: { type: 'contact', id }, changedAttributes: changed }) });
  return next;
}
