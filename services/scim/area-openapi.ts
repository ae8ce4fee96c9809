import type { z } from 'zod';
import type { RouteRow as RouteSpec } from '../shared/area';

/**
 * The OpenAPI description of the SCIM routes (the area's `openapi` override): payloads are
 * RFC 7643/7644 resources (application/scim+json), errors the SCIM error schema. Query
 * parameters, Idempotency-Key, If-Match and response headers come from the route contracts
 * in area.ts.
 */
const scimJson = (ref: string) => ({ 'application/scim+json': { schema: { $ref: `#/components/schemas/${ref}` } } });

const errorResponses = (statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [String(s), { description: `SCIM error ${s}`, headers: { 'X-Request-Id': { description: 'The request ID.', schema: { type: 'string' } } }, content: scimJson('ScimError') }]),
  );

const header = (description: string) => ({ description, schema: { type: 'string' } });

const RESPONSE_HEADERS: Readonly<Record<string, ReturnType<typeof header>>> = {
  ETag: header('The weak ETag of the user (W/"<version>"): send it as If-Match.'),
  Location: header('The URL of the user, from the configured public base URL.'),
};

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const USER_ID = '6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f';
const userExample = {
  schemas: [USER_SCHEMA],
  externalId: 'entra-7d1f0c2e',
  userName: 'ada.lindqvist@acme.example',
  displayName: 'Ada Lindqvist',
  name: { givenName: 'Ada', familyName: 'Lindqvist' },
  active: true,
  emails: [{ value: 'ada.lindqvist@acme.example', type: 'work', primary: true }],
};
const storedUser = {
  ...userExample,
  id: USER_ID,
  meta: { resourceType: 'User', created: '2026-03-02T08:00:00Z', lastModified: '2026-03-02T08:00:00Z', version: 'W/"3"', location: `/v1/organizations/${USER_ID}/scim/v2/Users/${USER_ID}` },
};
const listOf = (resources: Record<string, unknown>[]) => ({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: resources.length, startIndex: 1, itemsPerPage: resources.length, Resources: resources });
const userResourceType = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'], id: 'User', name: 'User', endpoint: '/Users', schema: USER_SCHEMA };
const userSchema = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'], id: USER_SCHEMA, name: 'User', attributes: [] };

/** Example payloads of the SCIM operations, as RFC 7643/7644 shape them (redocly lint checks them against the schemas). */
const EXAMPLES: Record<string, { request?: unknown; response?: unknown }> = {
  getServiceProviderConfig: { response: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'], patch: { supported: true }, filter: { supported: true, maxResults: 200 }, etag: { supported: true } } },
  listResourceTypes: { response: listOf([userResourceType]) },
  getResourceType: { response: userResourceType },
  listSchemas: { response: listOf([userSchema]) },
  getSchema: { response: userSchema },
  listUsers: { response: listOf([storedUser]) },
  createUser: { request: userExample, response: storedUser },
  getUser: { response: storedUser },
  replaceUser: { request: { ...userExample, displayName: 'Ada Lindqvist-Berg' }, response: { ...storedUser, displayName: 'Ada Lindqvist-Berg' } },
  patchUser: { request: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: false }] }, response: { ...storedUser, active: false } },
};

const scimJsonWith = (ref: string, example: unknown) => ({ 'application/scim+json': { schema: { $ref: `#/components/schemas/${ref}` }, ...(example === undefined ? {} : { example }) } });

const SUCCESS: Record<string, { status: number; ref?: string; description: string }> = {
  getServiceProviderConfig: { status: 200, ref: 'ScimResource', description: 'RFC 7643 §5 service provider configuration.' },
  listResourceTypes: { status: 200, ref: 'ScimListResponse', description: 'RFC 7643 §6 resource types (User).' },
  getResourceType: { status: 200, ref: 'ScimResource', description: 'One resource type.' },
  listSchemas: { status: 200, ref: 'ScimListResponse', description: 'RFC 7643 §7 schemas we keep.' },
  getSchema: { status: 200, ref: 'ScimResource', description: 'One schema.' },
  listUsers: { status: 200, ref: 'ScimListResponse', description: 'Users, filtered (eq, and) and paged (startIndex, count).' },
  createUser: { status: 201, ref: 'ScimUser', description: 'The created (or re-linked) user, with Location and a weak ETag.' },
  getUser: { status: 200, ref: 'ScimUser', description: 'The user, with a weak ETag.' },
  replaceUser: { status: 200, ref: 'ScimUser', description: 'The replaced user.' },
  patchUser: { status: 200, ref: 'ScimUser', description: 'The patched user.' },
  deleteUser: { status: 204, description: 'Organization access ended; the employee and its history are kept.' },
};

