import * as z from 'zod';
import { AREAS } from '../registry';
import { ORG_PREFIX, pathParamNames, resourcePath, routeRows as routeRowsOf, type ResponseHeader, type RouteRow } from '../shared/area';
import { codeOf, type ErrorCode, type Problem, type ProblemRef } from '../shared/errors';
import { definitionOf, PROBLEMS, problemType } from '../shared/http/problems';
import { exampleOf } from './examples';

/**
 * The OpenAPI 3.1 document, generated from the area registry: paths and operations from each
 * area's route contracts (input schemas as accepted, responses as returned, the problem codes
 * a route's inputs imply plus its own), components from the areas' response schemas. Served
 * locally at /v1/openapi.json and written to docs/openapi.json by `npm run openapi` (a test
 * keeps the two equal).
 */
type Header = 'Idempotency-Key' | 'If-Match';

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  return rest;
};

function queryParameters(query: z.ZodObject | undefined) {
  if (!query) return [];
  return Object.entries(query.shape).map(([name, schema]) => {
    const s = schema as z.ZodType;
    const { description, ...rest } = jsonSchema(s, 'input') as { description?: string };
    return { name, in: 'query', required: !s.safeParse(undefined).success, schema: rest, ...(description ? { description } : {}) };
  });
}

const HEADER_PARAMETERS: Record<Header, { description: string; schema: Record<string, unknown>; example: string }> = {
  'Idempotency-Key': {
    description: '1-255 printable ASCII characters; the same key and input within 24 hours replays the original response.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: 'c1d2e3f4-0a1b-4c2d-8e3f-405162738495',
  },
  'If-Match': { description: 'The current ETag of the resource, from its last response.', schema: { type: 'string' }, example: '"material:6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f:v2"' },
};

const RESPONSE_HEADERS: Record<ResponseHeader | 'X-Request-Id', { description: string }> = {
  'X-Request-Id': { description: 'The request ID; share it with support.' },
  ETag: { description: 'Strong ETag of the resource (e.g. "time-entry:<id>:r<revision>"); send it in If-Match to change the resource.' },
  Location: { description: 'Absolute URL of the created resource (or, on a 202, of the job), on the API\'s public base URL; on a 302, the URL to fetch.' },
  'Idempotency-Replayed': { description: '"true" when this is the replay of an earlier response to the same Idempotency-Key.' },
  'Content-Disposition': { description: 'attachment, with a file name.' },
  'Cache-Control': { description: '`no-store`: the answer holds a short-lived secret.' },
};

const headerObjects = (names: readonly (ResponseHeader | 'X-Request-Id')[]) =>
  Object.fromEntries(names.map((n) => [n, { description: RESPONSE_HEADERS[n].description, schema: { type: 'string' } }]));

const COMMON_PROBLEMS: ErrorCode[] = ['UNAUTHENTICATED', 'ACCESS_DENIED', 'SCOPE_REQUIRED', 'RATE_LIMITED', 'INTERNAL_ERROR'];

function problemResponses(refs: readonly ProblemRef[]) {
  const byStatus = new Map<number, Problem[]>();
  const seen = new Set<string>();
  for (const ref of [...refs, ...COMMON_PROBLEMS]) {
    if (seen.has(codeOf(ref))) continue;
    seen.add(codeOf(ref));
    const problem = definitionOf(ref);
    byStatus.set(problem.status, [...(byStatus.get(problem.status) ?? []), problem]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        {
          description: list.map((p) => `${p.code}: ${p.title}`).join('; '),
          headers: headerObjects(['X-Request-Id']),
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, examples: Object.fromEntries(list.map((p) => [p.code, { value: exampleProblem(p) }])) } },
        },
      ]),
  );
}

const exampleProblem = ({ code, title, status }: Problem) => ({
  type: problemType(code),
  title,
  status,
  detail: '...',
  instance: `${ORG_PREFIX.replace('{organizationId}', '6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f')}/timesheets`,
  code,
  requestId: 'c0ffee00-0000-4000-8000-000000000000',
});

