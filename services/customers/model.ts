import * as z from 'zod';
import { archivableFields, versionedFields } from '../shared/schemas/stored';

/**
 * The entities of the customers area as stored (docs/areas/customers-quality.md lists the
 * access patterns). Items are parsed with their schema on read, never cast.
 *   customer          PK ORG#<org>#CUST#<id>              SK CUST
 *   number guard      PK ORG#<org>#CUSTNO#<NUMBER>         SK GUARD   (customerId: the holder)
 *   access grant      PK ORG#<org>#CUSTACC#<id>           SK GRANT
 *   access guard      PK ORG#<org>#CUST#<id>              SK ACCESS  (the customer's ACTIVE grants)
 *   feedback          PK ORG#<org>#FEEDBACK#<id>          SK FEEDBACK
 *   GSI1 ORG#<org>#CUSTOMERS[#ARCHIVED] / <lower name>#<id>        customers by name
 *   GSI1 ORG#<org>#CUSTACC / <createdAt>#<id>                      grants, oldest first
 *   GSI2 ORG#<org>#CUST#<customer>#CUSTACC / <createdAt>#<id>      one customer's grants
 *   GSI1 ORG#<org>#FEEDBACK / <createdAt>#<id>                     feedback, oldest first
 *   GSI2 ORG#<org>#FEEDBACK#<state> / <createdAt>#<id>             feedback in one state
 *   GSI3 ORG#<org>#LOC#<loc>#FEEDBACK / <createdAt>#<id>           feedback of one location
 *   search index scopes `customer` and `customer_archived`: name and customer number
 * The customer number guard holds the normalized number (trimmed, upper case): two customers
 * of one organization can never hold one number, whatever the race.
 */

const nullableText = z.string().nullable().default(null);

export const customerSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    customerNumber: z.string(),
    billingAddress: nullableText,
    vatId: nullableText,
    locationIds: z.array(z.string()).default([]),
    contactIds: z.array(z.string()).default([]),
    ...archivableFields,
  })
  .readonly();
export type Customer = z.output<typeof customerSchema>;

export const GRANT_STATES = ['INVITED', 'ACTIVE', 'REVOKED'] as const;
export type GrantState = (typeof GRANT_STATES)[number];
export const GRANT_PERMISSIONS = ['reports:read', 'feedback:write'] as const;
export type GrantPermission = (typeof GRANT_PERMISSIONS)[number];

/** A customer contact's access. `secretHash`: hex SHA-256 of the invitation secret, until it is used or revoked. */
export const grantSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    customerId: z.string(),
    contactId: z.string(),
    permissions: z.array(z.enum(GRANT_PERMISSIONS)),
    state: z.enum(GRANT_STATES),
    expiresAt: z.string(),
    secretHash: nullableText,
    activatedAt: nullableText,
    revokedAt: nullableText,
    ...versionedFields,
  })
  .readonly();
export type Grant = z.output<typeof grantSchema>;

/** What the access guard holds of one ACTIVE grant: whose it is and until when it lets in. */
export const activeGrantSchema = z.object({ contactId: z.string(), expiresAt: z.string() }).readonly();
export type ActiveGrant = z.output<typeof activeGrantSchema>;
export type ActiveGrants = Readonly<Record<string, ActiveGrant>>;

/**
 * The per-customer access guard: the customer's ACTIVE grants (grant id -> contact, expiry)
 * and a version that every activation and revocation of an ACTIVE grant moves on. An archive
 * or an unlink that found no active access holds only while the guard is still at the version
 * it read, and an activation only while the customer is: of the two, one commits first and
 * the other runs again. A missing item reads as version 0 (docs/decisions.md: grants activated
 * before the guard existed are read from GSI2 until a write puts the guard).
 */
export const accessGuardSchema = z
  .object({
    organizationId: z.string(),
    customerId: z.string(),
    version: z.number().int().default(0),
    activeGrants: z.record(z.string(), activeGrantSchema).readonly().default({}),
  })
  .readonly();
export type AccessGuard = z.output<typeof accessGuardSchema>;

export const FEEDBACK_STATES = ['OPEN', 'ACKNOWLEDGED', 'RESOLVED'] as const;
export type FeedbackState = (typeof FEEDBACK_STATES)[number];
export const FEEDBACK_CATEGORIES = ['CLEANLINESS', 'PUNCTUALITY', 'STAFF', 'COMMUNICATION', 'QUALITY', 'OTHER'] as const;

