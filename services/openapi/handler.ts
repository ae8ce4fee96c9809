import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { PLATFORM_FUNCTIONS } from '../platform';
import type { PublicRouteRow } from '../shared/area';
import { requestIdOf } from '../shared/http/middleware';
import { problemBody } from '../shared/http/problems';
import { referencePage, REFERENCE_CSP } from './reference';

/**
 * The `openapi` platform function: the public routes it declares in services/platform.ts
 * (the API reference page, Redoc's browser bundle, the OpenAPI document), served without a
 * key by the stack and the local gateway alike. It reads no table and holds no secret.
 *
 * The document is the generated docs/openapi.json (`npm run openapi`; test/unit/openapi.test.ts
 * keeps it equal to what the registry generates), read like Redoc's bundle: beside the bundle
 * in Lambda, from the project locally. Generating it here would import the registry, every
 * area's declaration and schemas (~200 KB of bundle, most of this function's cold start).
 */
const FUNCTION_NAME = 'openapi';
const definition = PLATFORM_FUNCTIONS.find((f) => f.name === FUNCTION_NAME);
// PUBLIC_ROUTES' rows of this function (services/routes.ts derives them the same way).
const routes: readonly PublicRouteRow[] = (definition?.publicRoutes ?? []).map((route) => ({ ...route, function: FUNCTION_NAME }));
const pathOf = (operation: string): string => {
  const route = routes.find((r) => r.operation === operation);
  if (!route) throw new Error(`services/platform.ts: the ${FUNCTION_NAME} function declares no public route ${operation}.`);
  return route.path;
};

const SCRIPT = 'redoc.standalone.js';
const DOCUMENT = 'openapi.json';

/** In Lambda the asset sits beside the bundle (AreaFunction copies it); locally it is read where it lies in the project (node_modules, docs). */
function assetFile(name: string): string {
  const fromRoot = definition?.assets?.[name];
  if (!fromRoot) throw new Error(`services/platform.ts: the ${FUNCTION_NAME} function declares no asset ${name}.`);
  return process.env.LAMBDA_TASK_ROOT ? join(process.env.LAMBDA_TASK_ROOT, name) : join(process.cwd(), fromRoot);
}

const once = <T>(make: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= make());
};

/** The generated document, parsed once: its title names the page, and it is served compact. */
const openApiDocument = once((): { readonly info: { readonly title: string } } => JSON.parse(readFileSync(assetFile(DOCUMENT), 'utf8')));

const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };

const responders: Readonly<Record<string, () => { readonly contentType: string; readonly body: string; readonly headers?: Record<string, string> }>> = {
  getApiReference: once(() => ({
    contentType: 'text/html; charset=utf-8',
    body: referencePage({
      title: String(openApiDocument().info.title),
      pagePath: pathOf('getApiReference'),
      scriptPath: pathOf('getApiReferenceScript'),
      documentPath: pathOf('getOpenApiDocument'),
    }),
    headers: { 'Content-Security-Policy': REFERENCE_CSP, 'Cache-Control': 'public, max-age=300' },
  })),
  getApiReferenceScript: once(() => ({ contentType: 'application/javascript; charset=utf-8', body: readFileSync(assetFile(SCRIPT), 'utf8'), headers: { 'Cache-Control': 'public, max-age=3600' } })),
  getOpenApiDocument: once(() => ({ contentType: 'application/json', body: JSON.stringify(openApiDocument()), headers: { 'Cache-Control': 'public, max-age=300' } })),
};

for (const route of routes) {
  if (!responders[route.operation]) throw new Error(`services/openapi/handler.ts has no response for the public route ${route.operation}.`);
}

const problem = (status: number, code: 'RESOURCE_NOT_FOUND' | 'VALIDATION_ERROR', detail: string, requestId: string, instance: string, extra: object = {}): APIGatewayProxyResult => ({
  statusCode: status,
  headers: { 'Content-Type': 'application/problem+json', 'X-Request-Id': requestId, ...SECURITY_HEADERS },
  body: JSON.stringify({ ...problemBody(code, detail, requestId, instance), ...extra }),
});

const routeOf = (event: APIGatewayProxyEvent): PublicRouteRow | undefined => routes.find((r) => r.method === event.httpMethod && r.path === event.resource);

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const requestId = requestIdOf(event);
  const route = routeOf(event);
  if (!route) {
    // API Gateway routes nothing else here; answer like an unknown resource.
    return {
      statusCode: 404,
      headers: { 'Content-Type': 'application/problem+json', 'X-Request-Id': requestId },
      body: JSON.stringify(problemBody('RESOURCE_NOT_FOUND', 'There is nothing at this path.', requestId, event.path)),
    };
  }
  if (event.path.length > 1 && event.path.endsWith('/')) {
    // `/docs/` would load the page, whose relative URLs then resolve below it to nothing.
    return problem(404, 'RESOURCE_NOT_FOUND', `There is nothing at this path; without the trailing slash it is ${event.path.replace(/\/+$/, '')}.`, requestId, event.path);
  }
  const parameters = Object.keys({ ...event.queryStringParameters, ...event.multiValueQueryStringParameters });
  if (parameters.length > 0) {
    return problem(422, 'VALIDATION_ERROR', 'This route takes no query parameters.', requestId, event.path, { errors: parameters.sort().map((parameter) => ({ parameter, detail: `Unknown query parameter ${parameter}: this route takes none.` })) });
  }
  const { contentType, body, headers } = responders[route.operation]();
  return { statusCode: 200, headers: { 'Content-Type': contentType, 'X-Request-Id': requestId, ...SECURITY_HEADERS, ...headers }, body };
};
