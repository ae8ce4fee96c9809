import type { FunctionDefinition } from './shared/area';

/*
 * The platform functions, apart from services/registry.ts (which re-exports them) so that the
 * openapi function can read its own declaration without importing every area.
 */

/**
 * Functions beside the areas: the key authorizer, the internal evidence channel, and the API
 * reference, which serves its public routes (no key) from the generated OpenAPI document.
 */
export const PLATFORM_FUNCTIONS: readonly FunctionDefinition[] = [
  // Loads one key record by key-id; records its last use at most once per key per 5 minutes.
  { name: 'authorizer', description: 'API key authorizer', permissions: { table: ['GetItem', 'UpdateItem'], cursorSecret: false, restrictedDataKey: false } },
  // Appends evidence and projects scanned entries; never deletes.
  {
    name: 'evidence-ingest',
    description: 'Scan evidence channel',
    permissions: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem'], cursorSecret: false, restrictedDataKey: true },
  },
  // Reads nothing: the reference page, Redoc's browser bundle (served from the package, no
  // CDN) and the OpenAPI document, the one `npm run openapi` generates from the registry
  // (docs/openapi.json, a file beside the bundle: generating it there would bundle every area).
  {
    name: 'openapi',
    description: 'API reference and OpenAPI document',
    permissions: { table: [], cursorSecret: false, restrictedDataKey: false },
    assets: { 'redoc.standalone.js': 'node_modules/redoc/bundles/redoc.standalone.js', 'openapi.json': 'docs/openapi.json' },
    publicRoutes: [
      { method: 'GET', path: '/docs', operation: 'getApiReference', summary: 'The API reference (HTML), rendered by Redoc from the OpenAPI document' },
      { method: 'GET', path: '/docs/redoc.standalone.js', operation: 'getApiReferenceScript', summary: "Redoc's browser bundle, as the redoc package ships it" },
      { method: 'GET', path: '/v1/openapi.json', operation: 'getOpenApiDocument', summary: 'The OpenAPI 3.1 document' },
    ],
  },
];
