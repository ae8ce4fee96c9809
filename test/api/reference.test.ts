import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { handler } from '../../services/openapi/handler';
import { openApiDocument } from '../../services/openapi/document';
import { REFERENCE_CSP } from '../../services/openapi/reference';
import { PUBLIC_ROUTES } from '../../services/routes';
import { startApi, type ApiFixture } from '../support/api';

/**
 * The route table's public routes through the local gateway: the API reference page, Redoc's
 * bundle from the redoc package and the OpenAPI document, all without a key (the same
 * `openapi` handler the stack deploys).
 */
let api: ApiFixture;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${api.gateway.url}${path}`, { headers });

describe('public routes', () => {
  it('serves the OpenAPI document without a key, equal to the generated one', async () => {
    const res = await get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  it('serves the reference page, which loads the bundle and the document by relative URLs, under a strict CSP', async () => {
    const res = await get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(REFERENCE_CSP);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html).toContain('<redoc spec-url="v1/openapi.json"');
    expect(html).toContain('<script src="docs/redoc.standalone.js"></script>');
    // Nothing from another origin, no inline script.
    expect(html).not.toMatch(/https?:\/\//);
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  it("serves Redoc's browser bundle exactly as the redoc package ships it", async () => {
    const res = await get('/docs/redoc.standalone.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(await res.text()).toBe(readFileSync('node_modules/redoc/bundles/redoc.standalone.js', 'utf8'));
  });

  it('needs no key and ignores a wrong one (the authorizer does not run)', async () => {
    expect((await get('/docs', { Authorization: 'Bearer not-a-key' })).status).toBe(200);
    expect((await get('/v1/openapi.json', { Authorization: 'Bearer not-a-key' })).status).toBe(200);
  });

  it('answers 405 with Allow on other methods of these paths', async () => {
    for (const path of new Set(PUBLIC_ROUTES.map((r) => r.path))) {
      const res = await fetch(`${api.gateway.url}${path}`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
      expect({ path, status: res.status, allow: res.headers.get('allow'), type: res.headers.get('content-type') }).toEqual({ path, status: 405, allow: 'GET', type: 'application/problem+json' });
      expect(await res.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED', status: 405 });
    }
  });

  it('answers 422 naming each query parameter (these routes take none) and 404 below a trailing slash, as problem+json', async () => {
    for (const path of new Set(PUBLIC_ROUTES.map((r) => r.path))) {
      const res = await get(`${path}?foo=1&bar=2`);
      expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({ path, status: 422, type: 'application/problem+json' });
      const body = (await res.json()) as { errors: { parameter: string }[] };
      expect(body).toMatchObject({ code: 'VALIDATION_ERROR', requestId: res.headers.get('x-request-id') });
      expect(body.errors.map((e: { parameter: string }) => e.parameter)).toEqual(['bar', 'foo']);
    }
    const slash = await get('/docs/');
    expect(slash.status).toBe(404);
    expect(await slash.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND', instance: '/docs/' });
    expect((await get('/docs')).status).toBe(200);
  });

  it('keeps the key on everything else: the organization routes still answer 401 without one', async () => {
    expect((await fetch(`${api.orgUrl()}/materials`)).status).toBe(401);
  });
});

describe('the openapi handler', () => {
  it('answers 404 problem+json for a resource it does not serve', async () => {
    const event = { httpMethod: 'GET', resource: '/elsewhere', path: '/elsewhere', requestContext: { requestId: 'r-1', stage: 'v1' }, headers: {} } as unknown as APIGatewayProxyEvent;
    const res = await handler(event);
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'RESOURCE_NOT_FOUND', requestId: 'r-1', instance: '/elsewhere' });
  });
});
