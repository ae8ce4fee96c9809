import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../lib/app';
import { ACCESS_LOG_FIELDS, DEFAULT_THROTTLING, FORWARDED_REQUEST_ID_HEADER, ORIGIN_HEADER, STAGE_NAMES } from '../../lib/constructs/api';
import { API_GATEWAY_VARS } from '../../lib/gateway-responses';
import { PER_KEY_THROTTLE } from '../../services/shared/auth/usage';
import { AUTHORIZER_CACHE_SECONDS } from '../../services/authorizer/cache';
import { ORG_PREFIX, PUBLIC_ROUTES, ROUTES, SCIM_PREFIX, resourcePath, type ApiName } from '../../services/routes';
import { ERROR_MEDIA_TYPE, FORWARD_HEADERS, GATEWAY_RESPONSES, SCIM_ERROR_SCHEMA } from '../../services/shared/http/gateway-responses';
import { flattenNested, freshApp, isPublicRouteMethod, isRouteMethod, logicalId, logicalIdOf, methodsOf, resourcesOf, synthesize, type MethodInfo } from './fixture';

const built = synthesize({ env: 'test' });
const template = built.apiTemplate;
const restApiIds: Record<ApiName, string> = {
  public: logicalId(built.api, built.api.publicApi.restApi.node.defaultChild),
  scim: logicalId(built.api, built.api.scimApi.restApi.node.defaultChild),
};
const authorizerIds: Record<ApiName, string> = {
  public: logicalId(built.api, built.api.publicApi.authorizer),
  scim: logicalId(built.api, built.api.scimApi.authorizer),
};
const methods = methodsOf(template);
const apiOf = (method: MethodInfo): ApiName => (method.restApi === restApiIds.public ? 'public' : 'scim');

describe('key authorizer', () => {
  it('is one REQUEST authorizer per RestApi on the Authorization header, cached AUTHORIZER_CACHE_SECONDS', () => {
    const authorizers = resourcesOf(template, 'AWS::ApiGateway::Authorizer');
    expect(Object.keys(authorizers).sort()).toEqual(Object.values(authorizerIds).sort());
    for (const authorizer of Object.values(authorizers)) {
      expect(authorizer.Properties).toMatchObject({
        Type: 'REQUEST',
        IdentitySource: 'method.request.header.Authorization',
        AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_SECONDS,
      });
    }
  });

  it('runs the same authorizer function on both RestApis', () => {
    const fnId = logicalId(built.api, built.api.functions.authorizer.node.defaultChild);
    const uris = Object.values(resourcesOf(template, 'AWS::ApiGateway::Authorizer')).map((a) => JSON.stringify(a.Properties?.AuthorizerUri));
    for (const uri of uris) expect(uri).toContain(`"${fnId}","Arn"`);
  });

  it('attaches the key authorizer to every routed method', () => {
    const routed = methods.filter(isRouteMethod);
    expect(routed.length).toBe(ROUTES.length);
    for (const method of routed) {
      expect({ route: `${method.httpMethod} ${method.path}`, type: method.properties.AuthorizationType, authorizer: logicalIdOf(method.properties.AuthorizerId) })
        .toEqual({ route: `${method.httpMethod} ${method.path}`, type: 'CUSTOM', authorizer: authorizerIds[apiOf(method)] });
    }
  });

  it('leaves only the 405 mocks, the SCIM forward and the public routes of the route table without authorization', () => {
    const open = methods.filter((m) => m.properties.AuthorizationType === 'NONE' && !isPublicRouteMethod(m));
    expect(open.every((m) => m.httpMethod === 'ANY')).toBe(true);
    expect(open.map((m) => m.properties.Integration.Type).sort()).toEqual(
      [...Array(open.length - 1).fill('MOCK'), 'HTTP_PROXY'].sort(),
    );
    expect(methods.filter(isPublicRouteMethod)).toHaveLength(PUBLIC_ROUTES.length);
  });
});

