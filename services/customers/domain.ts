import { auditFor, type AuditEntry } from '../audit/model';
import { requireScopes } from '../shared/auth/principal';
import type { Actor } from '../shared/domain/actor';
import { assertEtag, versionedEtag } from '../shared/domain/etag';
import { archiveState, givenAttributes, newArchivable, orNull, patched, revised } from '../shared/domain/lifecycle';
import { AppError, NotFoundError, ValidationError, type FieldError } from '../shared/errors';
import type { AccessGuard, ActiveGrants, Customer, Feedback, Grant } from './model';
import type { UseCasePorts } from '../shared/domain/ports';
import { PROBLEMS } from './problems';

export type { AccessGuard, ActiveGrants, Customer, Feedback, FeedbackState, Grant, GrantPermission, GrantState } from './model';

export interface CustomerChange {
  /** The stored state the change was decided on; absent for a new customer. */
  readonly before?: Customer;
  readonly after: Customer;
  /** The access guard an archive or an unlink found no active access in: it must still be at this version. */
  readonly access?: AccessGuard;
  readonly audit: AuditEntry;
}

/** The customer's access guard as read, and the ACTIVE grants it lists after the change. */
export interface AccessChange {
  readonly before: AccessGuard;
  readonly activeGrants: ActiveGrants;
}

export interface GrantChange {
  readonly before?: Grant;
  readonly after: Grant;
  /** The customer the grant was decided on (new grants, activations): it must still be at this version. */
  readonly customer?: Customer;
  /** Activations and revocations of an ACTIVE grant: the guard's next version. */
  readonly access?: AccessChange;
  readonly audit: AuditEntry;
}

export interface FeedbackChange {
  readonly before?: Feedback;
  readonly after: Feedback;
  /** The customer new feedback names, as it was decided on (active, linking the location): it must still be at this version. */
  readonly customer?: Customer;
  readonly audit: AuditEntry;
}

/**
 * The customers store port: reads, and `save*` that stage a change in the request's unit of
 * work. The DynamoDB adapter is store.ts; it checks every linked record in the same
 * transaction, and a check that fails makes the use case run again from its reads.
 */
export interface CustomersStore {
  getCustomer(organizationId: string, id: string): Promise<Customer | undefined>;
  /** The locations among these ids that exist in the organization, with their archive state (absent: no such location). */
  locationStates(organizationId: string, ids: readonly string[]): Promise<ReadonlyMap<string, LocationState>>;
  /** The ids among these that name no contact of the organization. */
  missingContacts(organizationId: string, ids: readonly string[]): Promise<string[]>;
  /** Whether this inspection exists in the organization, and at which location. */
  inspectionLocation(organizationId: string, id: string): Promise<string | undefined>;
  /** Whether this visit confirmation exists in the organization, and at which location. */
  visitConfirmationLocation(organizationId: string, id: string): Promise<string | undefined>;
  getGrant(organizationId: string, id: string): Promise<Grant | undefined>;
  /** The customer's access guard: its ACTIVE grants, expired or not (read consistently; a customer without one: version 0). */
  accessGuard(organizationId: string, customerId: string): Promise<AccessGuard>;
  getFeedback(organizationId: string, id: string): Promise<Feedback | undefined>;
  saveCustomer(change: CustomerChange): void;
  saveGrant(change: GrantChange): void;
  saveFeedback(change: FeedbackChange): void;
}

/** What customers need to know of a location they reference (read through the locations area's port). */
export interface LocationState {
  readonly archived: boolean;
}

export interface CustomerPorts extends UseCasePorts<CustomersStore> {
  /** A new invitation secret (256 random bits). */
  readonly newSecret: () => string;
}

/** An audit entry of this request, with a fresh id. */
export const audit = auditFor;

export const customerEtag = versionedEtag<Customer>('customer');

export interface CustomerInput {
  readonly name: string;
  readonly customerNumber: string;
  readonly billingAddress?: string | null;
  readonly vatId?: string | null;
  readonly locationIds?: readonly string[];
  readonly contactIds?: readonly string[];
}

