import { Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { RoutedApi } from '../../lib/constructs/api';
import { ApiDomain } from '../../lib/constructs/api-domain';
import { ApiFirewall } from '../../lib/constructs/api-firewall';
import { AppTable } from '../../lib/constructs/app-table';
import { AreaFunction } from '../../lib/constructs/area-function';
import { staticHeaderValue } from '../../lib/gateway-responses';
import { NestedStack } from 'aws-cdk-lib';
import { ORG_PREFIX, ROUTES } from '../../services/routes';
import { freshStack } from './fixture';

/** Constructs on their own, in a fresh Stack each, with bundling skipped. */
const stack = () => freshStack({ 'aws:cdk:bundling-stacks': [] });
const imported = (scope: ReturnType<typeof stack>, name: string) =>
  LambdaFunction.fromFunctionAttributes(scope, name, { functionArn: `arn:aws:lambda:eu-central-1:111111111111:function:${name}`, sameEnvironment: true });

describe('RoutedApi', () => {
  it('refuses an api without routes, naming it', () => {
    const scope = stack();
    expect(() => new RoutedApi(scope, 'Api', { api: 'scim', routes: [], authorizerFunction: imported(scope, 'auth') })).toThrow(/api "scim" has no routes/);
  });

  it('rejects a burst limit below the rate limit', () => {
    const scope = stack();
    expect(() => new RoutedApi(scope, 'Api', { api: 'scim', authorizerFunction: imported(scope, 'auth'), throttlingRateLimit: 50, throttlingBurstLimit: 10 }))
      .toThrow(/throttlingBurstLimit at least as large/);
  });

  it('keeps the organization prefix, collections, items and shared paths itself, and leaves deeper paths to their one area', () => {
    const scope = stack();
    const api = new RoutedApi(scope, 'Api', { api: 'public', authorizerFunction: imported(scope, 'auth') });
    expect(api.ownsPath(ORG_PREFIX)).toBe(true);
    expect(api.ownsPath(`${ORG_PREFIX}/locations/{locationId}`)).toBe(true);
    // Only materials has routes at or below it, so it is materials' own resource.
    expect(api.ownsPath(`${ORG_PREFIX}/locations/{locationId}/materials`)).toBe(false);
    expect(api.ownsPath(`${ORG_PREFIX}/locations/{locationId}/contacts`)).toBe(false);
  });

  it('serves only the routes of its own api, each area in its own stack', () => {
    const scope = stack();
    const api = new RoutedApi(scope, 'Api', { api: 'scim', authorizerFunction: imported(scope, 'auth') });
    const areaStack = new NestedStack(scope, 'AreaScim');
    api.addAreaRoutes(areaStack, 'scim', imported(areaStack, 'scim'));
    expect(api.addAreaRoutes(new NestedStack(scope, 'AreaAudit'), 'audit', imported(scope, 'audit'))).toEqual([]);
    api.deploy();
    const methods = Object.values(Template.fromStack(areaStack).findResources('AWS::ApiGateway::Method'));
    expect(methods.filter((m) => m.Properties.AuthorizationType === 'CUSTOM')).toHaveLength(ROUTES.filter((route) => route.api === 'scim').length);
    expect(Template.fromStack(scope).findResources('AWS::ApiGateway::Method')).toEqual({});
  });
});

describe('AreaFunction', () => {
  it('refuses an empty table grant', () => {
    const scope = stack();
    const fn = new AreaFunction(scope, 'Fn', { name: 'audit', apiEnvironment: 'TEST' });
    expect(() => fn.bindTable(new AppTable(scope, 'Table'), [])).toThrow(/bindTable needs at least one action/);
  });

  it('refuses a name that is not a services/ folder', () => {
    expect(() => new AreaFunction(stack(), 'Fn', { name: '../etc', apiEnvironment: 'TEST' })).toThrow(/name must be a services\/ folder name/);
  });
});

describe('ApiFirewall', () => {
  it('refuses a per-IP limit under the WAF minimum', () => {
    expect(() => new ApiFirewall(stack(), 'Waf', { requestsPerIpPerMinute: 5 })).toThrow(/requestsPerIpPerMinute must be an integer of at least 10/);
  });
});

describe('ApiDomain', () => {
  it('refuses a hosted zone id without its name', () => {
    const scope = stack();
    const api = new RoutedApi(scope, 'Api', { api: 'scim', authorizerFunction: imported(scope, 'auth') });
    api.addAreaRoutes(new NestedStack(scope, 'AreaScim'), 'scim', imported(scope, 'scim'));
    api.deploy();
    expect(() => new ApiDomain(scope, 'Domain', { domainName: 'a.example.com', certificateArn: 'arn:c', hostedZoneId: 'Z1', restApi: api.restApi, stage: api.stage }))
      .toThrow(/set both hostedZoneId and hostedZoneName/);
  });
});

describe('static header values', () => {
  it('quotes a literal and refuses one that would break the quoting', () => {
    expect(staticHeaderValue('Retry-After', '1')).toBe("'1'");
    expect(() => staticHeaderValue('X', "it's")).toThrow(/Header X: a static value cannot contain a single quote/);
  });
});
