import { z } from 'zod';
import { auditListQuery, auditResponseSchema } from '../audit/handler';
import { ORG_PREFIX, ROUTES, resourcePath, type RouteSpec } from '../routes';
import type { ErrorCode } from '../shared/errors';
import { PROBLEMS, problemType } from '../shared/http/problems';
import {
  correctBodySchema,
  createBodySchema,
  listQuerySchema,
  timeEntryResponseSchema,
  timeEntryWriteResponseSchema,
  voidBodySchema,
} from '../timesheets/schemas';
import { workEventListQuery, workEventResponseSchema } from '../work-events/handler';
import { employeesDocs } from '../employees/openapi';
import { locationsDocs } from '../locations/openapi';
import { materialsDocs } from '../materials/openapi';
import { organizationDocs } from '../organization/openapi';
import { reportsDocs } from '../reports/openapi';
import { SCIM_SCHEMAS } from './scim';
import { listOf } from './list';
import type { AreaDocs, OperationDoc, RequestHeader, ResponseHeader } from './types';

/**
 * The OpenAPI 3.1 document: paths from the route table, schemas from the areas' zod schemas
 * (request bodies as accepted, responses as returned). Served locally at /v1/openapi.json and
 * written to docs/openapi.json by `npm run openapi` (a test keeps the two equal).
 */
type Header = RequestHeader;


const CORE_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  TimeEntry: timeEntryResponseSchema,
  TimeEntryWriteResult: timeEntryWriteResponseSchema,
  TimeEntryList: listOf(timeEntryResponseSchema),
  WorkEvent: workEventResponseSchema,
  WorkEventList: listOf(workEventResponseSchema),
  AuditEntry: auditResponseSchema,
  AuditEntryList: listOf(auditResponseSchema),
};

const WRITE_PROBLEMS: ErrorCode[] = ['IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_REQUEST_IN_PROGRESS', 'VALIDATION_ERROR', 'MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'FEATURE_NOT_ENABLED', 'TRANSACTION_CONFLICT'];

const CORE_DOCS: Readonly<Record<string, OperationDoc>> = {
  listWorkEvents: {
    description: 'Work events (scan evidence) by server timestamp, oldest first. Read-only: evidence enters through the authenticated scan channel, never this API.',
    query: workEventListQuery,
    success: { status: 200, description: 'A page of work events.', ref: 'WorkEventList' },
    problems: ['VALIDATION_ERROR'],
  },
  getWorkEvent: { description: 'One work event.', success: { status: 200, description: 'The work event.', ref: 'WorkEvent' }, problems: ['RESOURCE_NOT_FOUND'] },
  listTimeEntries: {
    description: 'Time entries overlapping [from, to) (an entry that starts before `from` and ends inside is included), by startedAt then id.',
    query: listQuerySchema,
    success: { status: 200, description: 'A page of time entries.', ref: 'TimeEntryList' },
    problems: ['VALIDATION_ERROR'],
  },
  createTimeEntry: {
    description: 'Adds missed work as one complete, CLOSED, MANUAL entry, atomically with its audit entry.',
    body: createBodySchema,
    headers: { 'Idempotency-Key': 'required' },
    success: { status: 201, description: 'The created entry.', ref: 'TimeEntryWriteResult', headers: ['ETag', 'Location', 'Idempotency-Replayed'] },
    problems: [...WRITE_PROBLEMS, 'TIME_ENTRY_OVERLAP'],
  },
  getTimeEntry: { description: 'One time entry with its ETag.', success: { status: 200, description: 'The entry.', ref: 'TimeEntry', headers: ['ETag'] }, problems: ['RESOURCE_NOT_FOUND'] },
  correctTimeEntry: {
    description: 'Corrects an entry (partial body; SCANNED entries accept startedAt, endedAt and breakMinutes only). Makes a new revision.',
    body: correctBodySchema,
    headers: { 'Idempotency-Key': 'required', 'If-Match': 'required' },
    success: { status: 200, description: 'The new revision.', ref: 'TimeEntryWriteResult', headers: ['ETag', 'Idempotency-Replayed'] },
    problems: [...WRITE_PROBLEMS, 'RESOURCE_NOT_FOUND', 'ETAG_REQUIRED', 'ETAG_MISMATCH', 'TIME_ENTRY_OVERLAP', 'TIME_ENTRY_VOIDED'],
  },
  voidTimeEntry: {
    description: 'Voids an entry: a final VOIDED revision. The entry, its work events and its audit history stay readable.',
    body: voidBodySchema,
    headers: { 'Idempotency-Key': 'required', 'If-Match': 'required' },
    success: { status: 200, description: 'The VOIDED revision.', ref: 'TimeEntryWriteResult', headers: ['ETag', 'Idempotency-Replayed'] },
    problems: [...WRITE_PROBLEMS, 'RESOURCE_NOT_FOUND', 'ETAG_REQUIRED', 'ETAG_MISMATCH', 'TIME_ENTRY_VOIDED'],
  },
  listAuditEntries: {
    description: 'The organization audit trail, newest first; allowlisted content only.',
    query: auditListQuery,
    success: { status: 200, description: 'A page of audit entries.', ref: 'AuditEntryList' },
    problems: ['VALIDATION_ERROR'],
  },
};

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

const HEADER_PARAMETERS: Record<Header, { description: string; schema: Record<string, unknown> }> = {
  'Idempotency-Key': { description: '1-255 printable ASCII characters; the same key and input within 24 hours replays the original response.', schema: { type: 'string', minLength: 1, maxLength: 255 } },
  'If-Match': { description: 'The current ETag of the resource.', schema: { type: 'string' } },
};

const RESPONSE_HEADERS: Record<ResponseHeader | 'X-Request-Id', { description: string }> = {
  'X-Request-Id': { description: 'The request ID; share it with support.' },
  ETag: { description: 'Strong ETag of the resource (e.g. "time-entry:<id>:r<revision>"); send it in If-Match to change the resource.' },
  Location: { description: 'Path of the created resource.' },
  'Idempotency-Replayed': { description: '"true" when this is the replay of an earlier response to the same Idempotency-Key.' },
  'Content-Disposition': { description: 'attachment, with a file name.' },
};

const headerObjects = (names: readonly (ResponseHeader | 'X-Request-Id')[]) =>
  Object.fromEntries(names.map((n) => [n, { description: RESPONSE_HEADERS[n].description, schema: { type: 'string' } }]));

const COMMON_PROBLEMS: ErrorCode[] = ['UNAUTHENTICATED', 'ACCESS_DENIED', 'SCOPE_REQUIRED', 'RATE_LIMITED', 'INTERNAL_ERROR'];

function problemResponses(codes: readonly ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...codes, ...COMMON_PROBLEMS])) {
    const { status } = PROBLEMS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        {
          description: list.map((c) => `${c}: ${PROBLEMS[c].title}`).join('; '),
          headers: headerObjects(['X-Request-Id']),
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, examples: Object.fromEntries(list.map((c) => [c, { value: exampleProblem(c) }])) } },
        },
      ]),
  );
}

