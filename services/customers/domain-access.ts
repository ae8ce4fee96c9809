import { createHash, timingSafeEqual } from 'node:crypto';
import type { Actor } from '../shared/domain/actor';
import { assertEtag, versionedEtag } from '../shared/domain/etag';
import { newRecord, revised } from '../shared/domain/lifecycle';
import { AppError, NotFoundError, ValidationError, fieldError } from '../shared/errors';
import { audit, unexpiredGrants, type CustomerPorts } from './domain';
import type { Grant, GrantPermission } from './model';
import { PROBLEMS } from './problems';

/**
 * Customer access grants: a customer's contact may see its locations' reports and give
 * feedback. `INVITED` -> `ACTIVE` -> `REVOKED` (and `INVITED` -> `REVOKED`); a grant past its
 * `expiresAt` is `expired` and cannot be activated. The invitation secret is shown once, in
 * the response that creates the grant; only its SHA-256 is stored, and activation consumes it.
 * The customer's access guard lists its ACTIVE grants: activation adds one, revocation removes
 * it (both drop expired ones), so that archiving the customer or unlinking a contact can refuse
 * while access is active, in the same transaction (domain.ts).
 */

export const grantEtag = versionedEtag<Grant>('customer-access');

/** Hex SHA-256 of an invitation secret (256 random bits: no pepper needed, as for API keys). */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Constant-time comparison of a presented secret with the stored hash. */
export function secretMatches(secret: string, storedHash: string | null): boolean {
  if (!storedHash) return false;
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export const isExpired = (g: Grant, now: Date): boolean => g.state !== 'REVOKED' && Date.parse(g.expiresAt) <= now.getTime();

/** The longest a grant may run: one year. */
export const MAX_GRANT_DAYS = 366;

export interface GrantInput {
  readonly customerId: string;
  readonly contactId: string;
  readonly permissions: readonly GrantPermission[];
  readonly expiresAt: string;
}

export interface IssuedGrant {
  readonly grant: Grant;
  /** The clear invitation secret: for the response that creates the grant, nowhere else. */
  readonly invitationSecret: string;
}

/**
 * Invites a customer's contact. 1. expiresAt in the future, at most a year away (422).
 * 2. The customer exists, is not archived, and links the contact (422 at the field).
 * 3. A new secret; stage the grant (INVITED, the secret's hash) with a check that the
 *    customer is still at the version read; the audit entry names customer and contact, never the secret.
 */
export async function createGrant(ports: CustomerPorts, actor: Actor, input: GrantInput): Promise<IssuedGrant> {
  const org = actor.principal.organizationId;
  const now = ports.now();
  const expires = Date.parse(input.expiresAt);
  if (expires <= now.getTime()) throw fieldError('/expiresAt', 'expiresAt must be in the future.');
  if (expires > now.getTime() + MAX_GRANT_DAYS * 86_400_000) throw fieldError('/expiresAt', `expiresAt is at most ${MAX_GRANT_DAYS} days away.`);
  const customer = await ports.store.getCustomer(org, input.customerId);
  if (!customer || customer.archived) throw fieldError('/customerId', customer ? `Customer ${input.customerId} is archived.` : `Customer ${input.customerId} does not exist in this organization.`);
  if (!customer.contactIds.includes(input.contactId)) {
    throw fieldError('/contactId', `Contact ${input.contactId} is not linked to customer ${customer.id}; link it first (PATCH the customer's contactIds).`);
  }
  if ((await ports.store.missingContacts(org, [input.contactId])).length > 0) throw fieldError('/contactId', `Contact ${input.contactId} does not exist in this organization.`);
  const at = now.toISOString();
  const invitationSecret = ports.newSecret();
  const grant: Grant = {
    ...newRecord(ports.newId(), org, at),
    customerId: customer.id,
    contactId: input.contactId,
    permissions: [...new Set(input.permissions)].sort(),
    state: 'INVITED',
    expiresAt: input.expiresAt,
    secretHash: hashSecret(invitationSecret),
    activatedAt: null,
    revokedAt: null,
  };
  ports.store.saveGrant({
    after: grant,
    customer,
    audit: audit(ports, actor, at, {
      action: 'customer_access.invited',
      entity: { type: 'customer_access', id: grant.id },
      references: { customerId: customer.id, contactId: input.contactId },
      after: { state: 'INVITED', expiresAt: grant.expiresAt, permissions: grant.permissions.join(' ') },
    }),
  });
  return { grant, invitationSecret };
}

async function readGrant(ports: CustomerPorts, actor: Actor, id: string, ifMatch: string): Promise<Grant> {
  const grant = await ports.store.getGrant(actor.principal.organizationId, id);
  if (!grant) throw new NotFoundError(`Customer access ${id}`);
  assertEtag(ifMatch, grantEtag(grant));
  return grant;
}

/**
 * Activates an invited grant with its invitation secret. REVOKED: 409 CUSTOMER_ACCESS_REVOKED;
 * ACTIVE: 409 CUSTOMER_ACCESS_ACTIVE; past expiresAt: 409 CUSTOMER_ACCESS_EXPIRED; the customer
 * archived since the invitation: 409 CUSTOMER_ARCHIVED; the contact no longer linked to it:
 * 409 CUSTOMER_CONTACT_UNLINKED (what made the invitation valid must still hold: an archived
 * customer gets no new access); a secret that does not match: 422 at /invitationSecret. The
 * grant stays INVITED in each case. The secret is single-use: its hash is dropped; the
 * transaction checks the customer still at the version read and puts the next version of the
 * customer's access guard, listing this grant.
 */
export async function activateGrant(ports: CustomerPorts, actor: Actor, id: string, ifMatch: string, invitationSecret: string): Promise<Grant> {
  const grant = await readGrant(ports, actor, id, ifMatch);
  const now = ports.now();
  if (grant.state === 'REVOKED') throw new AppError(PROBLEMS.CUSTOMER_ACCESS_REVOKED, `Customer access ${id} is revoked; invite the contact again.`);
  if (grant.state === 'ACTIVE') throw new AppError(PROBLEMS.CUSTOMER_ACCESS_ACTIVE, `Customer access ${id} is already active.`);
  if (isExpired(grant, now)) throw new AppError(PROBLEMS.CUSTOMER_ACCESS_EXPIRED, `Customer access ${id} expired at ${grant.expiresAt}; invite the contact again.`);
  const customer = await ports.store.getCustomer(grant.organizationId, grant.customerId);
  if (!customer || customer.archived) throw new AppError(PROBLEMS.CUSTOMER_ARCHIVED, `Customer ${grant.customerId} is archived: an archived customer gets no new access. Restore the customer to activate this grant.`);
  if (!customer.contactIds.includes(grant.contactId)) {
    throw new AppError(PROBLEMS.CUSTOMER_CONTACT_UNLINKED, `Contact ${grant.contactId} is no longer linked to customer ${customer.id}; link it again (PATCH the customer's contactIds) to activate this grant.`);
  }
  if (!secretMatches(invitationSecret, grant.secretHash)) throw new ValidationError([{ pointer: '/invitationSecret', detail: 'This is not the invitation secret of this grant.' }]);
  const guard = await ports.store.accessGuard(grant.organizationId, grant.customerId);
  const at = now.toISOString();
  const next: Grant = revised(grant, at, { state: 'ACTIVE', secretHash: null, activatedAt: at });
  ports.store.saveGrant({
    before: grant,
    after: next,
    customer,
    access: { before: guard, activeGrants: { ...unexpiredGrants(guard, now), [id]: { contactId: grant.contactId, expiresAt: grant.expiresAt } } },
    audit: audit(ports, actor, at, { action: 'customer_access.activated', entity: { type: 'customer_access', id }, references: { customerId: grant.customerId }, before: { state: grant.state }, after: { state: 'ACTIVE' } }),
  });
  return next;
}

/**
 * Revokes an invited or active grant (also an expired one); a revoked grant is final (409
 * CUSTOMER_ACCESS_REVOKED). An ACTIVE grant leaves the customer's access guard (the guard's
 * next version, from the version read), so the customer may then be archived or the contact unlinked.
 */
export async function revokeGrant(ports: CustomerPorts, actor: Actor, id: string, ifMatch: string, reason?: string): Promise<Grant> {
  const grant = await readGrant(ports, actor, id, ifMatch);
  if (grant.state === 'REVOKED') throw new AppError(PROBLEMS.CUSTOMER_ACCESS_REVOKED, `Customer access ${id} is already revoked.`);
  const now = ports.now();
  const guard = grant.state === 'ACTIVE' ? await ports.store.accessGuard(grant.organizationId, grant.customerId) : undefined;
  const at = now.toISOString();
  const next: Grant = revised(grant, at, { state: 'REVOKED', secretHash: null, revokedAt: at });
  const { [id]: listed, ...others } = guard?.activeGrants ?? {};
  ports.store.saveGrant({
    before: grant,
    after: next,
    ...(guard && listed ? { access: { before: guard, activeGrants: unexpiredGrants({ ...guard, activeGrants: others }, now) } } : {}),
    audit: audit(ports, actor, at, {
      action: 'customer_access.revoked',
      entity: { type: 'customer_access', id },
      references: { customerId: grant.customerId },
      ...(reason ? { reason } : {}),
      before: { state: grant.state },
      after: { state: 'REVOKED' },
    }),
  });
  return next;
}
