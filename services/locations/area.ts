import { defineArea } from '../shared/area';
import { createRoute, listRoute, readRoute, removeRoute, updateRoute } from '../shared/route-shapes';
import { READ_WRITE } from '../shared/permissions';
import { pageSchema } from '../shared/schemas/fields';
import {
  contactListQuery,
  contactResponseSchema,
  createContactBody,
  createLocationBody,
  locationListQuery,
  locationResponseSchema,
  qrRotationResponseSchema,
  rotateQrBody,
  updateContactBody,
  updateLocationBody,
} from './schemas';

const CONTACT_VALUES = 'Contact values (`contacts`) are present only when the key holds contacts:read; `contactIds` always are.';

const locationList = pageSchema(locationResponseSchema);
const contactList = pageSchema(contactResponseSchema);

/** Locations (work sites), reusable contacts linked to them, and the rotation of a location's QR secret. */
export const locationsArea = defineArea({
  name: 'locations',
  api: 'public',
  description: 'Locations, reusable contacts and QR rotation.',
  // Locations, reusable contacts, QR secrets (hashed) and their search index.
  permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false },
  auditEntityTypes: ['location', 'contact'],
  schemas: {
    Location: locationResponseSchema,
    LocationList: locationList,
    LocationQrRotation: qrRotationResponseSchema,
    Contact: contactResponseSchema,
    ContactList: contactList,
  },
  routes: {
    listLocations: listRoute({
      path: '/locations',
      scopes: ['locations:read'],
      summary: 'List or search locations',
      description: `Active locations by name (case-insensitive), or archived ones with \`archived=true\`. With \`q\`: locations whose name or address has a word starting with every query word, in match order. ${CONTACT_VALUES}`,
      query: locationListQuery,
      schema: locationList,
      returns: 'A page of locations.',
    }),
    createLocation: createRoute({
      path: '/locations',
      scopes: ['locations:write'],
      summary: 'Create a location',
      description: `Creates a location, atomically with its audit entry. Linking contacts in \`contactIds\` also needs contacts:write; each must be a contact of this organization (422 at its index). ${CONTACT_VALUES}`,
      body: createLocationBody,
      schema: locationResponseSchema,
      returns: 'The created location.',
    }),
    getLocation: readRoute({
      path: '/locations/{locationId}',
      scopes: ['locations:read'],
      summary: 'Get one location',
      description: `One location, archived or not (time entries and work events keep referring to archived ones). ${CONTACT_VALUES}`,
      schema: locationResponseSchema,
      returns: 'The location.',
    }),
    updateLocation: updateRoute({
      path: '/locations/{locationId}',
      scopes: ['locations:write'],
      summary: 'Update a location',
      description: `Changes the fields sent (partial). Replacing \`contactIds\` also needs contacts:write. \`archived: false\` restores an archived location. A change to the current values changes nothing (same ETag). ${CONTACT_VALUES}`,
      body: updateLocationBody,
      idempotencyKey: 'optional',
      schema: locationResponseSchema,
      returns: 'The location after the change.',
    }),
    archiveLocation: removeRoute({
      path: '/locations/{locationId}',
      scopes: ['locations:write'],
      summary: 'Archive a location',
      description: `Archives the location: it leaves the default list and search, stays readable by id, and can be restored with PATCH \`archived: false\`. Archiving an archived location changes nothing. If-Match is optional and honoured when sent. ${CONTACT_VALUES}`,
      schema: locationResponseSchema,
      returns: 'The archived location.',
    }),
    rotateLocationQr: {
      method: 'POST',
      path: '/locations/{locationId}/qr/rotate',
      scopes: ['locations:qr'],
      summary: "Rotate a location's QR secret",
      description:
        "Rotates the location's QR secret: a new random secret, stored only as its SHA-256 hash, under a new public reference; the previous code stops being valid at once. The response gives the public reference and the rotation time, never the secret or its hash; the audit entry records only that a rotation happened. Needs an Idempotency-Key: a retry replays the same rotation instead of invalidating the code again. The body may be absent or `{}`.",
      body: rotateQrBody,
      bodyOptional: true,
      idempotencyKey: 'required',
      success: { status: 200, description: "The new public reference; the ETag is the location's new one.", schema: qrRotationResponseSchema, headers: ['ETag'] },
      problems: [],
    },
    linkLocationContact: {
      method: 'PUT',
      path: '/locations/{locationId}/contacts/{contactId}',
      scopes: ['locations:write', 'contacts:write'],
      summary: 'Link a contact to a location',
      description: `Links a reusable contact of this organization to the location (at most 20 per location). Linking a linked contact changes nothing. If-Match is optional and honoured when sent. ${CONTACT_VALUES}`,
      ifMatch: 'optional',
      idempotencyKey: 'optional',
      success: { status: 200, description: 'The location with the contact linked.', schema: locationResponseSchema, headers: ['ETag'] },
      problems: [],
    },
    unlinkLocationContact: removeRoute({
      path: '/locations/{locationId}/contacts/{contactId}',
      scopes: ['locations:write', 'contacts:write'],
      summary: 'Unlink a contact from a location',
      description: `Unlinks a contact from the location; the contact itself stays. Unlinking a contact that is not linked changes nothing. ${CONTACT_VALUES}`,
      schema: locationResponseSchema,
      returns: 'The location without the contact.',
    }),
    listContacts: listRoute({
      path: '/contacts',
      scopes: ['contacts:read'],
      summary: 'List or search reusable contacts',
      description: 'Reusable contacts in creation order; with `q`, those whose name, e-mail or phone (also as digits only) has a word starting with every query word.',
      query: contactListQuery,
      schema: contactList,
      returns: 'A page of contacts.',
    }),
    createContact: createRoute({
      path: '/contacts',
      scopes: ['contacts:write'],
      summary: 'Create a reusable contact',
      description: 'Creates a reusable contact (organization-owned personal data). The audit entry names the attributes set, never their values.',
      body: createContactBody,
      schema: contactResponseSchema,
      returns: 'The created contact.',
    }),
    getContact: readRoute({
      path: '/contacts/{contactId}',
      scopes: ['contacts:read'],
      summary: 'Get one contact',
      description: 'One contact.',
      schema: contactResponseSchema,
      returns: 'The contact.',
    }),
    updateContact: updateRoute({
      path: '/contacts/{contactId}',
      scopes: ['contacts:write'],
      summary: 'Update a contact',
      description: 'Changes the fields sent (partial; `null` or `""` clears a nullable field). Every location the contact is linked to shows the new values.',
      body: updateContactBody,
      idempotencyKey: 'optional',
      schema: contactResponseSchema,
      returns: 'The contact after the change.',
    }),
  },
});
