import * as z from 'zod';
import { archivableFields, versionedFields } from '../shared/schemas/stored';

/**
 * The entities of the customers area as stored (docs/areas/customers-quality.md lists the
 * access patterns). Items are parsed with their schema on read, never cast.
 *   customer          PK ORG#<org>#CUST#<id>              SK CUST
 *   number guard      PK ORG#<org>#CUSTNO#<NUMBER>         SK GUARD   (customerId: the holder)
 *   access grant      PK ORG#<org>#CUSTACC#<id>           SK GRANT
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
export const feedbackFromItem = (item: Record<string, unknown>): Feedback => feedbackSchema.parse(item);
