import * as z from 'zod';
import { defineArea } from '../shared/area';
import { actionRoute, createRoute, listRoute, readRoute, updateRoute } from '../shared/route-shapes';
import { READ_WRITE } from '../shared/permissions';
import { pageSchema } from '../shared/schemas/fields';
import { activateGrantBody, createCustomerBody, createFeedbackBody, createGrantBody, customerListQuery, customerResponseSchema, feedbackListQuery, feedbackResponseSchema, grantListQuery, grantResponseSchema, issuedGrantResponseSchema, resolveFeedbackBody, revokeGrantBody, updateCustomerBody } from './schemas';
import { PROBLEMS } from './problems';

const CONTACTS = 'Contact values (`contacts`) are present only when the key holds contacts:read; `contactIds` always are.';
const emptyBody = z.object({}).strict();

/** Customers, the access their contacts get, and feedback about the work at their locations. */
export const customersArea = defineArea({
  name: 'customers',
  api: 'public',
  description: 'Customers (with linked locations and contacts), customer access grants and feedback.',
  // Customers with their number guards, grants and feedback; condition checks on locations, contacts, inspections and visit confirmations.
  permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false },
  problems: PROBLEMS,
  demoSeed: true,
  auditEntityTypes: ['customer', 'customer_access', 'feedback'],
  schemas: {
    Customer: customerResponseSchema,
    CustomerList: pageSchema(customerResponseSchema),
    CustomerAccess: grantResponseSchema,
    IssuedCustomerAccess: issuedGrantResponseSchema,
    CustomerAccessList: pageSchema(grantResponseSchema),
    Feedback: feedbackResponseSchema,
    FeedbackList: pageSchema(feedbackResponseSchema),
  },
  routes: {
    listCustomers: listRoute({
      path: '/customers',
      scopes: ['customers:read'],
      summary: 'List or search customers',
      description: `Active customers by name (case-insensitive), or archived ones with \`archived=true\`. With \`q\`: customers whose name or customer number has a word starting with every query word. ${CONTACTS}`,
      query: customerListQuery,
      schema: pageSchema(customerResponseSchema),
      returns: 'A page of customers.',
    }),
    createCustomer: createRoute({
      path: '/customers',
      scopes: ['customers:write'],
      summary: 'Create a customer',
      description: `Creates a customer. The customer number is unique per organization (case-insensitive), checked atomically: of two creates with one number exactly one succeeds, the other is 409 UNIQUENESS_CONFLICT. Linked locations and contacts must belong to this organization, and locations must not be archived (422 at the id). Sending \`contactIds\` also needs contacts:write (403 SCOPE_REQUIRED naming it). ${CONTACTS}`,
      body: createCustomerBody,
      schema: customerResponseSchema,
      returns: 'The created customer.',
      problems: ['UNIQUENESS_CONFLICT'],
    }),
    getCustomer: readRoute({
      path: '/customers/{customerId}',
      scopes: ['customers:read'],
      summary: 'Get one customer',
      description: `One customer, archived or not. ${CONTACTS}`,
      schema: customerResponseSchema,
      returns: 'The customer.',
    }),
    updateCustomer: updateRoute({
      path: '/customers/{customerId}',
      scopes: ['customers:write'],
      summary: 'Update, archive or restore a customer',
      description: `Changes the fields sent; \`locationIds\` and \`contactIds\` replace the links (a newly linked location must not be archived: 422 at its index; sending \`contactIds\` also needs contacts:write: 403 SCOPE_REQUIRED naming it); \`archived: true\` archives (the customer keeps its number), \`false\` restores. A change to the current values changes nothing (same ETag). While an ACTIVE, unexpired customer access grant lets a contact in, archiving the customer, or unlinking that contact, is 409 CUSTOMER_ACCESS_GRANTED (\`activeGrantIds\` names the grants; revoke them first with \`POST /customer-access/{grantId}/revoke\`), checked in the same transaction as the change; INVITED grants do not block (their activation is refused while the customer is archived or the contact unlinked). ${CONTACTS}`,
      body: updateCustomerBody,
      idempotencyKey: 'optional',
      schema: customerResponseSchema,
      returns: 'The customer after the change.',
      problems: ['UNIQUENESS_CONFLICT', PROBLEMS.CUSTOMER_ACCESS_GRANTED],
    }),
    listCustomerAccess: listRoute({
      path: '/customer-access',
      scopes: ['customer_access:read'],
      summary: 'List customer access grants',
      description: 'Grants, oldest first, optionally of one customer. Invitation secrets are never listed.',
      query: grantListQuery,
      schema: pageSchema(grantResponseSchema),
      returns: 'A page of grants.',
    }),
    createCustomerAccess: createRoute({
      path: '/customer-access',
      scopes: ['customer_access:write'],
      summary: 'Invite a customer contact',
      description:
        "Creates an INVITED grant for one of the customer's linked contacts and returns its `invitationSecret` once: only its SHA-256 is stored, it is never listed, logged or audited, and an idempotent replay answers without it. The customer must exist and not be archived (422 /customerId); the contact must be linked to it (422 /contactId).",
      body: createGrantBody,
      schema: issuedGrantResponseSchema,
      returns: 'The grant, with its invitation secret (shown once).',
      noStore: true,
    }),
    getCustomerAccess: readRoute({
      path: '/customer-access/{grantId}',
      scopes: ['customer_access:read'],
      summary: 'Get one customer access grant',
      description: 'One grant; never its secret.',
      schema: grantResponseSchema,
      returns: 'The grant.',
    }),
    activateCustomerAccess: actionRoute({
      path: '/customer-access/{grantId}/activate',
      scopes: ['customer_access:write'],
      summary: 'Activate a grant with its invitation secret',
      description:
        "INVITED -> ACTIVE with the invitation secret (single-use: its hash is dropped). A secret that does not match is 422 at /invitationSecret; an expired grant 409 CUSTOMER_ACCESS_EXPIRED; an active one 409 CUSTOMER_ACCESS_ACTIVE; a revoked one 409 CUSTOMER_ACCESS_REVOKED. What made the invitation valid must still hold: a customer archived since is 409 CUSTOMER_ARCHIVED, a contact no longer linked to the customer 409 CUSTOMER_CONTACT_UNLINKED (the grant stays INVITED: restore the customer or link the contact again, or revoke it).",
      body: activateGrantBody,
      schema: grantResponseSchema,
      returns: 'The active grant.',
      problems: [PROBLEMS.CUSTOMER_ACCESS_ACTIVE, PROBLEMS.CUSTOMER_ACCESS_EXPIRED, PROBLEMS.CUSTOMER_ACCESS_REVOKED, PROBLEMS.CUSTOMER_ARCHIVED, PROBLEMS.CUSTOMER_CONTACT_UNLINKED],
    }),
    revokeCustomerAccess: actionRoute({
      path: '/customer-access/{grantId}/revoke',
      scopes: ['customer_access:write'],
      summary: 'Revoke a grant',
      description: 'INVITED or ACTIVE (expired or not) -> REVOKED, with an optional reason; a revoked grant is final (409 CUSTOMER_ACCESS_REVOKED). Revoking the ACTIVE grants of a customer lets it be archived, and its contacts be unlinked (409 CUSTOMER_ACCESS_GRANTED before). The body may be absent.',
      body: revokeGrantBody,
      bodyOptional: true,
      schema: grantResponseSchema,
      returns: 'The revoked grant.',
      problems: [PROBLEMS.CUSTOMER_ACCESS_REVOKED],
    }),
    listFeedback: listRoute({
      path: '/feedback',
      scopes: ['feedback:read'],
      summary: 'List feedback',
      description: 'Feedback, oldest first (createdAt, then id); filter by `state` or by `locationId` (one of the two).',
      query: feedbackListQuery,
      schema: pageSchema(feedbackResponseSchema),
      returns: 'A page of feedback.',
    }),
    createFeedback: createRoute({
      path: '/feedback',
      scopes: ['feedback:write'],
      summary: 'Record feedback',
      description:
        'Records OPEN feedback about the work at a location: rating 1..5, category, optional comment, optional customer (that links the location), inspection and visit confirmation (each made at the location). The location and the customer must not be archived; each reference is checked in the same transaction (422 at the field).',
      body: createFeedbackBody,
      schema: feedbackResponseSchema,
      returns: 'The feedback.',
    }),
    getFeedback: readRoute({
      path: '/feedback/{feedbackId}',
      scopes: ['feedback:read'],
      summary: 'Get one feedback',
      description: 'One feedback, in any state (feedback is never deleted).',
      schema: feedbackResponseSchema,
      returns: 'The feedback.',
    }),
    acknowledgeFeedback: actionRoute({
      path: '/feedback/{feedbackId}/acknowledge',
      scopes: ['feedback:write'],
      summary: 'Acknowledge feedback',
      description: 'OPEN -> ACKNOWLEDGED; already acknowledged is 409 FEEDBACK_ACKNOWLEDGED, resolved 409 FEEDBACK_RESOLVED. The body may be absent or `{}`.',
      body: emptyBody,
      bodyOptional: true,
      schema: feedbackResponseSchema,
      returns: 'The acknowledged feedback.',
      problems: [PROBLEMS.FEEDBACK_ACKNOWLEDGED, PROBLEMS.FEEDBACK_RESOLVED],
    }),
    resolveFeedback: actionRoute({
      path: '/feedback/{feedbackId}/resolve',
      scopes: ['feedback:write'],
      summary: 'Resolve feedback',
      description: 'OPEN or ACKNOWLEDGED -> RESOLVED with a resolution note; resolved feedback is final (409 FEEDBACK_RESOLVED).',
      body: resolveFeedbackBody,
      schema: feedbackResponseSchema,
      returns: 'The resolved feedback.',
      problems: [PROBLEMS.FEEDBACK_RESOLVED],
    }),
  },
});
