import type { ErrorCode } from '../shared/errors';
import type { AreaDocs } from '../openapi/types';
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

/** The OpenAPI description of locations, reusable contacts and QR rotation. */

const BODY: ErrorCode[] = ['VALIDATION_ERROR', 'MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'];
const IDEMPOTENCY: ErrorCode[] = ['IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_REQUEST_IN_PROGRESS'];
const WRITE: ErrorCode[] = [...BODY, ...IDEMPOTENCY, 'TRANSACTION_CONFLICT', 'SERVICE_UNAVAILABLE'];
const CHANGE: ErrorCode[] = [...WRITE, 'RESOURCE_NOT_FOUND', 'ETAG_MISMATCH'];

const CONTACT_VALUES = 'Contact values (`contacts`) are present only when the key holds contacts:read; `contactIds` always are.';

export const locationsDocs: AreaDocs = {
  schemas: {
    Location: locationResponseSchema,
    LocationList: pageSchema(locationResponseSchema),
    LocationQrRotation: qrRotationResponseSchema,
    Contact: contactResponseSchema,
    ContactList: pageSchema(contactResponseSchema),
  },
  operations: {
    listLocations: {
      description: `Active locations by name (case-insensitive), or archived ones with \`archived=true\`. With \`q\`: locations whose name or address has a word starting with every query word, in match order. ${CONTACT_VALUES}`,
      query: locationListQuery,
      success: { status: 200, description: 'A page of locations.', ref: 'LocationList' },
      problems: ['VALIDATION_ERROR'],
    },
    createLocation: {
      description: `Creates a location, atomically with its audit entry. Linking contacts in \`contactIds\` also needs contacts:write; each must be a contact of this organization (422 at its index). ${CONTACT_VALUES}`,
      body: createLocationBody,
      headers: { 'Idempotency-Key': 'required' },
      success: { status: 201, description: 'The created location.', ref: 'Location', headers: ['ETag', 'Location', 'Idempotency-Replayed'] },
      problems: WRITE,
    },
    getLocation: {
      description: `One location, archived or not (time entries and work events keep referring to archived ones). ${CONTACT_VALUES}`,
      success: { status: 200, description: 'The location.', ref: 'Location', headers: ['ETag'] },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    updateLocation: {
      description: `Changes the fields sent (partial). Replacing \`contactIds\` also needs contacts:write. \`archived: false\` restores an archived location. A change to the current values changes nothing (same ETag). ${CONTACT_VALUES}`,
      body: updateLocationBody,
      headers: { 'If-Match': 'required', 'Idempotency-Key': 'optional' },
      success: { status: 200, description: 'The location after the change.', ref: 'Location', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: [...CHANGE, 'ETAG_REQUIRED'],
    },
    archiveLocation: {
      description: `Archives the location: it leaves the default list and search, stays readable by id, and can be restored with PATCH \`archived: false\`. Archiving an archived location changes nothing. If-Match is optional and honoured when sent. ${CONTACT_VALUES}`,
      headers: { 'If-Match': 'optional', 'Idempotency-Key': 'optional' },
      success: { status: 200, description: 'The archived location.', ref: 'Location', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: CHANGE,
    },
    rotateLocationQr: {
      description:
        "Rotates the location's QR secret: a new random secret, stored only as its SHA-256 hash, under a new public reference; the previous code stops being valid at once. The response gives the public reference and the rotation time, never the secret or its hash; the audit entry records only that a rotation happened. Needs an Idempotency-Key: a retry replays the same rotation instead of invalidating the code again. The body may be absent or `{}`.",
      body: rotateQrBody,
      headers: { 'Idempotency-Key': 'required' },
      success: { status: 200, description: 'The new public reference; the ETag is the location\'s new one.', ref: 'LocationQrRotation', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: [...WRITE, 'RESOURCE_NOT_FOUND'],
    },
    linkLocationContact: {
      description: `Links a reusable contact of this organization to the location (at most 20 per location). Linking a linked contact changes nothing. If-Match is optional and honoured when sent. ${CONTACT_VALUES}`,
      headers: { 'If-Match': 'optional', 'Idempotency-Key': 'optional' },
      success: { status: 200, description: 'The location with the contact linked.', ref: 'Location', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: CHANGE,
    },
    unlinkLocationContact: {
      description: `Unlinks a contact from the location; the contact itself stays. Unlinking a contact that is not linked changes nothing. ${CONTACT_VALUES}`,
      headers: { 'If-Match': 'optional', 'Idempotency-Key': 'optional' },
      success: { status: 200, description: 'The location without the contact.', ref: 'Location', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: CHANGE,
    },
    listContacts: {
      description: 'Reusable contacts in creation order; with `q`, those whose name, e-mail or phone (also as digits only) has a word starting with every query word.',
      query: contactListQuery,
      success: { status: 200, description: 'A page of contacts.', ref: 'ContactList' },
      problems: ['VALIDATION_ERROR'],
    },
    createContact: {
      description: 'Creates a reusable contact (organization-owned personal data). The audit entry names the attributes set, never their values.',
      body: createContactBody,
      headers: { 'Idempotency-Key': 'required' },
      success: { status: 201, description: 'The created contact.', ref: 'Contact', headers: ['ETag', 'Location', 'Idempotency-Replayed'] },
      problems: WRITE,
    },
    getContact: {
      description: 'One contact.',
      success: { status: 200, description: 'The contact.', ref: 'Contact', headers: ['ETag'] },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    updateContact: {
      description: 'Changes the fields sent (partial; `null` or `""` clears a nullable field). Every location the contact is linked to shows the new values.',
      body: updateContactBody,
      headers: { 'If-Match': 'required', 'Idempotency-Key': 'optional' },
      success: { status: 200, description: 'The contact after the change.', ref: 'Contact', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: [...CHANGE, 'ETAG_REQUIRED'],
    },
  },
};
