import { legacyAreaNamed } from '../legacy-areas';
import { randomUUID } from 'node:crypto';
import type { Employee } from '../employees/public';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { createHandler } from '../shared/http/handler';
import { idempotentWrite, toStored } from '../shared/http/idempotent';
import { optionalIdempotencyKey } from '../shared/http/preconditions';
import { created, noContent, ok, type ApiRequest, type HttpResult } from '../shared/http/request';
import { parseQuery } from '../shared/http/validation';
import type { JsonValue } from '../shared/json';
import { isUuid } from '../shared/time';
import { listOf, schemaDocuments, serviceProviderConfig, USER_RESOURCE_TYPE_ID, userResourceType } from './discovery';
import { applyPatch, documentFromResource, documentOf, fieldsOf, parsePatchBody } from './document';
import { createUser, deleteUser, getUser, listUsers, updateUser, type Actor, type ScimDeps } from './domain';
import { invalidSyntax, renderScimError } from './errors';
import { etagOf, listResponse, project, scimBase, toScimUser, userLocation } from './resource';
import { filterClauses, listQuerySchema, projectionQuerySchema } from './schemas';
import { dynamoUserStore } from './store';

/**
 * The SCIM 2.0 API (RFC 7644) of one organization: discovery, and Users backed by the
 * organization's employees. Errors in the SCIM error schema, bodies as application/scim+json,
 * request bodies as application/scim+json or application/json.
 */
let deps: ScimDeps | undefined;
const scimDeps = (): ScimDeps => (deps ??= { store: dynamoUserStore(defaultDb()), now: () => new Date(), newId: randomUUID });

const actorOf = (request: ApiRequest): Actor => ({ principal: request.principal, requestId: request.requestId });

/** An id that is not a UUID names no user: 404, as Okta's and Entra's checks expect (not 400). */
function userIdOf(request: ApiRequest): string {
  const id = request.pathParameters.userId ?? '';
  if (!isUuid(id)) throw new NotFoundError(`User ${id}`);
  return id.toLowerCase();
}

function bodyOf(request: ApiRequest): unknown {
  if (request.body === undefined) throw invalidSyntax('A JSON body is required.');
  return request.body;
}

const userResult = (request: ApiRequest, user: Employee, status: 200 | 201): HttpResult => {
  const base = scimBase(request);
  const body = toScimUser(user, base);
  return status === 201 ? created(body, { ETag: etagOf(user), Location: userLocation(base, user.id) }) : ok(body, { ETag: etagOf(user) });
};

export const handler = createHandler({
  area: legacyAreaNamed('scim'),
  mediaType: 'application/scim+json',
  bodyMediaTypes: ['application/scim+json', 'application/json'],
  renderError: renderScimError,
  operations: {
    async getServiceProviderConfig(request) {
      return ok(serviceProviderConfig(scimBase(request)));
    },

    async listResourceTypes(request) {
      return ok(listOf([userResourceType(scimBase(request))]));
    },

    async getResourceType(request) {
      const id = request.pathParameters.resourceTypeId ?? '';
      if (id.toLowerCase() !== USER_RESOURCE_TYPE_ID.toLowerCase()) throw new NotFoundError(`Resource type ${id}`);
      return ok(userResourceType(scimBase(request)));
    },

    async listSchemas(request) {
      return ok(listOf(schemaDocuments(scimBase(request))));
    },

    async getSchema(request) {
      const id = request.pathParameters.schemaId ?? '';
      const schema = schemaDocuments(scimBase(request)).find((s) => s.id.toLowerCase() === id.toLowerCase());
      if (!schema) throw new NotFoundError(`Schema ${id}`);
      return ok(schema);
    },

    async listUsers(request) {
      const query = parseQuery(listQuerySchema, request.query);
      const filter = filterClauses(query.filter);
      const page = await listUsers(scimDeps(), request.principal.organizationId, { filter, startIndex: query.startIndex, count: query.count });
      const base = scimBase(request);
      return ok(listResponse(page.users.map((u) => project(toScimUser(u, base), query)), page.totalResults, query.startIndex));
    },

    async createUser(request) {
      const key = optionalIdempotencyKey(request);
      const fields = fieldsOf(documentFromResource(bodyOf(request), {}), true);
      const d = scimDeps();
      if (key === undefined) return userResult(request, (await createUser(d, actorOf(request), fields)).user, 201);
      // The idempotency record of the 201 is committed in the create's own transaction.
      return idempotentWrite(defaultDb(), request, key, request.body as JsonValue, async (complete) => {
        const { user } = await createUser(d, actorOf(request), fields, async (after) => [await complete(toStored(userResult(request, after, 201)))]);
        return userResult(request, user, 201);
      });
    },

    async getUser(request) {
      const projection = parseQuery(projectionQuerySchema, request.query);
      const user = await getUser(scimDeps(), request.principal.organizationId, userIdOf(request));
      const result = userResult(request, user, 200);
      return { ...result, body: project(result.body as Record<string, unknown>, projection) };
    },

    async replaceUser(request) {
      const id = userIdOf(request);
      const fields = fieldsOf(documentFromResource(bodyOf(request), { currentId: id }), true);
      const { user } = await updateUser(scimDeps(), actorOf(request), id, request.headers['if-match'], () => fields);
      return userResult(request, user, 200);
    },

    async patchUser(request) {
      const id = userIdOf(request);
      const operations = parsePatchBody(bodyOf(request));
      const { user } = await updateUser(scimDeps(), actorOf(request), id, request.headers['if-match'], (before) =>
        fieldsOf(applyPatch(documentOf(before), operations, { currentId: id }), before.active),
      );
      return userResult(request, user, 200);
    },

    async deleteUser(request) {
      await deleteUser(scimDeps(), actorOf(request), userIdOf(request), request.headers['if-match']);
      return noContent();
    },
  },
});
