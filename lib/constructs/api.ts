import { Aws, Lazy, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  CfnAuthorizer,
  Deployment,
  EndpointType,
  HttpIntegration,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  RequestValidator,
  Resource,
  RestApi,
  Stage,
  type IAuthorizer,
  type IResource,
  type Method,
} from 'aws-cdk-lib/aws-apigateway';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IDependable } from 'constructs';
import { AUTHORIZER_CACHE_SECONDS } from '../../services/authorizer/cache';
import { ROUTES } from '../../services/routes';
import { ORG_PREFIX, resourcePath, type ApiName, type HttpMethod, type PublicRouteRow, type RouteRow } from '../../services/shared/area';
import { API_ERROR_FORMAT, API_STAGES, FORWARDED_REQUEST_ID_HEADER, GATEWAY_RESPONSES, ORIGIN_HEADER, type ErrorFormat } from '../../services/shared/http/gateway-responses';
import { acknowledgeGuard } from '../guard';
import { ACCESS_LOG_FIELDS } from '../../services/shared/http/access-log';
import { allowHeader, API_GATEWAY_VARS, errorHeaders, errorTemplates, gatewayResponseOptions, methodNotAllowedBody } from '../gateway-responses';

/** Stage throttling per API: the public API's budget, and SCIM's own (Entra ID sends up to 25 req/s). */
export const DEFAULT_THROTTLING: Readonly<Record<ApiName, { readonly rateLimit: number; readonly burstLimit: number }>> = {
  public: { rateLimit: 100, burstLimit: 200 },
  scim: { rateLimit: 50, burstLimit: 100 },
};

/** Stage names: the ones the local gateway puts in `requestContext.stage`. */
export const STAGE_NAMES = API_STAGES;

export const ERROR_FORMATS = API_ERROR_FORMAT;

export { ACCESS_LOG_FIELDS } from '../../services/shared/http/access-log';

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
  /** Which API of the registry this RestApi serves: its routes are the ROUTES rows with this `api`. */
  readonly api: ApiName;
  /**
   * The routes to serve (each area adds its own with `addAreaRoutes`); they decide which
   * resource paths the RestApi itself keeps (see `ownsPath`).
   * @default - the ROUTES rows of `api`
   */
  readonly routes?: readonly RouteRow[];
  /** The key authorizer (services/authorizer/handler.ts); each RestApi gets its own authorizer resource for it. */
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
  /**
   * Turn off the default execute-api endpoint (when a custom domain is the only way in).
   * @default false
   */
  readonly disableExecuteApiEndpoint?: boolean;
}

/** Resource paths up to this many segments below ORG_PREFIX (a collection and its items) stay in the RestApi's own stack. */
export const SHARED_PATH_DEPTH = 2;

