import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Asset } from 'aws-cdk-lib/aws-s3-assets';
import type { IConstruct } from 'constructs';
import { PUBLIC_ROUTES, ROUTES } from '../../services/routes';
import { PLATFORM_FUNCTIONS } from '../../services/registry';
import { isPublicRouteMethod, isRouteMethod, logicalId, logicalIdOf, methodsOf, resourcesOf, synthesize } from './fixture';

/**
 * The API reference in the deployed stack: exactly the route table's public routes are open
 * (no authorizer, no API key), on the public RestApi whose stage the WebACL protects, served
 * by the `openapi` platform function with Redoc's bundle beside its code.
 */
const built = synthesize({ env: 'test' }, { bundled: true });
const template = built.apiTemplate;
const methods = methodsOf(template);
const publicRestApi = logicalId(built.api, built.api.publicApi.restApi.node.defaultChild);
const openapiFunction = logicalId(built.api, built.api.functions.openapi.node.defaultChild);

describe('public routes (the API reference)', () => {
  it('are declared by the openapi platform function: the page, its script and the OpenAPI document', () => {
    expect(PUBLIC_ROUTES.map((r) => `${r.method} ${r.path} -> ${r.function}`).sort()).toEqual([
      'GET /docs -> openapi',
      'GET /docs/redoc.standalone.js -> openapi',
      'GET /v1/openapi.json -> openapi',
    ]);
  });

  it('deploys exactly these routes without an authorizer and without an API key, on the public RestApi', () => {
    const open = methods.filter(isPublicRouteMethod);
    expect(open.map((m) => `${m.httpMethod} ${m.path}`).sort()).toEqual(PUBLIC_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    for (const method of open) {
      expect({ route: `${method.httpMethod} ${method.path}`, auth: method.properties.AuthorizationType, authorizer: method.properties.AuthorizerId, apiKey: method.properties.ApiKeyRequired ?? false, api: method.restApi }).toEqual({
        route: `${method.httpMethod} ${method.path}`,
        auth: 'NONE',
        authorizer: undefined,
        apiKey: false,
        api: publicRestApi,
      });
      expect(method.properties.Integration.Type).toBe('AWS_PROXY');
      expect(JSON.stringify(method.properties.Integration.Uri)).toContain(`"${openapiFunction}","Arn"`);
    }
  });

  it('keeps the key authorizer and the API key on every other routed method', () => {
    const routed = methods.filter(isRouteMethod);
    expect(routed).toHaveLength(ROUTES.length);
    for (const method of routed) expect({ auth: method.properties.AuthorizationType, apiKey: method.properties.ApiKeyRequired }).toEqual({ auth: 'CUSTOM', apiKey: true });
  });

  it('answers other methods on the public paths with the 405 mock', () => {
    const mocks = methods.filter((m) => m.properties.Integration?.Type === 'MOCK' && PUBLIC_ROUTES.some((r) => r.path === m.path));
    expect(mocks.map((m) => m.path).sort()).toEqual([...new Set(PUBLIC_ROUTES.map((r) => r.path))].sort());
  });

  it('sits behind the public WebACL', () => {
    const associations = Object.values(resourcesOf(template, 'AWS::WAFv2::WebACLAssociation')).map((a) => JSON.stringify(a.Properties?.ResourceArn));
    expect(associations.some((arn) => arn.includes(publicRestApi))).toBe(true);
  });

  it('runs a function that reads no table, holds no secret and no key', () => {
    const props = resourcesOf(template, 'AWS::Lambda::Function')[openapiFunction].Properties ?? {};
    expect(Object.keys(props.Environment.Variables).sort()).toEqual(['API_ENVIRONMENT', 'POWERTOOLS_LOG_LEVEL', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_TRACER_CAPTURE_RESPONSE', 'POWERTOOLS_TRACE_ENABLED']);
    const roleId = logicalIdOf(props.Role);
    const statements = Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
      .filter((p) => (p.Properties?.Roles as unknown[]).some((r) => logicalIdOf(r) === roleId))
      .flatMap((p) => p.Properties?.PolicyDocument.Statement as { Action: string | string[] }[]);
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions.filter((a) => !/^(logs|xray):/.test(a))).toEqual([]);
  });

  it("bundles Redoc's browser script and the generated OpenAPI document beside the handler, not the registry", () => {
    const definition = PLATFORM_FUNCTIONS.find((f) => f.name === 'openapi')!;
    const assetDir = join(built.assembly.directory, assetPathOf(built.api.functions.openapi));
    for (const name of Object.keys(definition.assets ?? {})) expect(existsSync(join(assetDir, name))).toBe(true);
    expect(readdirSync(assetDir)).toEqual(expect.arrayContaining(['index.mjs', 'redoc.standalone.js', 'openapi.json']));
    expect(readFileSync(join(assetDir, 'openapi.json'), 'utf8')).toBe(readFileSync('docs/openapi.json', 'utf8'));
    // The document is read, not generated: no area's schemas (nor zod) in the function's code.
    expect(statSync(join(assetDir, 'index.mjs')).size).toBeLessThan(100 * 1024);
  });
});

/** The asset folder of a function's code in the cloud assembly. */
function assetPathOf(fn: IConstruct): string {
  return (fn.node.findChild('Code') as Asset).assetPath;
}