export type CustomerPatch = Partial<CustomerInput> & { readonly archived?: boolean };

const unique = (ids: readonly string[]): string[] => [...new Set(ids)];

/** Why a location cannot be newly referenced (unknown, foreign or archived), or undefined when it can. */
export function locationRefusal(id: string, state: LocationState | undefined): string | undefined {
  if (!state) return `Location ${id} does not exist in this organization.`;
  return state.archived ? `Location ${id} is archived; restore it before referring to it.` : undefined;
}

/**
 * New links must point at active records of this organization: 422 at each foreign, unknown
 * or archived location and each foreign or unknown contact (pointers into the lists sent).
 * Links the customer already had are not read again: a location archived after it was linked
 * stays linked (docs/decisions.md).
 */
async function assertLinks(ports: CustomerPorts, org: string, locationIds: readonly string[], contactIds: readonly string[], current?: Customer): Promise<void> {
  const newLocations = locationIds.filter((l) => !current?.locationIds.includes(l));
  const [locations, contacts] = await Promise.all([
    ports.store.locationStates(org, newLocations),
    ports.store.missingContacts(org, contactIds.filter((c) => !current?.contactIds.includes(c))),
  ]);
  const errors: FieldError[] = [
    ...newLocations.flatMap((id) => {
      const detail = locationRefusal(id, locations.get(id));
      return detail ? [{ pointer: `/locationIds/${locationIds.indexOf(id)}`, detail }] : [];
    }),
    ...contacts.map((id) => ({ pointer: `/contactIds/${contactIds.indexOf(id)}`, detail: `Contact ${id} does not exist in this organization.` })),
  ];
  if (errors.length > 0) throw new ValidationError(errors);
}

/** Sending `contactIds` is a relationship change of reusable contacts: it needs contacts:write (403 SCOPE_REQUIRED), as on locations. */
function assertMayLinkContacts(actor: Actor, contactIds: readonly string[] | undefined): void {
  if (contactIds !== undefined) requireScopes(actor.principal, ['contacts:write']);
}

/**
 * Creates a customer. 1. Sending `contactIds` needs contacts:write (403); linked locations
 *    exist and are active, linked contacts exist (422 at the id).
 * 2. Stage version 1 with the customer number's guard: of two customers with one number
 *    exactly one commits; the other is 409 UNIQUENESS_CONFLICT (attribute customerNumber).
 */
export async function createCustomer(ports: CustomerPorts, actor: Actor, input: CustomerInput): Promise<Customer> {
  const org = actor.principal.organizationId;
  const locationIds = unique(input.locationIds ?? []);
  const contactIds = unique(input.contactIds ?? []);
  assertMayLinkContacts(actor, input.contactIds);
  await assertLinks(ports, org, locationIds, contactIds);
  const now = ports.now().toISOString();
  const customer: Customer = {
    ...newArchivable(ports.newId(), org, now),
    name: input.name,
    customerNumber: input.customerNumber,
    ...orNull(input, ['billingAddress', 'vatId']),
    locationIds,
    contactIds,
  };
  const given = givenAttributes(input);
  ports.store.saveCustomer({ after: customer, audit: audit(ports, actor, now, { action: 'customer.created', entity: { type: 'customer', id: customer.id }, changedAttributes: given }) });
  return customer;
}

/** The grants of the guard that still let their contact in at `now` (expired ones never will again: an expiry cannot be moved). */
export function unexpiredGrants(guard: AccessGuard, now: Date): ActiveGrants {
  return Object.fromEntries(Object.entries(guard.activeGrants).filter(([, g]) => Date.parse(g.expiresAt) > now.getTime()));
}

/**
 * Archiving a customer, or unlinking a contact from it, must not leave a contact with access
 * to a customer that is archived or that it no longer belongs to: while an ACTIVE, unexpired
 * grant of the customer (of one of the unlinked contacts) exists, 409 CUSTOMER_ACCESS_GRANTED
 * naming the grants (`activeGrantIds`). INVITED grants do not block: activation checks the
 * customer and the link again (docs/decisions.md).
 */