/**
 * A REST API built from the route table, split so that it never meets CloudFormation's
 * 500-resource ceiling as the catalogue grows:
 *
 * - this construct (in the api stack) keeps the RestApi, its key authorizer, request
 *   validator, gateway responses (in the API's error format), the resource paths of the
 *   organization prefix and of every collection and item (up to SHARED_PATH_DEPTH segments
 *   below it) or that more than one area uses, the `ANY` mocks that answer 405 on those, and
 *   the deployment and stage;
 * - each area adds its own routes in its own nested stack (`addAreaRoutes`): the deeper
 *   resources only it uses, its methods (Lambda proxy integrations to its function, behind
 *   the key authorizer) and the 405 mocks of its own resources.
 *
 * A path's owner depends only on the route table, so it never moves between stacks when an
 * unrelated area is added (a moving resource would be created before the old one is deleted,
 * which API Gateway refuses). Call `deploy` once every area has added its routes.
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
  readonly authorizer: CfnAuthorizer;
  readonly validator: RequestValidator;
  readonly accessLogs: LogGroup;
  /** The methods built from ROUTES, in every stack (not the 405 mocks, not forwards). */
  readonly routeMethods: Method[] = [];
  /** The `ANY` mocks answering 405, in every stack. */
  readonly methodNotAllowedMethods: Method[] = [];
  /** The `ANY` forwards to another RestApi (`forwardTo`). */
  readonly forwardMethods: Method[] = [];
  /** The public routes' methods (`addPublicRoutes`): no authorizer, no API key. */
  readonly publicMethods: Method[] = [];
  private publicRoutes: readonly PublicRouteRow[] = [];
  private readonly routes: readonly RouteRow[];
  private readonly props: RoutedApiProps;
  private readonly ownResources = new Map<string, IResource>();
  private readonly deployDependencies: IDependable[] = [];
  private deployedStage?: Stage;

  constructor(scope: Construct, id: string, props: RoutedApiProps) {
    super(scope, id);
    this.props = props;
    this.api = props.api;
    this.format = ERROR_FORMATS[props.api];
    this.routes = (props.routes ?? ROUTES).filter((route) => route.api === props.api);
    if (this.routes.length === 0) throw new Error(`RoutedApi ${id}: api "${props.api}" has no routes in the registry.`);
    const throttling = this.throttling();
    if (!(throttling.rateLimit > 0) || !(throttling.burstLimit >= throttling.rateLimit)) {
      throw new Error(`RoutedApi ${id}: throttlingRateLimit must be above 0 and throttlingBurstLimit at least as large, got ${throttling.rateLimit} and ${throttling.burstLimit}.`);
    }

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.accessLogRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    acknowledgeLogGroup(this.accessLogs, props.accessLogRetention);

    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `${Stack.of(this).stackName}-${props.api}`,
      description: props.description ?? `WFM organization API: ${props.api} routes`,
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // The account-wide CloudWatch role is its own construct (ApiGatewayAccountLogging): two
      // RestApis must not both manage that singleton.
      cloudWatchRole: false,
      failOnWarnings: true,
      // Routes live in nested stacks: the deployment and the stage are made by `deploy`.
      deploy: false,
      // The authorizer names each key's usage identifier: its usage plan throttles it.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      disableExecuteApiEndpoint: props.disableExecuteApiEndpoint ?? false,
    });

    // One authorizer resource per RestApi; its function's invoke permission names this API.
    this.authorizer = new CfnAuthorizer(this, 'KeyAuthorizer', {
      name: `${Stack.of(this).stackName}-${props.api}-key-authorizer`.slice(0, 128),
      restApiId: this.restApi.restApiId,
      type: 'REQUEST',
      identitySource: 'method.request.header.Authorization',
      authorizerUri: Stack.of(this).formatArn({
        service: 'apigateway',
        account: 'lambda',
        resource: 'path/2015-03-31/functions',
        resourceName: `${props.authorizerFunction.functionArn}/invocations`,
      }),
      authorizerResultTtlInSeconds: AUTHORIZER_CACHE_SECONDS,
    });
    props.authorizerFunction.addPermission(`${id}InvokeAuthorizer`, {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceAccount: Aws.ACCOUNT_ID,
      sourceArn: Stack.of(this).formatArn({ service: 'execute-api', resource: this.restApi.restApiId, resourceName: `authorizers/${this.authorizer.ref}` }),
    });
    acknowledgeGuard(props.authorizerFunction.node.findChild(`${id}InvokeAuthorizer`), 'lambdaPublicAccess');

    // Path parameters are declared required and checked by API Gateway; bodies, query and
    // headers are validated by the strict zod schemas in the handlers, which answer in the
    // contract's error format (a gateway validator could only answer BAD_REQUEST_BODY).
    this.validator = this.restApi.addRequestValidator('PathParameters', { validateRequestParameters: true, validateRequestBody: false });

    for (const row of GATEWAY_RESPONSES) {
      this.restApi.addGatewayResponse(`Gateway${pascalCase(row.type)}`, gatewayResponseOptions(row, this.format));
    }

    // The shared paths, and 405 on those that have methods.
    for (const path of this.pathsOwnedHere()) this.ownResources.set(path, this.restApi.root.resourceForPath(path));
    for (const [path, methods] of this.methodsByPath()) {
      const resource = this.ownResources.get(path);
      if (resource) this.addMethodNotAllowed(resource, methods);
    }

    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason: 'The RestApi validator checks request parameters only. Bodies are validated by the strict zod schemas in the handlers, which answer 422 VALIDATION_ERROR with JSON pointers in the contract format; an API Gateway body model would answer a bare 400 in another shape.',
    });
  }

  /** The stage, once `deploy` ran. */
  get stage(): Stage {
    if (!this.deployedStage) throw new Error(`RoutedApi ${this.node.id}: call deploy() after every area added its routes.`);
    return this.deployedStage;
  }

  /**
   * Whether the RestApi's own stack keeps a resource path: the organization prefix and its
   * ancestors, every path up to SHARED_PATH_DEPTH segments below it, and any deeper path
   * more than one area uses. The rest belongs to the one area that uses it.
   */
  ownsPath(path: string): boolean {
    const depth = path.split('/').length - ORG_PREFIX.split('/').length;
    if (depth <= SHARED_PATH_DEPTH) return true;
    const areas = new Set(this.routes.filter((r) => isAtOrBelow(resourcePath(r), path)).map((r) => r.area));
    return areas.size > 1;
  }

  /**
   * Adds the routes of `area` in `scope` (the area's nested stack): its own resources, its
   * methods behind the key authorizer with a Lambda proxy integration to `fn`, and 405 on
   * the resources it owns. Returns the methods.
   */
  addAreaRoutes(scope: Construct, area: string, fn: IFunction): Method[] {
    const routes = this.routes.filter((route) => route.area === area);
    if (routes.length === 0) return [];
    const base = new Construct(scope, `${pascalCase(this.api)}Routes`);
    // The Lambda integration's invoke permission, beside the methods.
    acknowledgeGuard(base, 'lambdaPublicAccess');
    Validations.of(base).acknowledge({
      id: 'AwsSolutions-COG4',
      reason: 'Clients are machines holding API keys (integrations, identity providers), not Cognito users: every routed method uses the Lambda REQUEST key authorizer instead.',
    });
    const restApi = RestApi.fromRestApiAttributes(base, 'RestApi', { restApiId: this.restApi.restApiId, rootResourceId: this.restApi.restApiRootResourceId });
    const validator = RequestValidator.fromRequestValidatorId(base, 'Validator', this.validator.requestValidatorId);
    const authorizer: IAuthorizer = { authorizerId: this.authorizer.ref, authorizationType: AuthorizationType.CUSTOM };
    // One invoke permission per function and API instead of two per method.
    const integration = new LambdaIntegration(fn, { scopePermissionToMethod: false });
    const resources = new Map<string, IResource>();
    const resourceFor = (path: string): IResource => {
      const known = resources.get(path);
      if (known) return known;
      const own = this.ownResources.get(path);
      const resource = own
        ? Resource.fromResourceAttributes(base, `Shared${pascalCase(path.replace(/[{}+]/g, ''))}`, { resourceId: own.resourceId, restApi, path })
        : resourceFor(path.slice(0, path.lastIndexOf('/')) || '/').addResource(path.slice(path.lastIndexOf('/') + 1));
      resources.set(path, resource);
      return resource;
    };
    const methods = routes.map((route) => {
      const path = resourcePath(route);
      const method = resourceFor(path).addMethod(route.method, integration, {
        authorizer,
        authorizationType: AuthorizationType.CUSTOM,
        operationName: route.operation,
        // Required so that API Gateway applies the key's usage plan (per-key throttling).
        apiKeyRequired: true,
        requestValidator: validator,
        requestParameters: Object.fromEntries(pathParameters(path).map((name) => [`method.request.path.${name}`, true])),
      });
      this.routeMethods.push(method);
      // RestApi checks at synth that it has methods; those of nested stacks are added through
      // an imported RestApi, so count them on the real one too.
      (this.restApi.methods as Method[]).push(method);
      return method;
    });
    for (const [path, allowed] of this.methodsByPath()) {
      if (!this.ownResources.has(path) && resources.has(path)) this.addMethodNotAllowed(resources.get(path)!, allowed);
    }
    this.deployDependencies.push(Stack.of(scope));
    return methods;
  }

  /**
   * Adds the route table's public routes (services/routes.ts PUBLIC_ROUTES: the API reference
   * and its OpenAPI document) in this RestApi's own stack, each a Lambda proxy integration to
   * the function that declares it, with NO authorizer and NO API key: anyone may read them, so
   * no usage plan applies (the stage's throttle and the WebACL do). Other methods on their
   * resources answer 405 like every routed resource. Call before `deploy`.
   */
  addPublicRoutes(routes: readonly PublicRouteRow[], functionOf: (name: string) => IFunction): Method[] {
    if (this.api !== 'public') throw new Error(`RoutedApi ${this.node.id}: public routes belong on the public API.`);
    if (this.deployedStage) throw new Error(`RoutedApi ${this.node.id}: add the public routes before deploy().`);
    this.publicRoutes = [...this.publicRoutes, ...routes];
    const integrations = new Map<string, LambdaIntegration>();
    const childrenBefore = new Set(this.restApi.node.children);
    const methods = routes.map((route) => {
      let integration = integrations.get(route.function);
      if (!integration) {
        integration = new LambdaIntegration(functionOf(route.function), { scopePermissionToMethod: false });
        integrations.set(route.function, integration);
      }
      const method = this.restApi.root.resourceForPath(route.path).addMethod(route.method, integration, {
        authorizationType: AuthorizationType.NONE,
        apiKeyRequired: false,
        operationName: route.operation,
      });
      Validations.of(method).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: `Public route ${route.method} ${route.path} (services/registry.ts publicRoutes): the API reference and its OpenAPI document are for anyone, before they hold a key. Its function reads no data and holds no secret; the WebACL and the stage throttle still apply.`,
      });
      Validations.of(method).acknowledge({ id: 'AwsSolutions-COG4', reason: `Public route ${route.method} ${route.path}: a published document, readable without any identity.` });
      this.publicMethods.push(method);
      return method;
    });
    // The integrations' invoke permissions (apigateway.amazonaws.com, SourceArn this RestApi).
    for (const child of this.restApi.node.children) if (!childrenBefore.has(child) && child.node.id.startsWith('ApiPermission')) acknowledgeGuard(child, 'lambdaPublicAccess');
    const byPath = new Map<string, HttpMethod[]>();
    for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method]);
    for (const [path, allowed] of byPath) this.addMethodNotAllowed(this.restApi.root.resourceForPath(path), allowed);
    return methods;
  }

  /**
   * The deployment and the stage (logged, traced, throttled), after every area's routes.
   * The deployment's logical id follows the route table and the gateway responses, so any
   * change of either is deployed; a Deployment only snapshots methods of its own stack.
   */
  deploy(variables?: Readonly<Record<string, string>>): Stage {
    const props = this.props;
    const throttling = this.throttling();
    const deployment = new Deployment(this, 'Deployment', { api: this.restApi, description: `WFM ${this.api} routes` });
    for (const dependency of this.deployDependencies) deployment.node.addDependency(dependency);
    const ownMethods = [...this.methodNotAllowedMethods, ...this.forwardMethods, ...this.publicMethods].filter((m) => Stack.of(m) === Stack.of(this));
    if (ownMethods.length > 0) deployment.node.addDependency(...ownMethods);
    deployment.addToLogicalId({
      routes: this.routes.map(routeFingerprint),
      forwards: this.forwardMethods.map((m) => m.resource.path),
      ...(this.publicRoutes.length > 0 ? { publicRoutes: this.publicRoutes.map((r) => ({ method: r.method, path: r.path, function: r.function })) } : {}),
      gatewayResponses: GATEWAY_RESPONSES,
      format: this.format,
      // A stage serves the authorizer settings of its last deployment: a new cache time, identity
      // source or function must make a new deployment too (read at synth, after every change).
      authorizer: Lazy.any({ produce: () => ({ type: this.authorizer.type, identitySource: this.authorizer.identitySource, ttl: this.authorizer.authorizerResultTtlInSeconds, uri: this.authorizer.authorizerUri }) }),
    });
    const stageName = props.stageName ?? STAGE_NAMES[props.api];
    const stage = new Stage(this, 'Stage', {
      deployment,
      stageName,
      accessLogDestination: new LogGroupLogDestination(this.accessLogs),
      accessLogFormat: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      tracingEnabled: true,
      loggingLevel: MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      metricsEnabled: true,
      throttlingRateLimit: throttling.rateLimit,
      throttlingBurstLimit: throttling.burstLimit,
      ...(variables ? { variables: { ...variables } } : {}),
    });
    if (props.stageDependsOn) stage.node.addDependency(props.stageDependsOn);
    // API Gateway creates its execution-log group on first use, without retention: create it
    // first, with the retention of the access logs.
    const executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.restApi.restApiId}/${stageName}`,
      retention: props.accessLogRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.accessLogRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    stage.node.addDependency(executionLogs);
    acknowledgeLogGroup(executionLogs, props.accessLogRetention);
    this.restApi.deploymentStage = stage;
    this.deployedStage = stage;
    return stage;
  }

  /** The stage URL of a path, e.g. `urlForPath('/v1/organizations/{organizationId}')`. */
  urlForPath(path: string): string {
    return this.stage.urlForPath(path);
  }

  private throttling() {
    return {
      rateLimit: this.props.throttlingRateLimit ?? DEFAULT_THROTTLING[this.props.api].rateLimit,
      burstLimit: this.props.throttlingBurstLimit ?? DEFAULT_THROTTLING[this.props.api].burstLimit,
    };
  }

  /** Every resource path of the routes and their ancestors that this stack keeps, shortest first. */
  private pathsOwnedHere(): string[] {
    const paths = new Set<string>();
    for (const route of this.routes) {
      const segments = resourcePath(route).split('/').slice(1);
      for (let i = 1; i <= segments.length; i += 1) paths.add(`/${segments.slice(0, i).join('/')}`);
    }
    return [...paths].filter((path) => this.ownsPath(path)).sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  }

  /** The methods of each resource path that has routes. */
  private methodsByPath(): Map<string, HttpMethod[]> {
    const byPath = new Map<string, HttpMethod[]>();
    for (const route of this.routes) {
      const path = resourcePath(route);
      byPath.set(path, [...(byPath.get(path) ?? []), route.method]);
    }
    return byPath;
  }

  /**
   * Forwards `ANY <prefix>/{proxy+}` to the same path on `target`'s stage with an HTTP_PROXY
   * integration (path parameters, query string, headers and body pass through). Used so that
   * SCIM traffic for `/v1/organizations/{organizationId}/scim/v2/...` reaches the SCIM RestApi
   * through the public API's host: base path mappings match fixed prefixes only, and the
   * organization id sits before `/scim`.
   */
  forwardTo(target: RoutedApi, prefix: string, originSecret: string): Method {
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
          requestParameters: {
            ...Object.fromEntries(params.map((name) => [`integration.request.path.${name}`, `method.request.path.${name}`])),
            // Proof of the way in: the target's WebACL refuses requests without it.
            [`integration.request.header.${ORIGIN_HEADER}`]: `'${originSecret}'`,
            // One request id end to end: the target answers and logs under this API's id.
            [`integration.request.header.${FORWARDED_REQUEST_ID_HEADER}`]: 'context.requestId',
          },
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
    Validations.of(method).acknowledge({ id: 'AwsSolutions-COG4', reason: `Forward to the ${target.api} RestApi, whose routed methods use the Lambda REQUEST key authorizer (machine clients, not Cognito users).` });
    this.forwardMethods.push(method);
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
    Validations.of(method).acknowledge({ id: 'AwsSolutions-COG4', reason: 'Mock integration that reaches no backend and only answers 405 METHOD_NOT_ALLOWED: there is no caller to authenticate.' });
    this.methodNotAllowedMethods.push(method);
  }
}

export { FORWARDED_REQUEST_ID_HEADER, ORIGIN_HEADER };

/** The guard findings every log group of ours has on purpose (see lib/guard.ts). */
export function acknowledgeLogGroup(logGroup: LogGroup, retention: RetentionDays | undefined): void {
  acknowledgeGuard(logGroup, 'logGroupKms');
  if ((retention ?? RetentionDays.ONE_MONTH) < RetentionDays.ONE_YEAR) acknowledgeGuard(logGroup, 'logGroupRetention');
}

/** Whether `path` is `ancestor` or below it. */
const isAtOrBelow = (path: string, ancestor: string): boolean => path === ancestor || path.startsWith(`${ancestor}/`);

/** What of a route makes its deployed method: a change of any of it needs a new deployment. */
const routeFingerprint = (route: RouteRow) => ({ method: route.method, path: route.path, area: route.area, operation: route.operation });

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
