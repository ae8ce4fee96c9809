import { ROUTES, resourcePath } from '../routes';

/**
 * The OpenAPI 3.1 document, generated from the route table (and, as areas land, their zod
 * schemas). Served locally at /v1/openapi.json; written to docs/openapi.json by
 * `npm run openapi`.
 */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const path = resourcePath(route);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: route.operation,
      summary: route.summary,
      tags: [route.area],
      security: [{ apiKey: [] }],
      'x-required-scopes': route.scopes,
      responses: { default: { description: 'See the problem responses.' } },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Organization API', version: '1.0.0' },
    paths,
    components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'wfm_test_<key-id>.<secret> or wfm_live_<key-id>.<secret>' } } },
  };
}
