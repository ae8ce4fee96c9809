import { legacyAreaNamed } from '../legacy-areas';
import { randomBytes, randomUUID } from 'node:crypto';
import { defaultDb, type Db } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { createHandler } from '../shared/http/handler';
import { DEFAULT_LIMIT, listRequest, nextCursor } from '../shared/http/list';
import { optionalIdempotencyKey, requireIdempotencyKey, requireIfMatch } from '../shared/http/preconditions';
import { created, ok, type ApiRequest, type HttpResult } from '../shared/http/request';
import { parseBody } from '../shared/http/validation';
import { isUuid } from '../shared/time';
import { getContact, listContacts } from './contact-store';
import {
  archiveLocation,
  contactEtag,
  createContact,
  createLocation,
  existingLocation,
  linkContact,
  locationEtag,
  locationViews,
  rotateQr,
  unlinkContact,
  updateContact,
  updateLocation,
  type Actor,
  type ExtraItems,
  type LocationPorts,
  type LocationView,
  type QrRotation,
} from './domain';
import type { Contact } from './contact-store';
import type { PagePosition } from '../shared/ddb/paging';
import {
  contactListQuery,
  contactResponse,
  createContactBody,
  createLocationBody,
  locationListQuery,
  locationResponse,
  qrRotationResponse,
  rotateQrBody,
  updateContactBody,
  updateLocationBody,
} from './schemas';
import { dynamoLocationStore, listLocations } from './store';
import { committedWrite } from '../shared/http/idempotent';
import { optionalIfMatch } from '../shared/http/preconditions';

let deps: (LocationPorts & { readonly db: Db }) | undefined;
const ports = () => {
  if (!deps) {
    const db = defaultDb();
    deps = { db, store: dynamoLocationStore(db), now: () => new Date(), newId: randomUUID, randomBytes };
  }
  return deps;
};

const actorOf = (request: ApiRequest): Actor => ({ principal: request.principal, requestId: request.requestId });
const orgPath = (request: ApiRequest) => `/v1/organizations/${request.principal.organizationId}`;

/** A path id that is not a UUID names nothing: 404, as for an unknown id. */
function pathId(request: ApiRequest, name: 'locationId' | 'contactId', what: string): string {
  const id = request.pathParameters[name] ?? '';
  if (!isUuid(id)) throw new NotFoundError(`${what} ${id}`);
  return id.toLowerCase();
}

const locationResult = (view: LocationView, status: 200 | 201, request: ApiRequest): HttpResult => {
  const headers = { ETag: locationEtag(view.location) };
  return status === 201
    ? created(locationResponse(view), { ...headers, Location: `${orgPath(request)}/locations/${view.location.id}` })
    : ok(locationResponse(view), headers);
};

const contactResult = (contact: Contact, status: 200 | 201, request: ApiRequest): HttpResult => {
  const headers = { ETag: contactEtag(contact) };
  return status === 201 ? created(contactResponse(contact), { ...headers, Location: `${orgPath(request)}/contacts/${contact.id}` }) : ok(contactResponse(contact), headers);
};

/** Runs a location write and answers the location (200 + ETag). */
const locationWrite = (request: ApiRequest, key: string | undefined, run: (p: LocationPorts, extra: ExtraItems<LocationView>) => Promise<LocationView>) =>
  committedWrite<LocationView>(ports().db, request, key, (extra) => run(ports(), extra), (view) => locationResult(view, 200, request));

