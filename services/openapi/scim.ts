import type { RouteRow as RouteSpec } from '../shared/area';

/**
 * OpenAPI description of the SCIM routes. Their payloads are RFC 7643/7644 resources
 * (application/scim+json); errors use the SCIM error schema.
 */
const scimJson = (ref: string) => ({ 'application/scim+json': { schema: { $ref: `#/components/schemas/${ref}` } } });

const errorResponses = (statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [String(s), { description: `SCIM error ${s}`, headers: { 'X-Request-Id': { description: 'The request ID.', schema: { type: 'string' } } }, content: scimJson('ScimError') }]),
  );

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

function operation(route: RouteSpec) {
  const success = SUCCESS[route.operation];
  if (!success) throw new Error(`No OpenAPI description for SCIM operation ${route.operation}.`);
  const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const query =
    route.operation === 'listUsers'
      ? [
          { name: 'filter', in: 'query', required: false, schema: { type: 'string' }, description: 'e.g. userName eq "a@b.example"' },
          { name: 'startIndex', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
          { name: 'count', in: 'query', required: false, schema: { type: 'integer', minimum: 0, maximum: 200 } },
        ]
      : [];
  const hasBody = ['createUser', 'replaceUser', 'patchUser'].includes(route.operation);
  return {
    operationId: `scim${route.operation[0].toUpperCase()}${route.operation.slice(1)}`,
    summary: route.summary,
    description: `SCIM 2.0. Scopes: ${route.scopes.join(', ')}.`,
    tags: ['scim'],
    security: [{ apiKey: [] }],
    parameters: [...pathParams, ...query],
    ...(hasBody ? { requestBody: { required: true, content: scimJson(route.operation === 'patchUser' ? 'ScimPatchOp' : 'ScimUser') } } : {}),
    responses: {
      [String(success.status)]: {
        description: success.description,
        headers: { 'X-Request-Id': { description: 'The request ID.', schema: { type: 'string' } } },
        ...(success.ref ? { content: scimJson(success.ref) } : {}),
      },
      ...errorResponses([400, 401, 403, 404, 409, 412, 500]),
    },
  };
}

export const SCIM_SCHEMAS = {
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