const exampleProblem = (code: ErrorCode) => ({
  type: problemType(code),
  title: PROBLEMS[code].title,
  status: PROBLEMS[code].status,
  detail: '...',
  instance: `${ORG_PREFIX.replace('{organizationId}', '6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f')}/timesheets`,
  code,
  requestId: 'c0ffee00-0000-4000-8000-000000000000',
});

const AREA_DOCS: readonly AreaDocs[] = [{ operations: CORE_DOCS, schemas: CORE_SCHEMAS }, organizationDocs, employeesDocs, locationsDocs, materialsDocs, reportsDocs];
const DOCS: Readonly<Record<string, OperationDoc>> = Object.assign({}, ...AREA_DOCS.map((a) => a.operations));

function publicOperation(route: RouteSpec) {
  const doc = DOCS[route.operation];
  if (!doc) throw new Error(`No OpenAPI description for operation ${route.operation}.`);
  const pathParams = [...resourcePath(route).matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }));
  const headers = Object.entries(doc.headers ?? {}).map(([name, need]) => ({ name, in: 'header', required: need === 'required', ...HEADER_PARAMETERS[name as Header] }));
  return {
    operationId: route.operation,
    summary: route.summary,
    description: `${doc.description}\n\nScopes: ${route.scopes.join(', ')}.`,
    tags: [route.area],
    security: [{ apiKey: [] }],
    'x-required-scopes': route.scopes,
    parameters: [...pathParams, ...queryParameters(doc.query), ...headers],
    ...(doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(doc.body, 'input') } } } } : {}),
    responses: {
      [String(doc.success.status)]: {
        description: doc.success.description,
        headers: headerObjects(['X-Request-Id', ...(doc.success.headers ?? [])]),
        ...(doc.success.ref ? { content: { 'application/json': { schema: { $ref: `#/components/schemas/${doc.success.ref}` } } } } : {}),
        ...(doc.success.content ? { content: Object.fromEntries(Object.entries(doc.success.content).map(([type, schema]) => [type, { schema }])) } : {}),
      },
      ...problemResponses(doc.problems),
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
    code: { type: 'string', enum: Object.keys(PROBLEMS) },
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
  for (const area of AREA_DOCS) for (const [id, schema] of Object.entries(area.schemas)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` }) as {
    schemas: Record<string, Record<string, unknown>>;
  };
  const components = Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _drop, $id: _id, ...rest }]) => [id, rest]));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const path = resourcePath(route);
    paths[path] ??= { parameters: [{ name: 'organizationId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }] };
    const operation = route.api === 'scim' ? SCIM_SCHEMAS.operation(route) : publicOperation(route);
    const { parameters, ...rest } = operation as { parameters: { in: string; name: string }[] };
    paths[path][route.method.toLowerCase()] = { ...rest, parameters: parameters.filter((p) => !(p.in === 'path' && p.name === 'organizationId')) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Organization API',
      version: '1.0.0',
      summary: 'Work evidence, timesheets, corrections, audit and SCIM employee provisioning.',
      description: 'Every path is scoped to one organization. Errors are application/problem+json (RFC 9457) with `code` and `requestId`; SCIM routes answer in the SCIM error schema. Every response carries X-Request-Id.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: 'https://api.test.wfm.example', description: 'TEST (TEST keys only)' }, { url: 'https://api.wfm.example', description: 'LIVE (LIVE keys only)' }, { url: 'http://127.0.0.1:3000', description: 'Local (npm start)' }],
    tags: [
      { name: 'work-events', description: 'Read-only scan evidence.' },
      { name: 'timesheets', description: 'Effective time entries: create, correct, void.' },
      { name: 'audit', description: 'The organization audit trail.' },
      { name: 'scim', description: 'SCIM 2.0 user provisioning (RFC 7643/7644).' },
      { name: 'organization', description: 'The organization, its settings and capability facts.' },
      { name: 'employees', description: 'Employees (the records SCIM provisions) and their bank accounts.' },
      { name: 'locations', description: 'Locations, reusable contacts and QR rotation.' },
      { name: 'materials', description: 'Materials, location stock links and stock adjustments.' },
      { name: 'reports', description: 'Exports (CSV, PDF, monthly report, payroll dispatch), their manifests and staleness.' },
    ],
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: wfm_test_<key-id>.<secret> or wfm_live_<key-id>.<secret>.' } },
      schemas: { ...components, Problem: problemSchema, ...SCIM_SCHEMAS.components },
    },
  };
}
