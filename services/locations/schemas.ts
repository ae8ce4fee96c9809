import * as z from 'zod';
import { limitParameter } from '../shared/http/query';
import { uuid } from '../shared/time';
import type { LocationView, QrRotation } from './domain';
import type { Contact } from './model';
import { booleanParameter, cursorParameter, nothingToChange, nullableEmail, nullableName, nullablePhone, nullableText, requiredName, searchParameter, sendsAField, utc } from '../shared/schemas/fields';
import { responseOf } from '../shared/schemas/response';

/** Request and response shapes of locations and reusable contacts. */

const contactIds = () => z.array(uuid(), { error: 'contactIds must be an array of contact ids.' }).meta({ description: 'Reusable contacts to link, in display order; at most 20. Needs contacts:write.' });

export const createLocationBody = z
  .object({
    name: requiredName('name'),
    address: nullableText('address', 500),
    contactIds: contactIds().optional(),
  })
  .strict();

export const updateLocationBody = z
  .object({
    name: requiredName('name').optional(),
    address: nullableText('address', 500),
    contactIds: contactIds().optional(),
    archived: z.boolean({ error: 'archived must be true or false.' }).optional().meta({ description: '`false` restores an archived location; `true` archives it (as DELETE does).' }),
  })
  .strict()
  .refine(sendsAField, nothingToChange('name, address, contactIds or archived'));

/** POST /qr/rotate takes no input; an empty object is accepted for clients that always send one. */
export const rotateQrBody = z.object({}).strict();

export const locationListQuery = z
  .object({
    q: searchParameter(),
    archived: booleanParameter('archived', '`true` lists archived locations instead of active ones; default `false`.'),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict();

export const createContactBody = z
  .object({
    name: requiredName('name'),
    email: nullableEmail('email'),
    phone: nullablePhone('phone'),
    role: nullableName('role', 100),
  })
  .strict();

export const updateContactBody = createContactBody
  .partial()
  .strict()
  .refine(sendsAField, nothingToChange('name, email, phone or role'));

export const contactListQuery = z.object({ q: searchParameter(), limit: limitParameter(), cursor: cursorParameter() }).strict();

export const contactResponseSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    role: z.string().nullable(),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Contact', description: 'A reusable contact: organization-owned personal data.' });

/** What every route answering a location says of it: appended to those routes' descriptions (area.ts). */
export const CONTACT_VALUES_NOTE = 'Contact values (`contacts`) are present only when the key holds contacts:read; `contactIds` always are.';

export const locationResponseSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    address: z.string().nullable(),
    archived: z.boolean(),
    archivedAt: utc().nullable(),
    contactIds: z.array(z.uuid()),
    contacts: z.array(contactResponseSchema).optional().meta({ description: 'The linked contacts with their values, in contactIds order. Present only when the key holds contacts:read; absent otherwise.' }),
    qrRotatedAt: utc().nullable().meta({ description: 'When the QR secret was last rotated; null before the first rotation.' }),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Location' });

export const qrRotationResponseSchema = z
  .object({
    locationId: z.uuid(),
    publicReference: z.string().meta({ description: 'The public reference of the new QR code. The secret is never returned.' }),
    rotatedAt: utc(),
  })
  .meta({ id: 'LocationQrRotation' });

export const contactResponse = (c: Contact): z.infer<typeof contactResponseSchema> => responseOf(contactResponseSchema, c);

/** The response body of a location; `contacts` exactly when the view carries them (contacts:read). */
export function locationResponse({ location: l, contacts }: LocationView): z.infer<typeof locationResponseSchema> {
  return responseOf(locationResponseSchema, l, { contacts: contacts?.map(contactResponse) });
}

export const qrRotationResponse = (r: QrRotation): z.infer<typeof qrRotationResponseSchema> => ({
  locationId: r.view.location.id,
  publicReference: r.publicReference,
  rotatedAt: r.rotatedAt,
});