export const handler = createHandler({
  area: legacyAreaNamed('locations'),
  operations: {
    async listLocations(request) {
      const { query, binding, position: after } = await listRequest<typeof locationListQuery, PagePosition>(request, locationListQuery);
      const { db, store } = ports();
      const page = await listLocations(db, request.principal.organizationId, { archived: query.archived ?? false, q: query.q, limit: query.limit ?? DEFAULT_LIMIT, after });
      const views = await locationViews(store, request.principal, page.items);
      return ok({ items: views.map(locationResponse), nextCursor: await nextCursor(binding, page.next) });
    },

    async createLocation(request) {
      const key = requireIdempotencyKey(request);
      const body = parseBody(createLocationBody, request.body);
      return committedWrite<LocationView>(ports().db, request, key, (extra) => createLocation(ports(), actorOf(request), body, extra), (view) => locationResult(view, 201, request));
    },

    async getLocation(request) {
      const id = pathId(request, 'locationId', 'Location');
      const { store } = ports();
      const [view] = await locationViews(store, request.principal, [await existingLocation(store, request.principal.organizationId, id)]);
      return locationResult(view, 200, request);
    },

    async updateLocation(request) {
      const id = pathId(request, 'locationId', 'Location');
      const ifMatch = requireIfMatch(request);
      const key = optionalIdempotencyKey(request);
      const body = parseBody(updateLocationBody, request.body);
      return locationWrite(request, key, (p, extra) => updateLocation(p, actorOf(request), id, ifMatch, body, extra));
    },

    async archiveLocation(request) {
      const id = pathId(request, 'locationId', 'Location');
      const key = optionalIdempotencyKey(request);
      return locationWrite(request, key, (p, extra) => archiveLocation(p, actorOf(request), id, optionalIfMatch(request), extra));
    },

    async rotateLocationQr(request) {
      const id = pathId(request, 'locationId', 'Location');
      const key = requireIdempotencyKey(request);
      if (request.body !== undefined) parseBody(rotateQrBody, request.body);
      return committedWrite<QrRotation>(ports().db, request, key, (extra) => rotateQr(ports(), actorOf(request), id, extra), (rotation) =>
        ok(qrRotationResponse(rotation), { ETag: locationEtag(rotation.view.location) }),
      );
    },

    async linkLocationContact(request) {
      const id = pathId(request, 'locationId', 'Location');
      const contactId = pathId(request, 'contactId', 'Contact');
      const key = optionalIdempotencyKey(request);
      return locationWrite(request, key, (p, extra) => linkContact(p, actorOf(request), id, contactId, optionalIfMatch(request), extra));
    },

    async unlinkLocationContact(request) {
      const id = pathId(request, 'locationId', 'Location');
      const contactId = pathId(request, 'contactId', 'Contact');
      const key = optionalIdempotencyKey(request);
      return locationWrite(request, key, (p, extra) => unlinkContact(p, actorOf(request), id, contactId, optionalIfMatch(request), extra));
    },

    async listContacts(request) {
      const { query, binding, position: after } = await listRequest<typeof contactListQuery, PagePosition>(request, contactListQuery);
      const page = await listContacts(ports().db, request.principal.organizationId, { q: query.q, limit: query.limit ?? DEFAULT_LIMIT, after });
      return ok({ items: page.items.map(contactResponse), nextCursor: await nextCursor(binding, page.next) });
    },

    async createContact(request) {
      const key = requireIdempotencyKey(request);
      const body = parseBody(createContactBody, request.body);
      return committedWrite<Contact>(ports().db, request, key, (extra) => createContact(ports(), actorOf(request), body, extra), (c) => contactResult(c, 201, request));
    },

    async getContact(request) {
      const id = pathId(request, 'contactId', 'Contact');
      const contact = await getContact(ports().db, request.principal.organizationId, id);
      if (!contact) throw new NotFoundError(`Contact ${id}`);
      return contactResult(contact, 200, request);
    },

    async updateContact(request) {
      const id = pathId(request, 'contactId', 'Contact');
      const ifMatch = requireIfMatch(request);
      const key = optionalIdempotencyKey(request);
      const body = parseBody(updateContactBody, request.body);
      return committedWrite<Contact>(ports().db, request, key, (extra) => updateContact(ports(), actorOf(request), id, ifMatch, body, extra), (c) => contactResult(c, 200, request));
    },
  },
});
