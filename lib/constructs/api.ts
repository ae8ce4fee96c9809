import { Aws, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  HttpIntegration,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  RequestAuthorizer,
  IdentitySource,
  RestApi,
  type IResource,
  type Method,
  type Stage,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IDependable } from 'constructs';
import { AUTHORIZER_CACHE_SECONDS } from '../../services/authorizer/cache';
import { ROUTES } from '../../services/routes';
import { resourcePath, type ApiName, type HttpMethod } from '../../services/shared/area';
import { API_ERROR_FORMAT, API_STAGES, GATEWAY_RESPONSES, type ErrorFormat } from '../../services/shared/http/gateway-responses';
import { allowHeader, API_GATEWAY_VARS, errorHeaders, errorTemplates, gatewayResponseOptions, methodNotAllowedBody } from '../gateway-responses';

/** Stage throttling per API: the public API's budget, and SCIM's own (Entra ID sends up to 25 req/s). */
export const DEFAULT_THROTTLING: Readonly<Record<ApiName, { readonly rateLimit: number; readonly burstLimit: number }>> = {
  public: { rateLimit: 100, burstLimit: 200 },
  scim: { rateLimit: 50, burstLimit: 100 },
};

/** Stage names: the ones the local gateway puts in `requestContext.stage`. */
export const STAGE_NAMES = API_STAGES;

export const ERROR_FORMATS = API_ERROR_FORMAT;

/**
 * One access log line per request, JSON. The key is identified by the authorizer's key-id,
 * never by the Authorization header; no bodies, no query strings.
 */
export const ACCESS_LOG_FIELDS: Readonly<Record<string, string>> = {
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  method: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  path: '$context.path',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  latency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  keyId: '$context.authorizer.keyId',
  organizationId: '$context.authorizer.organizationId',
  authorizerStatus: '$context.authorizer.status',
  authorizerLatency: '$context.authorizer.latency',
  errorType: '$context.error.responseType',
  errorMessage: '$context.error.message',
  wafStatus: '$context.waf.status',
};

/**
 * Content types the 405 mock has a request template for. A mock integration reads its status
 * from the request template; these cover what clients send (others pass through unchanged).
 */
const MOCK_CONTENT_TYPES = [
  'application/json',
  'application/problem+json',
  'application/scim+json',
  'application/merge-patch+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
  'application/xml',
  'text/xml',
  'application/octet-stream',
];

export interface RoutedApiProps {
  /** Which API of services/routes.ts this RestApi serves: its routes are the ROUTES rows with this `api`. */
  readonly api: ApiName;
  /** The Lambda function of each area that the API's routes name. */
  readonly functions: Readonly<Record<string, IFunction>>;
  /** The key authorizer (services/authorizer/handler.ts); each RestApi gets its own RequestAuthorizer for it. */
  readonly authorizerFunction: IFunction;
  /**
   * @default STAGE_NAMES[api] - `v1` for public, `scim` for SCIM, as the local gateway names them
   */
  readonly stageName?: string;
  /**
   * Sustained requests per second for the whole stage.
   * @default DEFAULT_THROTTLING[api].rateLimit - 100 public, 50 SCIM
   */
  readonly throttlingRateLimit?: number;
  /**
   * Burst bucket for the whole stage.
   * @default DEFAULT_THROTTLING[api].burstLimit - 200 public, 100 SCIM
   */
  readonly throttlingBurstLimit?: number;
  /**
   * @default RetentionDays.ONE_MONTH
   */
  readonly accessLogRetention?: RetentionDays;
  /**
   * @default RemovalPolicy.DESTROY
   */
  readonly accessLogRemovalPolicy?: RemovalPolicy;
  /**
   * Something the stage must wait for, e.g. the account's API Gateway CloudWatch role
   * (a stage with execution logging fails to create without it).
   * @default - no extra dependency
   */
  readonly stageDependsOn?: IDependable;
  /**
   * @default - a description naming the API
   */
  readonly description?: string;
}

/**
 * A REST API built from the route table: one resource per route path
 * (`resourceForPath(resourcePath(route))`), each method a Lambda proxy integration to its
 * area's function behind the key authorizer, an `ANY` mock answering 405 on every resource
 * that has methods (API Gateway has no 405 of its own), the gateway responses in the API's
 * error format, and a logged, traced, throttled stage.
 *
 * Why two RestApis (public and SCIM) and not one: gateway responses belong to a RestApi, and
 * their templates are not VTL (only `$context` substitution, no conditions), so one RestApi
 * cannot answer problem+json on timesheet routes and the SCIM error schema on SCIM routes.
 * The SCIM routes therefore live on their own RestApi, reached through the public host by
 * `forwardTo` (docs/deployment.md).
 */
