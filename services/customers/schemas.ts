import * as z from 'zod';
import { limitParameter } from '../shared/http/query';
import { booleanParameter, cursorParameter, freeTextCharacters, nothingToChange, nullableName, nullableText, requiredName, searchParameter, sendsAField, utc } from '../shared/schemas/fields';
import { instant, uuid } from '../shared/time';
import { responseOf } from '../shared/schemas/response';
import { FEEDBACK_CATEGORIES, FEEDBACK_STATES, GRANT_PERMISSIONS, GRANT_STATES, type Customer, type Feedback, type Grant } from './model';

/** Request and response shapes of customers, customer access grants and feedback. */

const MAX_LINKS = 20;

const idList = (field: string) =>
  z.array(uuid(), { error: `${field} must be an array of ids.` }).max(MAX_LINKS, { message: `${field} holds at most ${MAX_LINKS} ids.` });

const customerNumber = () =>
  z
    .string({ error: 'customerNumber is required: a non-empty string.' })
    .trim()
    .min(1, { message: 'customerNumber must not be empty.' })
    .max(40, { message: 'customerNumber is at most 40 characters.' })
    .regex(/^(|[A-Za-z0-9][A-Za-z0-9 ./_-]*)$/, { message: 'customerNumber holds letters, digits, spaces and . / _ - only, starting with a letter or digit.' })
    .meta({ description: 'Unique per organization, compared case-insensitively.' });

const customerFields = {
  billingAddress: nullableText('billingAddress', 500),
  vatId: nullableName('vatId', 30).meta({ description: 'VAT identification number, as written.' }),
  locationIds: idList('locationIds').optional().meta({ description: `Linked locations of this organization (at most ${MAX_LINKS}); a PATCH replaces the list.` }),
  contactIds: idList('contactIds').optional().meta({ description: `Linked reusable contacts of this organization (at most ${MAX_LINKS}); a PATCH replaces the list. Needs contacts:write.` }),
};

export const createCustomerBody = z.object({ name: requiredName('name'), customerNumber: customerNumber(), ...customerFields }).strict();

export const updateCustomerBody = z
  .object({
    name: requiredName('name').optional(),
    customerNumber: customerNumber().optional(),
    ...customerFields,
    archived: z.boolean({ error: 'archived must be true or false.' }).optional().meta({ description: '`true` archives the customer, `false` restores it.' }),
  })
  .strict()
  .refine(sendsAField, nothingToChange());

