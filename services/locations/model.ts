import * as z from 'zod';
import { versionedFields } from '../shared/schemas/stored';

/**
 * The entities of the locations area as stored: each type is the output of its item schema,
 * and items are parsed with it on read (unknown attributes such as keys are dropped, a
 * malformed item fails loudly instead of flowing on as a cast). Keys live here too
 * (docs/areas/locations.md lists the access patterns):
 *   location   PK ORG#<org>#LOC#<id>        SK LOC
 *   QR secret  PK ORG#<org>#LOC#<id>        SK QR        (SHA-256 of the secret only; never listed)
 *   contact    PK ORG#<org>#CONTACT#<id>    SK CONTACT
 *   GSI1 ORG#<org>#LOCATIONS           / <lower name>#<id>   active locations by name
 *   GSI1 ORG#<org>#LOCATIONS#ARCHIVED  / <lower name>#<id>   archived locations by name
 *   GSI1 QRREF#<public reference>      / QR                  the scan channel's lookup of a QR code
 *   GSI1 ORG#<org>#CONTACTS            / <createdAt>#<id>    contacts in creation order
 *   search index scopes `location` / `location_archived` (name, address) and `contact`
 *   (name, e-mail, phone, the phone's digits run together)
 * Time entries and work events refer to locations by id, so a location is never deleted:
 * archiving moves it to the archived partitions and keeps the item readable by id. No
 * contact value is part of a table or index key.
 */

const nullableText = z.string().nullable().default(null);

/**
 * A registered location of an organization (work site). Items written before versions (the
 * seed, older fixtures) lack `version`, `archived`, `contactIds`... : the schema resolves them
 * (version 1, active, no contacts), so the area always works with every attribute present.
 */
export const locationSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    /** Public address of the site (organization data, not a typed mobile address). */
    address: nullableText,
    archived: z.boolean().default(false),
    archivedAt: nullableText,
    /** Reusable contacts linked to the location, in link order. */
    contactIds: z.array(z.string()).readonly().default([]),
    /** When the QR secret was last rotated. */
    qrRotatedAt: nullableText,
    /** Increases with every change; the ETag carries it. */
    version: z.number().int().default(1),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .readonly();
/** A location with every attribute resolved: what the locations area works with. */
export type LocationRecord = z.output<typeof locationSchema>;
/** A location as written by the seed and fixtures: the attributes added with versions may be left out. */
export type Location = z.input<typeof locationSchema>;

/** A reusable contact of an organization: organization-owned personal data. */
export const contactSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    email: nullableText,
    phone: nullableText,
    /** What the person does for the sites (e.g. "Facility manager"). */
    role: nullableText,
    ...versionedFields,
  })
  .readonly();
export type Contact = z.output<typeof contactSchema>;

/** A location's QR secret: only its SHA-256 is ever stored, under a public reference. */
export const qrSecretSchema = z
  .object({
    publicReference: z.string(),
    /** Hex SHA-256 of the secret. */
    secretHash: z.string(),
    rotatedAt: z.string(),
  })
  .readonly();
export type QrSecret = z.output<typeof qrSecretSchema>;

export const LOCATION_ENTITY = 'Location';
export const QR_SECRET_ENTITY = 'LocationQrSecret';
export const CONTACT_ENTITY = 'Contact';

export const locationKeys = {
  location: (organizationId: string, id: string) => ({ PK: `ORG#${organizationId}#LOC#${id}`, SK: 'LOC' }),
  /** GSI1: the locations of an organization by name. */
  byOrganization: (organizationId: string, name?: string, id?: string) => ({
    GSI1PK: `ORG#${organizationId}#LOCATIONS`,
    ...(name !== undefined && id ? { GSI1SK: `${name.toLowerCase()}#${id}` } : {}),
  }),
  /** GSI1: the archived locations of an organization by name. */
  archivedByOrganization: (organizationId: string, name?: string, id?: string) => ({
    GSI1PK: `ORG#${organizationId}#LOCATIONS#ARCHIVED`,
    ...(name !== undefined && id ? { GSI1SK: `${name.toLowerCase()}#${id}` } : {}),
  }),
  qrSecret: (organizationId: string, id: string) => ({ PK: `ORG#${organizationId}#LOC#${id}`, SK: 'QR' }),
  /** GSI1: a QR code's public reference -> its location (the scan channel resolves codes with it). */
  byQrReference: (publicReference: string) => ({ GSI1PK: `QRREF#${publicReference}`, GSI1SK: 'QR' }),
};

export const contactKeys = {
  contact: (organizationId: string, id: string) => ({ PK: `ORG#${organizationId}#CONTACT#${id}`, SK: 'CONTACT' }),
  /** GSI1: the contacts of an organization in creation order. */
  byOrganization: (organizationId: string, createdAt?: string, id?: string) => ({
    GSI1PK: `ORG#${organizationId}#CONTACTS`,
    ...(createdAt && id ? { GSI1SK: `${createdAt}#${id}` } : {}),
  }),
};

/** Search scopes: active and archived locations are found separately. */
export const locationSearchScope = (archived: boolean): string => (archived ? 'location_archived' : 'location');
export const CONTACT_SEARCH_SCOPE = 'contact';

/**
 * The item of a location. A null or absent address is left out, as items without one always
 * were; the attributes the seed may leave out are written only when given.
 */
export function locationToItem(l: Location): Record<string, unknown> {
  const { address, ...rest } = l;
  return {
    ...locationKeys.location(l.organizationId, l.id),
    ...(l.archived ? locationKeys.archivedByOrganization(l.organizationId, l.name, l.id) : locationKeys.byOrganization(l.organizationId, l.name, l.id)),
    itemType: LOCATION_ENTITY,
    ...rest,
    ...(address !== null && address !== undefined ? { address } : {}),
  };
}

export const contactToItem = (c: Contact): Record<string, unknown> => ({
  ...contactKeys.contact(c.organizationId, c.id),
  ...contactKeys.byOrganization(c.organizationId, c.createdAt, c.id),
  itemType: CONTACT_ENTITY,
  ...c,
});

export const qrSecretToItem = (organizationId: string, locationId: string, qr: QrSecret): Record<string, unknown> => ({
  ...locationKeys.qrSecret(organizationId, locationId),
  ...locationKeys.byQrReference(qr.publicReference),
  itemType: QR_SECRET_ENTITY,
  organizationId,
  locationId,
  ...qr,
});

export const locationFromItem = (item: Record<string, unknown>): LocationRecord => locationSchema.parse(item);
export const contactFromItem = (item: Record<string, unknown>): Contact => contactSchema.parse(item);