const BODY_PROBLEMS: ErrorCode[] = ['VALIDATION_ERROR', 'MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'];

/** The problems a route's declared inputs imply, before its own. */
export function impliedProblems(route: RouteRow): ErrorCode[] {
  return [
    'VALIDATION_ERROR',
    'NOT_ACCEPTABLE',
    'SERVICE_UNAVAILABLE',
    // A non-UUID id, an unknown one, or a text parameter naming nothing (an unknown provider).
    ...(pathParamNames(route.path).length > 0 ? (['RESOURCE_NOT_FOUND'] as const) : []),
    // Any write may carry a body: its media type, size and JSON are checked before the schema.
    ...(route.body || route.method !== 'GET' ? BODY_PROBLEMS : []),
    ...(route.idempotencyKey === 'required' ? (['IDEMPOTENCY_KEY_REQUIRED'] as const) : []),
    ...(route.idempotencyKey ? (['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_REQUEST_IN_PROGRESS'] as const) : []),
    ...(route.ifMatch === 'required' ? (['ETAG_REQUIRED'] as const) : []),
    ...(route.ifMatch ? (['ETAG_MISMATCH'] as const) : []),
    ...(route.method !== 'GET' ? (['TRANSACTION_CONFLICT'] as const) : []),
  ];
}

function publicOperation(route: RouteRow, componentOf: (schema: z.ZodType) => string | undefined) {
  const pathParams = pathParamNames(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: route.textParams?.includes(name) ? { type: 'string' } : { type: 'string', format: 'uuid' },
  }));
  const needs: [Header, 'required' | 'optional' | undefined][] = [
    ['Idempotency-Key', route.idempotencyKey],
    ['If-Match', route.ifMatch],
  ];
  const headers = needs.filter(([, need]) => need !== undefined).map(([name, need]) => ({ name, in: 'header', required: need === 'required', ...HEADER_PARAMETERS[name] }));
  const success = route.success;
  const responseHeaders: ResponseHeader[] = [
    ...(success.headers ?? []),
    ...(route.noStore && !success.headers?.includes('Cache-Control') ? (['Cache-Control'] as const) : []),
    ...(route.idempotencyKey && !success.headers?.includes('Idempotency-Replayed') ? (['Idempotency-Replayed'] as const) : []),
  ];
  const ref = success.schema ? componentOf(success.schema) : undefined;
  const jsonContent = success.schema
    ? { 'application/json': { schema: ref ? { $ref: `#/components/schemas/${ref}` } : jsonSchema(success.schema, 'output'), example: route.examples?.response ?? exampleOf(success.schema, 'output') } }
    : undefined;
  return {
    operationId: route.operation,
    summary: route.summary,
    description: `${route.description}\n\nScopes: ${[...(route.scopes.length > 0 ? [route.scopes.join(', ')] : []), ...(route.anyOfScopes ? [`at least one of ${route.anyOfScopes.join(', ')}`] : [])].join('; ')}.`,
    tags: [route.area],
    // OpenAPI 3.1: the roles a non-OAuth scheme requires, here the key's scopes (alternatives: one requirement each).
    security: route.anyOfScopes ? route.anyOfScopes.map((s) => ({ apiKey: [...route.scopes, s] })) : [{ apiKey: [...route.scopes] }],
    'x-required-scopes': route.scopes,
    ...(route.anyOfScopes ? { 'x-any-of-scopes': route.anyOfScopes } : {}),
    parameters: [...pathParams, ...queryParameters(route.query), ...headers],
    ...(route.body
      ? { requestBody: { required: !route.bodyOptional, content: { 'application/json': { schema: jsonSchema(route.body, 'input'), example: route.examples?.request ?? exampleOf(route.body, 'input') } } } }
      : {}),
    responses: {
      ...Object.fromEntries(
        [{ status: success.status, description: success.description }, ...(success.alsoStatus ? [success.alsoStatus] : [])].map(({ status, description }) => [
          String(status),
          {
            description,
            headers: headerObjects(['X-Request-Id', ...responseHeaders]),
            ...(jsonContent ? { content: jsonContent } : {}),
            ...(success.content ? { content: Object.fromEntries(Object.entries(success.content).map(([type, schema]) => [type, { schema }])) } : {}),
          },
        ]),
      ),
      ...problemResponses([...impliedProblems(route), ...route.problems]),
    },
  };
}

