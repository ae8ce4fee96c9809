import { randomBytes, randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { found } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { listPage } from '../shared/http/list';
import { created, ok, type HttpResult } from '../shared/http/request';
import { locationsArea } from './area';
import { archiveLocation, createLocation, existingLocation, linkContact, locationEtag, locationViews, rotateQr, unlinkContact, updateLocation, type LocationPorts, type LocationView } from './domain';
import { contactEtag, createContact, updateContact } from './domain-contacts';
import type { Contact } from './model';
import { contactResponse, locationResponse, qrRotationResponse } from './schemas';
import { listLocations, locationsStore } from './store';
import { getContact, listContacts } from './store-contacts';

const locationResult = (view: LocationView, status: 200 | 201, orgPath: string): HttpResult =>
  status === 201
    ? created(locationResponse(view), { ETag: locationEtag(view.location), Location: `${orgPath}/locations/${view.location.id}` })
    : ok(locationResponse(view), { ETag: locationEtag(view.location) });

const contactResult = (c: Contact, status: 200 | 201, orgPath: string): HttpResult =>
  status === 201 ? created(contactResponse(c), { ETag: contactEtag(c), Location: `${orgPath}/contacts/${c.id}` }) : ok(contactResponse(c), { ETag: contactEtag(c) });

export const handler = areaHandler(locationsArea, {
  ports: (unit): LocationPorts => ({ store: locationsStore(defaultDb(), unit), now: () => new Date(), newId: randomUUID, randomBytes }),
  operations: {
    async listLocations(request) {
      const { query } = request;
      return ok(
        await listPage(
          request,
          (page) => listLocations(defaultDb(), request.principal.organizationId, { archived: query.archived ?? false, q: query.q, ...page }),
          async (items) => (await locationViews(request.ports.store, request.principal, items)).map(locationResponse),
        ),
      );
    },

    createLocation: async (request) => locationResult(await createLocation(request.ports, request.actor, request.body), 201, request.orgPath),

    async getLocation(request) {
      const { store } = request.ports;
      const [view] = await locationViews(store, request.principal, [await existingLocation(store, request.principal.organizationId, request.params.locationId)]);
      return locationResult(view, 200, request.orgPath);
    },

    updateLocation: async (request) => locationResult(await updateLocation(request.ports, request.actor, request.params.locationId, request.ifMatch, request.body), 200, request.orgPath),

    archiveLocation: async (request) => locationResult(await archiveLocation(request.ports, request.actor, request.params.locationId, request.ifMatch), 200, request.orgPath),

    async rotateLocationQr(request) {
      const rotation = await rotateQr(request.ports, request.actor, request.params.locationId, request.ifMatch);
      return ok(qrRotationResponse(rotation), { ETag: locationEtag(rotation.view.location) });
    },

    linkLocationContact: async (request) =>
      locationResult(await linkContact(request.ports, request.actor, request.params.locationId, request.params.contactId, request.ifMatch), 200, request.orgPath),

    unlinkLocationContact: async (request) =>
      locationResult(await unlinkContact(request.ports, request.actor, request.params.locationId, request.params.contactId, request.ifMatch), 200, request.orgPath),

    async listContacts(request) {
      const { query } = request;
      return ok(await listPage(request, (page) => listContacts(defaultDb(), request.principal.organizationId, { q: query.q, ...page }), (items) => items.map(contactResponse)));
    },

    createContact: async (request) => contactResult(await createContact(request.ports, request.actor, request.body), 201, request.orgPath),

    getContact: async (request) => contactResult(found(await getContact(defaultDb(), request.principal.organizationId, request.params.contactId), `Contact ${request.params.contactId}`), 200, request.orgPath),

    updateContact: async (request) => contactResult(await updateContact(request.ports, request.actor, request.params.contactId, request.ifMatch, request.body), 200, request.orgPath),
  },
});