describe('405 for known paths', () => {
  const byPath = new Map<string, string[]>();
  for (const route of ROUTES) byPath.set(resourcePath(route), [...(byPath.get(resourcePath(route)) ?? []), route.method]);
  for (const route of PUBLIC_ROUTES) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method]);
  const mocks = methods.filter((m) => m.properties.Integration?.Type === 'MOCK');

  it('adds an ANY mock to every resource that has routed methods, and to no other', () => {
    expect(mocks.map((m) => m.path).sort()).toEqual([...byPath.keys()].sort());
    expect(mocks.every((m) => m.httpMethod === 'ANY')).toBe(true);
  });

  it('answers 405 with the Allow header, X-Request-Id and the API error media type', () => {
    for (const mock of mocks) {
      const [response] = mock.properties.Integration.IntegrationResponses;
      const api = apiOf(mock);
      expect(response.StatusCode).toBe('405');
      expect(response.SelectionPattern).toBeUndefined();
      expect(response.ResponseParameters).toEqual({
        'method.response.header.Allow': `'${[...new Set(byPath.get(mock.path))].sort().join(', ')}'`,
        'method.response.header.X-Request-Id': 'context.requestId',
        'method.response.header.Content-Type': `'${ERROR_MEDIA_TYPE[api === 'public' ? 'problem' : 'scim']}'`,
      });
    }
  });

  it('answers problem+json METHOD_NOT_ALLOWED on the public API and the SCIM error schema on the SCIM API', () => {
    for (const mock of mocks) {
      const body = JSON.parse(mock.properties.Integration.IntegrationResponses[0].ResponseTemplates['application/json']);
      if (apiOf(mock) === 'public') {
        expect(body).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED', requestId: API_GATEWAY_VARS.requestId, instance: API_GATEWAY_VARS.instance });
      } else {
        expect(body).toEqual({ schemas: [SCIM_ERROR_SCHEMA], status: '405', detail: expect.stringContaining('This route accepts') });
      }
    }
  });
});

describe('gateway responses', () => {
  const responses = Object.values(resourcesOf(template, 'AWS::ApiGateway::GatewayResponse')).map((r) => r.Properties ?? {});

  it.each([['public', 'problem'] as const, ['scim', 'scim'] as const])('gives the %s API every GATEWAY_RESPONSES row in its format', (api, format) => {
    const own = responses.filter((r) => logicalIdOf(r.RestApiId) === restApiIds[api]);
    expect(own.map((r) => r.ResponseType).sort()).toEqual(GATEWAY_RESPONSES.map((row) => row.type).sort());
    for (const row of GATEWAY_RESPONSES) {
      const response = own.find((r) => r.ResponseType === row.type) as Record<string, any>;
      expect(response.StatusCode).toBe(String(row.status));
      expect(response.ResponseParameters).toEqual({
        'gatewayresponse.header.Content-Type': `'${ERROR_MEDIA_TYPE[format]}'`,
        'gatewayresponse.header.X-Request-Id': 'context.requestId',
        ...Object.fromEntries(Object.entries(row.headers ?? {}).map(([name, value]) => [`gatewayresponse.header.${name}`, `'${value}'`])),
      });
      const body = JSON.parse(response.ResponseTemplates['application/json']);
      expect(response.ResponseTemplates[ERROR_MEDIA_TYPE[format]]).toBe(response.ResponseTemplates['application/json']);
      if (format === 'problem') {
        expect(body).toMatchObject({ code: row.code, status: row.status, requestId: '$context.requestId', instance: '$context.path' });
      } else {
        expect(body).toEqual({ schemas: [SCIM_ERROR_SCHEMA], status: String(row.status), detail: row.detail });
      }
    }
  });
});

it('answers a request a WebACL managed rule blocked with 403 in the error format, not with DEFAULT_4XX\'s 400', () => {
  const filtered = Object.values(resourcesOf(template, 'AWS::ApiGateway::GatewayResponse')).map((r) => r.Properties ?? {}).filter((r) => r.ResponseType === 'WAF_FILTERED');
  expect(filtered.map((r) => logicalIdOf(r.RestApiId)).sort()).toEqual([restApiIds.public, restApiIds.scim].sort());
  for (const r of filtered) expect(r.StatusCode).toBe('403');
});

