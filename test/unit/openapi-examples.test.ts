import { openApiDocument } from '../../services/openapi/document';
import { exampleOfJsonSchema } from '../../services/openapi/examples';
import { ROUTES, resourcePath } from '../../services/routes';
import { codeOf } from '../../services/shared/errors';

/**
 * What the reference shows for every operation: its scopes, its headers, its problem codes,
 * and an example request and response that the contract's own zod schemas accept. (redocly
 * lint, part of npm test, also checks every example against the document's JSON Schemas.)
 */
type Operation = {
  security: Record<string, string[]>[];
  parameters: { name: string; in: string; example?: unknown }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { example?: unknown; examples?: Record<string, unknown> }> }>;
};
const doc = openApiDocument() as { paths: Record<string, Record<string, Operation>> };
const operationOf = (route: (typeof ROUTES)[number]): Operation => doc.paths[resourcePath(route)][route.method.toLowerCase()];
const JSON_TYPES = ['application/json', 'application/scim+json'];

describe('examples in the reference', () => {
  it.each(ROUTES.filter((r) => r.body).map((r) => [r.operation, r] as const))('%s: the request example passes the body schema', (_name, route) => {
    const content = operationOf(route).requestBody?.content ?? {};
    const example = (content['application/json'] ?? content['application/scim+json'])?.example;
    expect(example).toBeDefined();
    const parsed = route.body!.safeParse(example);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  });

  it.each(ROUTES.filter((r) => r.success.schema).map((r) => [r.operation, r] as const))('%s: the response example passes the response schema', (_name, route) => {
    const example = operationOf(route).responses[String(route.success.status)].content?.['application/json']?.example;
    expect(example).toBeDefined();
    const parsed = route.success.schema!.safeParse(example);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  });

  it('gives every operation with a JSON body or JSON success response an example (SCIM included)', () => {
    const missing: string[] = [];
    for (const route of ROUTES) {
      const op = operationOf(route);
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) if (JSON_TYPES.includes(type) && media.example === undefined) missing.push(`${route.operation} request`);
      // The first success: 2XX, or the 302 of a download that redirects to S3.
      const success = Object.entries(op.responses).find(([status]) => /^[23]/.test(status))![1];
      for (const [type, media] of Object.entries(success.content ?? {})) if (JSON_TYPES.includes(type) && media.example === undefined) missing.push(`${route.operation} response`);
    }
    expect(missing).toEqual([]);
  });
});

describe('what every operation shows', () => {
  it.each(ROUTES.filter((r) => r.api === 'public').map((r) => [r.operation, r] as const))('%s: scopes, headers with examples, and one example per problem code', (_name, route) => {
    const op = operationOf(route);
    expect(op.security).toEqual([{ apiKey: [...route.scopes] }]);
    const headers = op.parameters.filter((p) => p.in === 'header');
    expect(headers.map((h) => h.name).sort()).toEqual([...(route.idempotencyKey ? ['Idempotency-Key'] : []), ...(route.ifMatch ? ['If-Match'] : [])].sort());
    for (const header of headers) expect(header.example).toEqual(expect.any(String));
    const problemCodes = Object.entries(op.responses)
      .filter(([status]) => Number(status) >= 400)
      .flatMap(([, response]) => Object.keys(response.content?.['application/problem+json']?.examples ?? {}));
    for (const code of route.problems) expect(problemCodes).toContain(codeOf(code));
    if (route.ifMatch === 'required') expect(problemCodes).toEqual(expect.arrayContaining(['ETAG_REQUIRED', 'ETAG_MISMATCH']));
    if (route.idempotencyKey === 'required') expect(problemCodes).toContain('IDEMPOTENCY_KEY_REQUIRED');
  });
});

describe('the example generator', () => {
  it('takes a schema\'s own example, then const, enum and default, before it makes one up', () => {
    expect(exampleOfJsonSchema({ type: 'string', examples: ['Europe/Berlin'], enum: ['x'] })).toBe('Europe/Berlin');
    expect(exampleOfJsonSchema({ const: 'PATCH' })).toBe('PATCH');
    expect(exampleOfJsonSchema({ type: 'string', enum: ['MONDAY', 'TUESDAY'] })).toBe('MONDAY');
    expect(exampleOfJsonSchema({ type: 'integer', default: 20 })).toBe(20);
  });

  it('respects bounds, formats and nullability, and orders the ends of a range after their starts', () => {
    expect(exampleOfJsonSchema({ type: 'integer', minimum: 5, maximum: 9 })).toBe(5);
    expect(exampleOfJsonSchema({ type: 'number', exclusiveMaximum: 0.5 })).toBe(0);
    expect(exampleOfJsonSchema({ type: 'string', minLength: 12 }, undefined, 'unit')).toHaveLength(12);
    expect(exampleOfJsonSchema({ anyOf: [{ type: 'null' }, { type: 'string', format: 'uuid' }] })).toMatch(/^[0-9a-f-]{36}$/);
    const range = exampleOfJsonSchema({ type: 'object', properties: { startedAt: { type: 'string', format: 'date-time' }, endedAt: { type: 'string', format: 'date-time' } } }) as Record<string, string>;
    expect(Date.parse(range.endedAt)).toBeGreaterThan(Date.parse(range.startedAt));
  });
});