function assertNoActiveAccess(customerId: string, guard: AccessGuard, now: Date, archiving: boolean, unlinked: readonly string[]): void {
  const blocking = Object.entries(unexpiredGrants(guard, now)).filter(([, g]) => archiving || unlinked.includes(g.contactId));
  if (blocking.length === 0) return;
  const ids = blocking.map(([grantId]) => grantId).sort();
  const contacts = [...new Set(blocking.map(([, g]) => g.contactId))].sort();
  const what = archiving ? `Customer ${customerId} cannot be archived` : `Contact${contacts.length > 1 ? 's' : ''} ${contacts.join(', ')} cannot be unlinked from customer ${customerId}`;
  throw new AppError(
    PROBLEMS.CUSTOMER_ACCESS_GRANTED,
    `${what}: active customer access still lets ${archiving ? 'its contacts' : contacts.length > 1 ? 'these contacts' : 'the contact'} in (grants ${ids.join(', ')}). Revoke each grant first (POST /customer-access/{grantId}/revoke).`,
    { extensions: { activeGrantIds: ids } },
  );
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * Changes a customer (partial; `archived` archives or restores; lists replace the links).
 * 1. Read (404); If-Match (412).  2. Sending `contactIds` needs contacts:write (403); new links exist, new locations are active (422).  3. Nothing changed: as it is.
 * 4. Archiving, or unlinking a contact, while an ACTIVE grant still lets a contact in: 409
 *    CUSTOMER_ACCESS_GRANTED (revoke first); the transaction holds only while the customer's
 *    access guard is at the version read, so an activation that commits first makes it run again.
 * 5. Stage the next version; a new customer number moves its guard in the same transaction
 *    (409 when another customer holds it). An archived customer keeps its number.
 */
export async function updateCustomer(ports: CustomerPorts, actor: Actor, id: string, ifMatch: string, patch: CustomerPatch): Promise<Customer> {
  const org = actor.principal.organizationId;
  const current = await ports.store.getCustomer(org, id);
  if (!current) throw new NotFoundError(`Customer ${id}`);
  assertEtag(ifMatch, customerEtag(current));
  assertMayLinkContacts(actor, patch.contactIds);
  const locationIds = patch.locationIds === undefined ? current.locationIds : unique(patch.locationIds);
  const contactIds = patch.contactIds === undefined ? current.contactIds : unique(patch.contactIds);
  await assertLinks(ports, org, locationIds, contactIds, current);
  const now = ports.now().toISOString();
  const archived = patch.archived ?? current.archived;
  const candidate: Customer = { ...patched(current, patch, ['name', 'customerNumber', 'billingAddress', 'vatId']), locationIds, contactIds, ...archiveState(current, archived, now) };
  const changed = (['name', 'customerNumber', 'billingAddress', 'vatId', 'archived'] as const).filter((f) => candidate[f] !== current[f]) as string[];
  if (!sameList(candidate.locationIds, current.locationIds)) changed.push('locationIds');
  if (!sameList(candidate.contactIds, current.contactIds)) changed.push('contactIds');
  if (changed.length === 0) return current;
  const archiving = archived && !current.archived;
  const unlinked = current.contactIds.filter((c) => !contactIds.includes(c));
  const access = archiving || unlinked.length > 0 ? await ports.store.accessGuard(org, id) : undefined;
  if (access) assertNoActiveAccess(id, access, new Date(now), archiving, unlinked);
  const next: Customer = revised(current, now, candidate);
  const action = archived !== current.archived ? (archived ? 'customer.archived' : 'customer.restored') : 'customer.updated';
  ports.store.saveCustomer({ before: current, after: next, ...(access ? { access } : {}), audit: audit(ports, actor, now, { action, entity: { type: 'customer', id }, changedAttributes: changed.sort() }) });
  return next;
}