describe('SCIM on the public host', () => {
  const forward = methods.find((m) => m.properties.Integration?.Type === 'HTTP_PROXY') as MethodInfo;

  it('forwards ANY /v1/organizations/{organizationId}/scim/v2/{proxy+} to the SCIM stage, passing the path parameters', () => {
    expect(forward).toBeDefined();
    expect(apiOf(forward)).toBe('public');
    expect(forward.path).toBe(`${ORG_PREFIX}${SCIM_PREFIX}/{proxy+}`);
    expect(forward.properties.Integration).toMatchObject({
      IntegrationHttpMethod: 'ANY',
      RequestParameters: {
        'integration.request.path.organizationId': 'method.request.path.organizationId',
        'integration.request.path.proxy': 'method.request.path.proxy',
      },
    });
    const uri = JSON.stringify(forward.properties.Integration.Uri);
    expect(uri).toContain(`{"Ref":"${restApiIds.scim}"}`);
    expect(uri).toContain(`${ORG_PREFIX}${SCIM_PREFIX}/{proxy}`);
    expect(forward.properties.RequestParameters).toEqual({ 'method.request.path.organizationId': true, 'method.request.path.proxy': true });
  });

  it('serves no SCIM route on the public RestApi itself', () => {
    const publicRouted = methods.filter((m) => isRouteMethod(m) && apiOf(m) === 'public');
    expect(publicRouted.some((m) => m.path.includes('/scim'))).toBe(false);
  });
});

describe('stages', () => {
  const stages = resourcesOf(template, 'AWS::ApiGateway::Stage');
  const stageOf = (api: ApiName) => Object.values(stages).find((s) => logicalIdOf(s.Properties?.RestApiId) === restApiIds[api])?.Properties as Record<string, any>;

  it.each(['public', 'scim'] as const)('throttles, traces and logs the %s stage', (api) => {
    const stage = stageOf(api);
    expect(stage.StageName).toBe(STAGE_NAMES[api]);
    expect(stage.TracingEnabled).toBe(true);
    expect(stage.MethodSettings).toEqual([
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        LoggingLevel: 'ERROR',
        MetricsEnabled: true,
        DataTraceEnabled: false,
        ThrottlingRateLimit: DEFAULT_THROTTLING[api].rateLimit,
        ThrottlingBurstLimit: DEFAULT_THROTTLING[api].burstLimit,
      }),
    ]);
  });

  it('gives SCIM at least the 25 requests per second Entra ID provisioning sends', () => {
    expect(stageOf('scim').MethodSettings[0].ThrottlingRateLimit).toBeGreaterThanOrEqual(25);
  });

  it.each(['public', 'scim'] as const)('writes JSON access logs of the %s stage to its own log group, with the key id and never the Authorization header', (api) => {
    const stage = stageOf(api);
    const format = JSON.parse(stage.AccessLogSetting.Format);
    expect(format).toEqual(ACCESS_LOG_FIELDS);
    expect(format).toMatchObject({ requestId: '$context.requestId', ip: '$context.identity.sourceIp', keyId: '$context.authorizer.keyId', status: '$context.status' });
    expect(stage.AccessLogSetting.Format.toLowerCase()).not.toContain('authorization');
    const routedApi = api === 'public' ? built.api.publicApi : built.api.scimApi;
    expect(JSON.stringify(stage.AccessLogSetting.DestinationArn)).toContain(logicalId(built.api, routedApi.accessLogs.node.defaultChild));
  });

  it('waits for the account CloudWatch role before creating the stages', () => {
    const accountId = Object.keys(resourcesOf(template, 'AWS::ApiGateway::Account'))[0];
    for (const stage of Object.values(template.findResources('AWS::ApiGateway::Stage'))) {
      expect(stage.DependsOn).toContain(accountId);
    }
  });

  it('leaves the account CloudWatch role alone with -c manageApiGatewayAccount=false (a landing zone owns it), and refuses another value', () => {
    const unmanaged = synthesize({ env: 'test', manageApiGatewayAccount: 'false' });
    expect(resourcesOf(unmanaged.apiTemplate, 'AWS::ApiGateway::Account')).toEqual({});
    expect(Object.keys(resourcesOf(template, 'AWS::ApiGateway::Account'))).toHaveLength(1);
    expect(() => synthesize({ env: 'test', manageApiGatewayAccount: 'no' })).toThrow(/manageApiGatewayAccount \(env test\) must be true or false/);
  });

  it('makes a new stage deployment when the authorizer changes, not only when routes do', () => {
    const deploymentIds = (ttl?: number) => {
      const app = freshApp({ 'aws:cdk:bundling-stacks': [] });
      const stacks = buildApp(app, { guardRules: false });
      if (ttl !== undefined) stacks.api.publicApi.authorizer.authorizerResultTtlInSeconds = ttl;
      return Object.keys(resourcesOf(Template.fromJSON(flattenNested(stacks.api)), 'AWS::ApiGateway::Deployment')).sort();
    };
    const before = deploymentIds();
    const after = deploymentIds(AUTHORIZER_CACHE_SECONDS + 1);
    // The public API's deployment moves on; the SCIM API's authorizer did not change, nor its deployment.
    expect(after.filter((id) => !before.includes(id))).toHaveLength(1);
    expect(before.filter((id) => !after.includes(id))).toHaveLength(1);
  });

  it('validates path parameters of every routed method', () => {
    for (const method of methods.filter(isRouteMethod)) {
      expect(method.properties.RequestValidatorId).toBeDefined();
      const params = [...method.path.matchAll(/\{([^}]+)\}/g)].map((m) => `method.request.path.${m[1]}`);
      expect(Object.keys(method.properties.RequestParameters ?? {}).sort()).toEqual(params.sort());
    }
  });
});