export const feedbackSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    rating: z.number().int(),
    comment: nullableText,
    category: z.enum(FEEDBACK_CATEGORIES),
    locationId: z.string(),
    customerId: nullableText,
    inspectionId: nullableText,
    visitConfirmationId: nullableText,
    state: z.enum(FEEDBACK_STATES),
    resolutionNote: nullableText,
    acknowledgedAt: nullableText,
    resolvedAt: nullableText,
    ...versionedFields,
  })
  .readonly();
export type Feedback = z.output<typeof feedbackSchema>;

/** The form a customer number is unique in: trimmed, upper case ("c-100" and "C-100" are one number). */
export const normalizeCustomerNumber = (n: string): string => n.trim().toUpperCase();

export const customerKeys = {
  customer: (org: string, id: string) => ({ PK: `ORG#${org}#CUST#${id}`, SK: 'CUST' }),
  numberGuard: (org: string, customerNumber: string) => ({ PK: `ORG#${org}#CUSTNO#${normalizeCustomerNumber(customerNumber)}`, SK: 'GUARD' }),
  byOrganization: (org: string, archived: boolean) => (archived ? `ORG#${org}#CUSTOMERS#ARCHIVED` : `ORG#${org}#CUSTOMERS`),
  grant: (org: string, id: string) => ({ PK: `ORG#${org}#CUSTACC#${id}`, SK: 'GRANT' }),
  accessGuard: (org: string, customerId: string) => ({ PK: `ORG#${org}#CUST#${customerId}`, SK: 'ACCESS' }),
  grants: (org: string) => `ORG#${org}#CUSTACC`,
  customerGrants: (org: string, customerId: string) => `ORG#${org}#CUST#${customerId}#CUSTACC`,
  feedback: (org: string, id: string) => ({ PK: `ORG#${org}#FEEDBACK#${id}`, SK: 'FEEDBACK' }),
  feedbackList: (org: string) => `ORG#${org}#FEEDBACK`,
  feedbackInState: (org: string, state: FeedbackState) => `ORG#${org}#FEEDBACK#${state}`,
  locationFeedback: (org: string, locationId: string) => `ORG#${org}#LOC#${locationId}#FEEDBACK`,
};

export const customerSearchScope = (archived: boolean): string => (archived ? 'customer_archived' : 'customer');

export const customerToItem = (c: Customer): Record<string, unknown> => ({
  ...customerKeys.customer(c.organizationId, c.id),
  GSI1PK: customerKeys.byOrganization(c.organizationId, c.archived),
  GSI1SK: `${c.name.toLowerCase()}#${c.id}`,
  itemType: 'Customer',
  ...c,
});

export const numberGuardItem = (c: Pick<Customer, 'organizationId' | 'id' | 'customerNumber'>): Record<string, unknown> => ({
  ...customerKeys.numberGuard(c.organizationId, c.customerNumber),
  itemType: 'CustomerNumberGuard',
  organizationId: c.organizationId,
  customerId: c.id,
});

export const grantToItem = (g: Grant): Record<string, unknown> => ({
  ...customerKeys.grant(g.organizationId, g.id),
  GSI1PK: customerKeys.grants(g.organizationId),
  GSI1SK: `${g.createdAt}#${g.id}`,
  GSI2PK: customerKeys.customerGrants(g.organizationId, g.customerId),
  GSI2SK: `${g.createdAt}#${g.id}`,
  itemType: 'CustomerAccessGrant',
  ...g,
});

export const accessGuardToItem = (g: AccessGuard): Record<string, unknown> => ({
  ...customerKeys.accessGuard(g.organizationId, g.customerId),
  itemType: 'CustomerAccessGuard',
  organizationId: g.organizationId,
  customerId: g.customerId,
  version: g.version,
  activeGrants: g.activeGrants,
});

export const feedbackToItem = (f: Feedback): Record<string, unknown> => ({
  ...customerKeys.feedback(f.organizationId, f.id),
  GSI1PK: customerKeys.feedbackList(f.organizationId),
  GSI1SK: `${f.createdAt}#${f.id}`,
  GSI2PK: customerKeys.feedbackInState(f.organizationId, f.state),
  GSI2SK: `${f.createdAt}#${f.id}`,
  GSI3PK: customerKeys.locationFeedback(f.organizationId, f.locationId),
  GSI3SK: `${f.createdAt}#${f.id}`,
  itemType: 'Feedback',
  ...f,
});

export const customerFromItem = (item: Record<string, unknown>): Customer => customerSchema.parse(item);
export const grantFromItem = (item: Record<string, unknown>): Grant => grantSchema.parse(item);
export const accessGuardFromItem = (item: Record<string, unknown>): AccessGuard => accessGuardSchema.parse(item);
export const feedbackFromItem = (item: Record<string, unknown>): Feedback => feedbackSchema.parse(item);