const problemSchema = {
  type: 'object',
  description: 'RFC 9457 problem details with our `code` and `requestId` members.',
  required: ['type', 'title', 'status', 'detail', 'instance', 'code', 'requestId'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    code: { type: 'string', enum: [...Object.keys(PROBLEMS), ...AREAS.flatMap((a) => Object.keys(a.problems ?? {}))] },
    requestId: { type: 'string', description: 'Equals the X-Request-Id header.' },
    errors: {
      type: 'array',
      description: 'Validation problems: where each invalid value is.',
      items: {
        type: 'object',
        required: ['detail'],
        properties: { pointer: { type: 'string', description: 'JSON Pointer into the body' }, parameter: { type: 'string' }, header: { type: 'string' }, detail: { type: 'string' } },
      },
    },
    overlappingEntryIds: { type: 'array', items: { type: 'string', format: 'uuid' }, description: 'TIME_ENTRY_OVERLAP: the entries overlapped.' },
    requiredScopes: { type: 'array', items: { type: 'string' }, description: 'SCOPE_REQUIRED: the scopes the key lacks.' },
    currentStock: { type: 'number', description: 'Stock adjustments refused for going below zero: the stock now.' },
    resultingStock: { type: 'number', description: 'Stock adjustments refused for going below zero: the stock the adjustment would leave.' },
  },
};

export function openApiDocument(): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  const names = new Map<z.ZodType, string>();
  for (const area of AREAS) {
    for (const [id, schema] of Object.entries(area.schemas)) {
      registry.add(schema, { id });
      names.set(schema, id);
    }
  }
  const { schemas } = z.toJSONSchema(registry, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` }) as {
    schemas: Record<string, Record<string, unknown>>;
  };
  const components = Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _drop, $id: _id, ...rest }]) => [id, rest]));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const area of AREAS) {
    for (const route of routeRowsOf(area)) {
      const path = resourcePath(route);
      paths[path] ??= { parameters: [{ name: 'organizationId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }] };
      const operation = area.openapi ? area.openapi.operation(route) : publicOperation(route, (schema) => names.get(schema));
      const { parameters, ...rest } = operation as { parameters: { in: string; name: string }[] };
      paths[path][route.method.toLowerCase()] = { ...rest, parameters: parameters.filter((p) => !(p.in === 'path' && p.name === 'organizationId')) };
    }
  }
  const areaComponents = Object.assign({}, ...AREAS.map((a) => a.openapi?.components ?? {})) as Record<string, unknown>;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Organization API',
      version: '1.0.0',
      summary: 'Work evidence, timesheets, corrections, audit and SCIM employee provisioning.',
      description: 'Every path is scoped to one organization. Request bodies are JSON in UTF-8 (RFC 8259): a Content-Type whose charset is not UTF-8 is 415 UNSUPPORTED_MEDIA_TYPE, as is another media type. Errors are application/problem+json (RFC 9457) with `code` and `requestId`; SCIM routes answer in the SCIM error schema. Every response carries X-Request-Id.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: 'https://api.test.wfm.example', description: 'TEST (TEST keys only)' }, { url: 'https://api.wfm.example', description: 'LIVE (LIVE keys only)' }, { url: 'http://127.0.0.1:3000', description: 'Local (npm start)' }],
    tags: AREAS.map((area) => ({ name: area.name, description: area.description })),
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: wfm_test_<key-id>.<secret> or wfm_live_<key-id>.<secret>.' } },
      schemas: { ...components, Problem: problemSchema, ...areaComponents },
    },
  };
}