describe('WAF', () => {
  it('puts both stages behind a regional WebACL with the AWS common rule set', () => {
    const associations = Object.values(resourcesOf(template, 'AWS::WAFv2::WebACLAssociation')).map((a) => JSON.stringify(a.Properties?.ResourceArn));
    for (const api of ['public', 'scim'] as const) expect(associations.some((arn) => arn.includes(restApiIds[api]))).toBe(true);
    const acls = Object.values(resourcesOf(template, 'AWS::WAFv2::WebACL'));
    expect(acls).toHaveLength(2);
    for (const acl of acls) {
      expect(acl.Properties?.Scope).toBe('REGIONAL');
      expect(acl.Properties?.Rules).toEqual(
        expect.arrayContaining([expect.objectContaining({ Statement: { ManagedRuleGroupStatement: expect.objectContaining({ Name: 'AWSManagedRulesCommonRuleSet' }) } })]),
      );
    }
  });

  it('rate-limits client IPs on the public WebACL, answering 429', () => {
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Rules: Match.arrayWith([
        Match.objectLike({
          Statement: { RateBasedStatement: { AggregateKeyType: 'IP', EvaluationWindowSec: 60, Limit: 3000 } },
          Action: { Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'rateLimited' } } },
        }),
      ]),
    });
  });

  it('lets bodies above 8 KB through to the API, which enforces its own 64 KiB limit', () => {
    for (const acl of Object.values(resourcesOf(template, 'AWS::WAFv2::WebACL'))) {
      const common = acl.Properties?.Rules.find((r: any) => r.Statement.ManagedRuleGroupStatement?.Name === 'AWSManagedRulesCommonRuleSet');
      expect(common.Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual(expect.arrayContaining([{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }]));
    }
  });
});

describe('outputs', () => {
  it('publishes the public base URL, the SCIM base URL and every function name', () => {
    const outputs = template.findOutputs('*');
    expect(JSON.stringify(outputs.PublicBaseUrl.Value)).toContain(ORG_PREFIX);
    expect(JSON.stringify(outputs.ScimBaseUrl.Value)).toContain(`${ORG_PREFIX}${SCIM_PREFIX}`);
    for (const id of ['AuthorizerFunctionName', 'WorkEventsFunctionName', 'TimesheetsFunctionName', 'AuditFunctionName', 'ScimFunctionName', 'EvidenceIngestFunctionName']) {
      expect(outputs[id]).toBeDefined();
    }
    built.dataTemplate.hasOutput('TableName', {});
  });

  it('names both access-log groups for the release gate (npm run consumers)', () => {
    const outputs = template.findOutputs('*');
    const logGroups = Object.keys(resourcesOf(template, 'AWS::Logs::LogGroup'));
    for (const id of ['PublicAccessLogGroupName', 'ScimAccessLogGroupName']) {
      expect(logGroups).toContain(logicalIdOf(outputs[id].Value));
    }
    expect(logicalIdOf(outputs.PublicAccessLogGroupName.Value)).not.toBe(logicalIdOf(outputs.ScimAccessLogGroupName.Value));
  });
});