/** Query parameters whose wire type is not a plain string. */
const QUERY_SCHEMAS: Readonly<Record<string, Record<string, unknown>>> = {
  startIndex: { type: 'integer', minimum: 1 },
  count: { type: 'integer', minimum: 0, maximum: 200 },
};

function operation(route: RouteSpec) {
  const success = SUCCESS[route.operation];
  if (!success) throw new Error(`No OpenAPI description for SCIM operation ${route.operation}.`);
  const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const query = Object.entries((route.query?.shape ?? {}) as Record<string, z.ZodType>).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema: QUERY_SCHEMAS[name] ?? { type: 'string' },
    ...(schema.meta()?.description ? { description: schema.meta()!.description } : {}),
  }));
  const headers = [
    ...(route.idempotencyKey ? [{ name: 'Idempotency-Key', in: 'header', required: route.idempotencyKey === 'required', schema: { type: 'string', minLength: 1, maxLength: 255 }, description: 'Optional: the write runs once per key; a replay answers the first response with Idempotency-Replayed: true, another input with the same key is 409.' }] : []),
    ...(route.ifMatch ? [{ name: 'If-Match', in: 'header', required: route.ifMatch === 'required', schema: { type: 'string' }, description: 'Optional: the ETag of the user as read; another version is 412.' }] : []),
  ];
  const hasBody = ['createUser', 'replaceUser', 'patchUser'].includes(route.operation);
  const successHeaders = Object.fromEntries((route.success.headers ?? []).filter((h) => RESPONSE_HEADERS[h]).map((h) => [h, RESPONSE_HEADERS[h]]));
  return {
    operationId: `scim${route.operation[0].toUpperCase()}${route.operation.slice(1)}`,
    summary: route.summary,
    description: `SCIM 2.0. ${route.description} Scopes: ${route.scopes.join(', ')}.`,
    tags: ['scim'],
    security: [{ apiKey: [] }],
    parameters: [...pathParams, ...query, ...headers],
    ...(hasBody ? { requestBody: { required: true, content: scimJsonWith(route.operation === 'patchUser' ? 'ScimPatchOp' : 'ScimUser', EXAMPLES[route.operation]?.request) } } : {}),
    responses: {
      [String(success.status)]: {
        description: success.description,
        headers: { 'X-Request-Id': { description: 'The request ID.', schema: { type: 'string' } }, ...successHeaders },
        ...(success.ref ? { content: scimJsonWith(success.ref, EXAMPLES[route.operation]?.response) } : {}),
      },
      ...errorResponses([400, 401, 403, 404, 409, 412, 500, ...(route.method === 'GET' ? [] : [503])]),
    },
  };
}

export const SCIM_OPENAPI = {
  operation,
  components: {
    ScimResource: {
      type: 'object',
      description: 'A SCIM resource (RFC 7643): its members depend on its schemas.',
      required: ['schemas'],
      properties: { schemas: { type: 'array', items: { type: 'string' } } },
      additionalProperties: true,
    },
    ScimUser: {
      type: 'object',
      description: 'SCIM core User (urn:ietf:params:scim:schemas:core:2.0:User) as kept by this service.',
      required: ['schemas', 'userName'],
      properties: {
        schemas: { type: 'array', items: { type: 'string' } },
        id: { type: 'string', readOnly: true },
        externalId: { type: 'string' },
        userName: { type: 'string' },
        displayName: { type: 'string' },
        name: { type: 'object', properties: { givenName: { type: 'string' }, familyName: { type: 'string' }, formatted: { type: 'string' } } },
        active: { type: 'boolean' },
        emails: { type: 'array', items: { type: 'object', properties: { value: { type: 'string' }, type: { type: 'string' }, primary: { type: 'boolean' } } } },
        meta: { type: 'object', readOnly: true },
      },
    },
    ScimListResponse: {
      type: 'object',
      required: ['schemas', 'totalResults', 'Resources'],
      properties: {
        schemas: { type: 'array', items: { type: 'string' } },
        totalResults: { type: 'integer' },
        startIndex: { type: 'integer' },
        itemsPerPage: { type: 'integer' },
        Resources: { type: 'array', items: { type: 'object' } },
      },
    },
    ScimPatchOp: {
      type: 'object',
      required: ['schemas', 'Operations'],
      properties: {
        schemas: { type: 'array', items: { type: 'string' } },
        Operations: { type: 'array', items: { type: 'object', required: ['op'], properties: { op: { type: 'string' }, path: { type: 'string' }, value: {} } } },
      },
    },
    ScimError: {
      type: 'object',
      required: ['schemas', 'status', 'detail'],
      properties: { schemas: { type: 'array', items: { type: 'string' } }, status: { type: 'string' }, scimType: { type: 'string' }, detail: { type: 'string' } },
    },
  },
};
