import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { routeRows, type AreaDefinition } from '../area';
import { AppError, ValidationError } from '../errors';
import { logger, withLogScope } from '../logger';
import {
  authorizeRoute,
  errorResponses,
  jsonBody,
  requestIdHeader,
  requestIdOf,
  requestLogKeys,
  toProxyResult,
  type ApiEvent,
  type ErrorRenderer,
} from './middleware';
import { toProblem, statusOf } from './problems';
import type { ApiRequest, HttpResult, Operation } from './request';

export interface HandlerOptions {
  readonly area: AreaDefinition;
  /** One function per operation named in the route table for this area. */
  readonly operations: Readonly<Record<string, Operation>>;
  /** Media type of success bodies. @default application/json */
  readonly mediaType?: string;
  /** Media types accepted for request bodies. @default ['application/json'] */
  readonly bodyMediaTypes?: readonly string[];
  /** Error format. @default problem+json (RFC 9457) */
  readonly renderError?: ErrorRenderer;
}

export const renderProblem: ErrorRenderer = (error, requestId, instance) => {
  const body = toProblem(error, requestId, instance);
  const retryAfter = error instanceof AppError ? error.retryAfterSeconds : undefined;
  return {
    statusCode: error instanceof AppError ? error.status ?? statusOf(error.code) : 500,
    headers: {
      ...(retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : {}),
      ...(body.code === 'UNAUTHENTICATED' ? { 'WWW-Authenticate': 'Bearer' } : {}),
    },
    body,
    contentType: 'application/problem+json',
  };
};

/**
 * The Lambda handler of one resource area: the middy chain (request ID header, logger
 * context, error mapping, route + principal + scopes, JSON body) around a dispatch on the
 * route's operation. Handlers never build error responses: they throw.
 */
export function createHandler(options: HandlerOptions) {
  const { area, operations } = options;
  const missing = routeRows(area).filter((r) => !(r.operation in operations));
  if (missing.length > 0) {
    throw new Error(`Area ${area.name} has no operation for: ${missing.map((r) => r.operation).join(', ')}.`);
  }
  const mediaType = options.mediaType ?? 'application/json';

  const chain = middy<ApiEvent, APIGatewayProxyResult, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(requestIdHeader())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(requestLogKeys())
    .use(errorResponses(options.renderError ?? renderProblem))
    .use(authorizeRoute(area))
    .use(jsonBody({ mediaTypes: options.bodyMediaTypes ?? ['application/json'] }))
    .handler(async (event, context) => {
      const request = toApiRequest(event, context);
      const result: HttpResult = await operations[request.route.operation](request);
      return toProxyResult(result, mediaType);
    });
  return (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => withLogScope(() => chain(event as ApiEvent, context));
}

function toApiRequest(event: ApiEvent, context: Context): ApiRequest {
  if (!event.route || !event.principal) throw new Error('authorizeRoute did not run.');
  return {
    requestId: requestIdOf(event),
    route: event.route,
    principal: event.principal,
    pathParameters: Object.fromEntries(Object.entries(event.pathParameters ?? {}).filter((e): e is [string, string] => e[1] !== undefined)),
    query: singleValuedQuery(event),
    headers: Object.fromEntries(Object.entries(event.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    body: event.jsonBody,
    instance: event.path,
    remainingTimeMs: () => (typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : 30_000),
  };
}

function singleValuedQuery(event: ApiEvent): Record<string, string> {
  const multi = event.multiValueQueryStringParameters ?? {};
  const repeated = Object.entries(multi).filter(([, values]) => (values?.length ?? 0) > 1);
  if (repeated.length > 0) {
    throw new ValidationError(repeated.map(([parameter]) => ({ parameter, detail: 'Given more than once; pass it once.' })));
  }
  return Object.fromEntries(Object.entries(event.queryStringParameters ?? {}).filter((e): e is [string, string] => e[1] !== undefined));
}