export const customerListQuery = z
  .object({
    q: searchParameter(),
    archived: booleanParameter('archived', '`true` lists archived customers instead of active ones; default `false`.'),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict();

export const linkedContactSchema = z
  .object({ id: z.uuid(), name: z.string(), email: z.string().nullable(), phone: z.string().nullable(), role: z.string().nullable() })
  .meta({ description: 'A linked reusable contact with its values (only for keys that hold contacts:read).' });

export const customerResponseSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    customerNumber: z.string(),
    billingAddress: z.string().nullable(),
    vatId: z.string().nullable(),
    locationIds: z.array(z.uuid()),
    contactIds: z.array(z.uuid()),
    contacts: z.array(linkedContactSchema).optional().meta({ description: 'The linked contacts with their values, in contactIds order. Present only when the key holds contacts:read.' }),
    archived: z.boolean(),
    archivedAt: utc().nullable(),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Customer' });

export type LinkedContact = z.infer<typeof linkedContactSchema>;

/** The response body of a customer; `contacts` only when the caller may read contact values. */
export function customerResponse(c: Customer, contacts?: readonly LinkedContact[]): z.infer<typeof customerResponseSchema> {
  return responseOf(customerResponseSchema, c, { contacts: contacts?.map((k) => ({ id: k.id, name: k.name, email: k.email, phone: k.phone, role: k.role })) });
}

// ---- customer access ------------------------------------------------------------------------

export const createGrantBody = z
  .object({
    customerId: uuid(),
    contactId: uuid().meta({ description: "One of the customer's linked contacts." }),
    permissions: z
      .array(z.enum(GRANT_PERMISSIONS, { error: `permissions are ${GRANT_PERMISSIONS.join(', ')}.` }))
      .min(1, { message: 'permissions needs at least one permission.' })
      .max(GRANT_PERMISSIONS.length),
    expiresAt: instant().meta({ description: 'In the future, at most 366 days away.' }),
  })
  .strict();

export const activateGrantBody = z
  .object({ invitationSecret: z.string({ error: 'invitationSecret is required.' }).min(1, { message: 'invitationSecret must not be empty.' }).max(200, { message: 'invitationSecret is at most 200 characters.' }) })
  .strict();

export const revokeGrantBody = z
  .object({ reason: z.string().trim().min(1, { message: 'reason must not be empty.' }).max(1000, { message: 'reason is at most 1000 characters.' }).check(freeTextCharacters('reason')).optional() })
  .strict();

export const grantListQuery = z.object({ customerId: uuid().optional(), limit: limitParameter(), cursor: cursorParameter() }).strict();

export const grantResponseSchema = z
  .object({
    id: z.uuid(),
    customerId: z.uuid(),
    contactId: z.uuid(),
    permissions: z.array(z.enum(GRANT_PERMISSIONS)),
    state: z.enum(GRANT_STATES),
    expiresAt: utc(),
    expired: z.boolean().meta({ description: 'true once expiresAt has passed: the grant lets no one in any more (an expired INVITED grant cannot be activated, and an expired grant does not keep its customer from being archived nor its contact from being unlinked); false for a revoked grant.' }),
    activatedAt: utc().nullable(),
    revokedAt: utc().nullable(),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'CustomerAccess', description: 'A grant. The invitation secret is never part of it.' });

export const issuedGrantResponseSchema = grantResponseSchema
  .extend({
    invitationSecret: z
      .string()
      .optional()
      .meta({ description: 'The invitation secret, shown once: in the response that created the grant, never again (an idempotent replay answers without it). Only its SHA-256 is stored.' }),
  })
  .meta({ id: 'IssuedCustomerAccess' });

export const grantResponse = (g: Grant, now: Date): z.infer<typeof grantResponseSchema> => responseOf(grantResponseSchema, g, {
  expired: g.state !== 'REVOKED' && Date.parse(g.expiresAt) <= now.getTime(),
});

// ---- feedback ---------------------------------------------------------------------------------

export const createFeedbackBody = z
  .object({
    rating: z.number({ error: 'rating must be a whole number from 1 to 5.' }).int({ message: 'rating must be a whole number from 1 to 5.' }).min(1, { message: 'rating must be from 1 to 5.' }).max(5, { message: 'rating must be from 1 to 5.' }),
    comment: nullableText('comment', 2000),
    category: z.enum(FEEDBACK_CATEGORIES, { error: `category is one of ${FEEDBACK_CATEGORIES.join(', ')}.` }),
    locationId: uuid(),
    customerId: uuid().optional().meta({ description: 'A customer that links the location.' }),
    inspectionId: uuid().optional().meta({ description: 'A quality inspection made at the location.' }),
    visitConfirmationId: uuid().optional().meta({ description: 'A visit confirmation made at the location (the visit the feedback is about).' }),
  })
  .strict();

export const resolveFeedbackBody = z
  .object({ resolutionNote: z.string({ error: 'resolutionNote is required: say what was done.' }).trim().min(1, { message: 'resolutionNote must not be empty.' }).max(2000, { message: 'resolutionNote is at most 2000 characters.' }).check(freeTextCharacters('resolutionNote')) })
  .strict();

export const feedbackListQuery = z
  .object({
    state: z.enum(FEEDBACK_STATES, { error: `state is one of ${FEEDBACK_STATES.join(', ')}.` }).optional(),
    locationId: uuid().optional(),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict()
  .superRefine((q, ctx) => {
    if (q.state && q.locationId) ctx.addIssue({ code: 'custom', path: ['locationId'], message: 'Filter by state or by locationId, not both.' });
  });

export const feedbackResponseSchema = z
  .object({
    id: z.uuid(),
    rating: z.number().int(),
    comment: z.string().nullable(),
    category: z.enum(FEEDBACK_CATEGORIES),
    locationId: z.uuid(),
    customerId: z.uuid().nullable(),
    inspectionId: z.uuid().nullable(),
    visitConfirmationId: z.uuid().nullable(),
    state: z.enum(FEEDBACK_STATES),
    resolutionNote: z.string().nullable(),
    acknowledgedAt: utc().nullable(),
    resolvedAt: utc().nullable(),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Feedback' });

export const feedbackResponse = (f: Feedback): z.infer<typeof feedbackResponseSchema> => responseOf(feedbackResponseSchema, f);