export class RoutedApi extends Construct {
  readonly api: ApiName;
  readonly format: ErrorFormat;
  readonly restApi: RestApi;
  readonly stage: Stage;
  readonly authorizer: RequestAuthorizer;
  readonly accessLogs: LogGroup;
  /** The methods built from ROUTES (not the 405 mocks, not forwards). */
  readonly routeMethods: Method[] = [];
  /** The `ANY` mocks answering 405. */
  readonly methodNotAllowedMethods: Method[] = [];

  constructor(scope: Construct, id: string, props: RoutedApiProps) {
    super(scope, id);
    this.api = props.api;
    this.format = ERROR_FORMATS[props.api];
    const routes = ROUTES.filter((route) => route.api === props.api);
    if (routes.length === 0) throw new Error(`RoutedApi ${id}: api "${props.api}" has no routes in services/routes.ts.`);
    for (const route of routes) {
      if (!props.functions[route.area]) {
        throw new Error(`RoutedApi ${id}: functions has no function for area "${route.area}" (route ${route.method} ${route.path}).`);
      }
    }
    const throttling = {
      rateLimit: props.throttlingRateLimit ?? DEFAULT_THROTTLING[props.api].rateLimit,
      burstLimit: props.throttlingBurstLimit ?? DEFAULT_THROTTLING[props.api].burstLimit,
    };
    if (!(throttling.rateLimit > 0) || !(throttling.burstLimit >= throttling.rateLimit)) {
      throw new Error(`RoutedApi ${id}: throttlingRateLimit must be above 0 and throttlingBurstLimit at least as large, got ${throttling.rateLimit} and ${throttling.burstLimit}.`);
    }

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.accessLogRemovalPolicy ?? RemovalPolicy.DESTROY,
    });

    this.restApi = new RestApi(this, 'RestApi', {
      description: props.description ?? `WFM organization API: ${props.api} routes`,
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // The account-wide CloudWatch role is its own construct (ApiGatewayAccountLogging): two
      // RestApis must not both manage that singleton.
      cloudWatchRole: false,
      failOnWarnings: true,
      // Export downloads (PDF) leave the Lambda base64-encoded and the gateway as bytes.
      binaryMediaTypes: ['application/pdf'],
      deployOptions: {
        stageName: props.stageName ?? STAGE_NAMES[props.api],
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
        tracingEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        throttlingRateLimit: throttling.rateLimit,
        throttlingBurstLimit: throttling.burstLimit,
      },
    });
    this.stage = this.restApi.deploymentStage;
    if (props.stageDependsOn) this.stage.node.addDependency(props.stageDependsOn);

    this.authorizer = new RequestAuthorizer(this, 'KeyAuthorizer', {
      handler: props.authorizerFunction,
      identitySources: [IdentitySource.header('Authorization')],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_SECONDS),
    });

    // Path parameters are declared required and checked by API Gateway; bodies, query and
    // headers are validated by the strict zod schemas in the handlers, which answer in the
    // contract's error format (a gateway validator could only answer BAD_REQUEST_BODY).
    const validator = this.restApi.addRequestValidator('PathParameters', { validateRequestParameters: true, validateRequestBody: false });

    const integrations = new Map<string, LambdaIntegration>();
    const integrationFor = (area: string): LambdaIntegration => {
      let integration = integrations.get(area);
      if (!integration) {
        // One invoke permission per function and API instead of two per method.
        integration = new LambdaIntegration(props.functions[area] as IFunction, { scopePermissionToMethod: false });
        integrations.set(area, integration);
      }
      return integration;
    };

    const methodsByResource = new Map<IResource, HttpMethod[]>();
    for (const route of routes) {
      const path = resourcePath(route);
      const resource = this.restApi.root.resourceForPath(path);
      const method = resource.addMethod(route.method, integrationFor(route.area), {
        authorizer: this.authorizer,
        authorizationType: AuthorizationType.CUSTOM,
        operationName: route.operation,
        requestValidator: validator,
        requestParameters: Object.fromEntries(pathParameters(path).map((name) => [`method.request.path.${name}`, true])),
      });
      this.routeMethods.push(method);
      methodsByResource.set(resource, [...(methodsByResource.get(resource) ?? []), route.method]);
    }
    for (const [resource, methods] of methodsByResource) this.addMethodNotAllowed(resource, methods);

    for (const row of GATEWAY_RESPONSES) {
      this.restApi.addGatewayResponse(`Gateway${pascalCase(row.type)}`, gatewayResponseOptions(row, this.format));
    }

    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason: 'The RestApi validator checks request parameters only. Bodies are validated by the strict zod schemas in the handlers, which answer 422 VALIDATION_ERROR with JSON pointers in the contract format; an API Gateway body model would answer a bare 400 in another shape.',
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-COG4',
      reason: 'Clients are machines holding API keys (integrations, identity providers), not Cognito users: every routed method uses the Lambda REQUEST key authorizer instead.',
    });
  }

  /** The stage URL of a path, e.g. `urlForPath('/v1/organizations/{organizationId}')`. */
  urlForPath(path: string): string {
    return this.stage.urlForPath(path);
  }

  /**
   * Forwards `ANY <prefix>/{proxy+}` to the same path on `target`'s stage with an HTTP_PROXY
   * integration (path parameters, query string, headers and body pass through). Used so that
   * SCIM traffic for `/v1/organizations/{organizationId}/scim/v2/...` reaches the SCIM RestApi
   * through the public API's host: base path mappings match fixed prefixes only, and the
   * organization id sits before `/scim`.
   */
  forwardTo(target: RoutedApi, prefix: string): Method {
    const proxyPath = `${prefix}/{proxy+}`;
    const resource = this.restApi.root.resourceForPath(proxyPath);
    const params = [...pathParameters(prefix), 'proxy'];
    const targetUrl = `https://${target.restApi.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${target.stage.stageName}${prefix}/{proxy}`;
    const method = resource.addMethod(
      'ANY',
      new HttpIntegration(targetUrl, {
        httpMethod: 'ANY',
        proxy: true,
        options: {
          requestParameters: Object.fromEntries(params.map((name) => [`integration.request.path.${name}`, `method.request.path.${name}`])),
        },
      }),
      {
        authorizationType: AuthorizationType.NONE,
        requestParameters: Object.fromEntries(params.map((name) => [`method.request.path.${name}`, true])),
      },
    );
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: `Forward to the ${target.api} RestApi, which runs the same key authorizer on every routed method; authorizing here too would call the authorizer twice for nothing.`,
    });
    return method;
  }

  /** `ANY` on a resource with methods: a mock that answers 405 with Allow, and reaches no backend. */
  private addMethodNotAllowed(resource: IResource, methods: readonly HttpMethod[]): void {
    const allow = allowHeader(methods);
    const headerNames = ['Content-Type', 'X-Request-Id', 'Allow'];
    const headers = errorHeaders(this.format, { Allow: allow });
    const method = resource.addMethod(
      'ANY',
      new MockIntegration({
        passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
        requestTemplates: Object.fromEntries(MOCK_CONTENT_TYPES.map((type) => [type, '{"statusCode": 405}'])),
        integrationResponses: [
          {
            // No selectionPattern: the default response, whatever the mock returns.
            statusCode: '405',
            responseParameters: Object.fromEntries(headerNames.map((name) => [`method.response.header.${name}`, headers[name]])),
            responseTemplates: errorTemplates(this.format, JSON.stringify(methodNotAllowedBody(this.format, allow, API_GATEWAY_VARS))),
          },
        ],
      }),
      {
        authorizationType: AuthorizationType.NONE,
        methodResponses: [
          { statusCode: '405', responseParameters: Object.fromEntries(headerNames.map((name) => [`method.response.header.${name}`, true])) },
        ],
      },
    );
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: 'Mock integration that reaches no backend and only answers 405 METHOD_NOT_ALLOWED with the Allow header; the real methods of this resource use the key authorizer.',
    });
    this.methodNotAllowedMethods.push(method);
  }
}

/** `{organizationId}` and `{proxy+}` names of an API Gateway resource path. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{([^}+]+)\+?\}/g)].map((match) => match[1]);
}

const pascalCase = (value: string): string =>
  value
    .toLowerCase()
    .split(/[_-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