describe('usage plan', () => {
  it('takes the API key from the authorizer on both RestApis and requires it on every routed method', () => {
    for (const id of Object.values(restApiIds)) expect(resourcesOf(template, 'AWS::ApiGateway::RestApi')[id].Properties?.ApiKeySourceType).toBe('AUTHORIZER');
    for (const method of methods.filter(isRouteMethod)) expect({ route: `${method.httpMethod} ${method.path}`, required: method.properties.ApiKeyRequired }).toEqual({ route: `${method.httpMethod} ${method.path}`, required: true });
  });

  it('throttles each key by one per-key usage plan on both stages, and publishes its id for the CLI', () => {
    const plans = Object.values(resourcesOf(template, 'AWS::ApiGateway::UsagePlan'));
    expect(plans).toHaveLength(1);
    const plan = plans[0].Properties ?? {};
    expect(plan.Throttle).toEqual({ RateLimit: PER_KEY_THROTTLE.rateLimit, BurstLimit: PER_KEY_THROTTLE.burstLimit });
    expect(plan.ApiStages.map((s: { ApiId: unknown }) => logicalIdOf(s.ApiId)).sort()).toEqual(Object.values(restApiIds).sort());
    expect(Object.keys(template.findOutputs('UsagePlanId'))).toEqual(['UsagePlanId']);
  });
});

describe('SCIM only through the public host', () => {
  const forward = methods.find((m) => m.properties.Integration?.Type === 'HTTP_PROXY')!;
  const scimAcl = Object.values(resourcesOf(template, 'AWS::WAFv2::WebACL')).find((acl) => acl.Properties?.Rules.some((r: { Name: string }) => r.Name === 'OnlyThroughTheForward'))!;

  it('has the forward pass an origin header and its own request id', () => {
    const parameters = forward.properties.Integration.RequestParameters;
    expect(parameters[`integration.request.header.${ORIGIN_HEADER}`]).toBeDefined();
    expect(parameters[`integration.request.header.${FORWARDED_REQUEST_ID_HEADER}`]).toBe('context.requestId');
    // Exactly the headers the local gateway drops from a client and sets itself (FORWARD_HEADERS).
    const mapped = Object.keys(parameters).filter((k) => k.startsWith('integration.request.header.')).map((k) => k.slice('integration.request.header.'.length));
    expect(mapped.sort()).toEqual([...FORWARD_HEADERS].sort());
  });

  it("blocks every SCIM request that lacks the forward's origin value, in the SCIM error schema", () => {
    const rule = scimAcl.Properties?.Rules.find((r: { Name: string }) => r.Name === 'OnlyThroughTheForward');
    expect(rule.Priority).toBe(0);
    expect(rule.Action.Block.CustomResponse).toMatchObject({ ResponseCode: 403, CustomResponseBodyKey: 'notForwarded' });
    const match = rule.Statement.NotStatement.Statement.ByteMatchStatement;
    expect(match).toMatchObject({ FieldToMatch: { SingleHeader: { Name: ORIGIN_HEADER.toLowerCase() } }, PositionalConstraint: 'EXACTLY' });
    // The value the forward sends (quoted, as a static integration parameter) is the one required.
    const sent = JSON.stringify(forward.properties.Integration.RequestParameters[`integration.request.header.${ORIGIN_HEADER}`]);
    expect(sent).toContain(JSON.stringify(match.SearchString).slice(1, -1));
    expect(JSON.parse(scimAcl.Properties?.CustomResponseBodies.notForwarded.Content)).toMatchObject({ status: '403', schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'] });
  });

  it('keeps the origin value out of the template as a literal, and out of the WAF logs', () => {
    expect(JSON.stringify(forward.properties.Integration.RequestParameters)).toContain('AWS::StackId');
    const logging = Object.values(resourcesOf(template, 'AWS::WAFv2::LoggingConfiguration')).map((l) => l.Properties?.RedactedFields);
    expect(logging).toContainEqual([{ SingleHeader: { Name: 'authorization' } }, { SingleHeader: { Name: ORIGIN_HEADER.toLowerCase() } }, { QueryString: {} }]);
  });

  it('publishes no URL of the SCIM stage itself', () => {
    expect(Object.keys(template.findOutputs('*'))).not.toContain('ScimStageUrl');
  });
});
