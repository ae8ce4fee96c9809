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
    ...(hasBody ? { requestBody: { required: true, content: scimJson(route.operation === 'patchUser' ? 'ScimPatchOp' : 'ScimUser') } } : {}),
    responses: {
      [String(success.status)]: {
        description: success.description,
        headers: { 'X-Request-Id': { description: 'The request ID.', schema: { type: 'string' } }, ...successHeaders },
        ...(success.ref ? { content: scimJson(success.ref) } : {}),
      },
      ...errorResponses([400, 401, 403, 404, 409, 412, 500, ...(route.method === 'GET' ? [] : [503])]),
    },
  };
}

export const SCIM_OPENAPI = {
  operation,
  components: {
    ScimResource: { type: 'object', description: 'A SCIM resource (RFC 7643).', required: ['schemas'], properties: { schemas: { type: 'array', items: { type: 'string' } } } },
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
