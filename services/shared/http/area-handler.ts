import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import * as z from 'zod';
import { PUBLIC_BASE_URL_VARIABLE, pathParamNames, routeRows, type AreaDefinition, type RouteContract, type RouteRow } from '../area';
import type { Principal } from '../auth/principal';
import { defaultDb } from '../ddb/client';
import type { TxItem } from '../ddb/transaction';
import { READ_ONLY_UNIT, TransactionUnit, type UnitOfWork } from '../ddb/unit-of-work';
import type { Actor } from '../domain/actor';
import { retryOnConflict } from '../domain/conflict';
import { NotFoundError, ValidationError } from '../errors';
import { logger, withLogScope } from '../logger';
import { MetricsBuffer, publishRequestFigures, tracingMiddleware, type BusinessMetric, type MetricsRecorder } from '../observability';
import { isUuid } from '../time';
import { renderProblem } from './render-problem';
import { idempotentWrite, idempotentWriteInTransaction, requestInput, toStored } from './idempotent';
import type { ReadAlong, ResponseSubject } from '../ddb/idempotency';
import { acceptable, authorizeRoute, errorResponses, jsonBody, requestIdHeader, requestIdOf, requestLogKeys, toProxyResult, type ApiEvent, type ErrorRenderer } from './middleware';
import { optionalIdempotencyKey, optionalIfMatch, requireIdempotencyKey, requireIfMatch } from './preconditions';
import type { ApiRequest, HttpResult } from './request';
import { parseBody, parseQuery } from './validation';
import { illFormedParameters, illFormedParametersMessage } from './well-formed';

/**
 * The Lambda handler of one area, built from its declaration (area.ts): every input rule a
 * route declares is enforced here, before the operation runs, and every write runs in the
 * same frame. Operations are therefore three lines: call the domain, render the result.
 *
 *   request  -> X-Request-Id, logger keys, route + principal + scopes (authorizeRoute)
 *            -> JSON body (media type, size, depth, well-formed Unicode)
 *            -> parameters (well-formed Unicode), Idempotency-Key, path ids (non-UUID: 404), If-Match, query, body (zod, 422)
 *   GET      -> operation(request with read-only ports)
 *   write    -> [idempotency lock, unless idempotencyInTransaction] -> retryOnConflict( unit of work -> operation -> commit
 *               staged changes + audit entries + idempotency record in ONE transaction )
 */

type BodyOf<R> = R extends { readonly body: infer S extends z.ZodType } ? (R extends { readonly bodyOptional: true } ? z.output<S> | undefined : z.output<S>) : undefined;
type QueryOf<R> = R extends { readonly query: infer S extends z.ZodType } ? z.output<S> : Readonly<Record<string, never>>;
type IfMatchOf<R> = R extends { readonly ifMatch: 'required' } ? string : R extends { readonly ifMatch: 'optional' } ? string | undefined : undefined;

/** What an operation gets: validated input, who asks, and the area's ports for this attempt. */
export interface OperationRequest<R extends RouteContract, P> {
  readonly route: RouteRow;
  readonly principal: Principal;
  /** The principal and the request ID: what use cases take and audit entries name. */
  readonly actor: Actor;
  readonly requestId: string;
  /** Path parameters; UUIDs are lower-cased. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: QueryOf<R>;
  readonly body: BodyOf<R>;
  readonly ifMatch: IfMatchOf<R>;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** `/v1/organizations/<organizationId>`: the base of Location headers. */
  readonly orgPath: string;
  /**
   * The organization's absolute public URL (`https://<host>[/<stage>]/v1/organizations/<id>`),
   * from the stage's configuration (the `publicBaseUrl` stage variable, PUBLIC_BASE_URL_VARIABLE),
   * never from the request's Host or X-Forwarded-* headers; `orgPath` when not configured.
   * For absolute URLs in bodies (SCIM's meta.location).
   */
  readonly orgUrl: string;
  /** The request path, for the problem's `instance`. */
  readonly instance: string;
  readonly ports: P;
  /**
   * The area's figures (docs/operations.md). A write's count only once its transaction
   * committed: an attempt that is retried or fails publishes nothing.
   */
  readonly metrics: MetricsRecorder;
}

export type Operations<R extends Readonly<Record<string, RouteContract>>, P> = {
  readonly [K in keyof R]: (request: OperationRequest<R[K], P>) => Promise<HttpResult>;
};

export interface AreaHandlerOptions<R extends Readonly<Record<string, RouteContract>>, P> {
  /** The area's ports for one attempt of one request; writes stage their changes in `unit`. */
  readonly ports: (unit: UnitOfWork) => P;
  /** One function per route of the area: a missing one fails the type check. */
  readonly operations: Operations<R, P>;
  /** Media type of success bodies. @default application/json */
  readonly mediaType?: string;
  /** Media types accepted for request bodies. @default ['application/json'] */
  readonly bodyMediaTypes?: readonly string[];
  /** Error format. @default problem+json (RFC 9457) */
  readonly renderError?: ErrorRenderer;
  /**
   * Problem codes the area counts as figures of its own, e.g. `{ TIME_ENTRY_OVERLAP:
   * 'OverlapRejections' }` (every code is also counted in the generic `Problems`).
   */
  readonly problemMetrics?: Readonly<Partial<Record<string, BusinessMetric>>>;
  /**
   * What a replay of a route's stored success completes before it answers, per operation: for
   * a write with an after-commit effect that must happen (an erasure's replacement of stored
   * responses). The record commits with the change, so when the effect fails after the commit
   * (the client got a 5xx) a retry with the same key replays; this runs first, in a unit of its
   * own whose after-commit effects the kit runs. It must be idempotent; a failure is the
   * replay's error, so the client retries again.
   */
  readonly afterReplay?: { readonly [K in keyof R]?: (request: OperationRequest<R[K], P>) => Promise<void> };
}

export function areaHandler<N extends string, R extends Readonly<Record<string, RouteContract>>, P>(area: AreaDefinition<N, R>, options: AreaHandlerOptions<R, P>) {
  const rows = routeRows(area);
  const missing = rows.filter((r) => typeof (options.operations as Record<string, unknown>)[r.operation] !== 'function');
  if (missing.length > 0) throw new Error(`Area ${area.name} has no operation for: ${missing.map((r) => r.operation).join(', ')}.`);
  for (const r of rows) checkErasableSubject(area.name, r);
  const mediaType = options.mediaType ?? 'application/json';
  const operations = options.operations as unknown as Record<string, (request: OperationRequest<RouteContract, P>) => Promise<HttpResult>>;

  const chain = middy<ApiEvent, APIGatewayProxyResult, Error, Context>({ timeoutEarlyInMillis: 0 });
  // Outermost, so that its subsegment spans the whole request; none where tracing is off.
  const tracing = tracingMiddleware<ApiEvent, APIGatewayProxyResult>();
  if (tracing) chain.use(tracing);
  chain
    .use(requestIdHeader())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(requestLogKeys())
    .use(errorResponses(options.renderError ?? renderProblem))
    .use(authorizeRoute(area as AreaDefinition))
    .use(acceptable([...new Set([mediaType, 'application/json'])]))
    .use(jsonBody({ mediaTypes: options.bodyMediaTypes ?? ['application/json'] }))
    .handler(async (event, context) => {
      const route = event.route as unknown as RouteRow;
      const raw = rawRequest(event, context, route);
      const idempotencyKey = route.idempotencyKey === 'required' ? requireIdempotencyKey(raw) : route.idempotencyKey === 'optional' ? optionalIdempotencyKey(raw) : undefined;
      const publicBase = event.stageVariables?.[PUBLIC_BASE_URL_VARIABLE];
      const input = parseInputs(raw, route, publicBase);
      const declared = route.noStore ? noStore(operations[route.operation]!) : operations[route.operation]!;
      const operation = async (request: OperationRequest<RouteContract, P>) => withAbsoluteLocation(await declared(request), publicBase);
      const figures = figuresOf(event);
      if (route.method === 'GET') return toProxyResult(await operation({ ...input, ports: options.ports(READ_ONLY_UNIT), metrics: figures }), mediaType);

      const db = defaultDb();
      const attempt = (complete?: (result: HttpResult) => Promise<readonly TxItem[]>, readAlong?: ReadAlong) =>
        retryOnConflict(
          async () => {
            const attemptFigures = new MetricsBuffer();
            const result = await new TransactionUnit(db, readAlong).attempt((unit) => operation({ ...input, ports: options.ports(unit), metrics: attemptFigures }), complete);
            figures.absorb(attemptFigures);
            return result;
          },
          { remainingMs: raw.remainingTimeMs },
        );
      let fresh: HttpResult | undefined;
      const subject = (r: HttpResult) => responseSubject(route, input.params, input.principal.organizationId, r);
      const result =
        idempotencyKey === undefined
          ? await attempt()
          : route.idempotencyInTransaction
            ? await idempotentWriteInTransaction(db, raw, idempotencyKey, requestInput(raw), (complete, readAlong) => attempt(async (r) => complete(toStored((fresh = r)), subject(r)), readAlong))
            : await idempotentWrite(db, raw, idempotencyKey, requestInput(raw), (complete) => attempt(async (r) => complete(toStored((fresh = r)), subject(r))));
      const completeReplay = (options.afterReplay as Record<string, ((request: OperationRequest<RouteContract, P>) => Promise<void>) | undefined> | undefined)?.[route.operation];
      if (completeReplay && result.headers?.['Idempotency-Replayed'] === 'true' && result.statusCode < 300) {
        const unit = new TransactionUnit(db);
        await completeReplay({ ...input, ports: options.ports(unit), metrics: figures });
        await unit.commit();
      }
      return toProxyResult(withOnce(result, idempotencyKey === undefined ? result : fresh), mediaType);
    });
  // Each invocation logs under its own request's keys, even when one process serves many.
  return (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> =>
    withLogScope(async () => {
      const apiEvent = event as ApiEvent & { [FIGURES]?: MetricsBuffer };
      const figures = (apiEvent[FIGURES] = new MetricsBuffer());
      let response: APIGatewayProxyResult | undefined;
      try {
        response = await chain(apiEvent, context);
        return response;
      } finally {
        const counted = apiEvent.problemCode ? options.problemMetrics?.[apiEvent.problemCode] : undefined;
        if (counted) figures.count(counted);
        publishRequestFigures({
          operation: apiEvent.route?.operation ?? 'unrouted',
          statusCode: response?.statusCode ?? 500,
          problemCode: apiEvent.problemCode,
          replayed: Boolean(response?.headers?.['Idempotency-Replayed']),
          organizationId: apiEvent.principal?.organizationId,
          requestId: requestIdOf(apiEvent),
          figures,
        });
      }
    });
}

/**
 * Location headers are absolute URLs on the stage's public base URL (the `publicBaseUrl` stage
 * variable: a custom domain, or the execute-api URL with its stage), never built from the
 * request's Host or X-Forwarded-* headers. Operations give the path
 * (`/v1/organizations/<id>/...`); a relative one would resolve against the execute-api URL's
 * stage prefix to no route. Without a configured base (unit tests) the path stays as it is.
 */
export function withAbsoluteLocation(result: HttpResult, publicBase: string | undefined): HttpResult {
  const location = result.headers?.Location;
  if (!publicBase || typeof location !== 'string' || !location.startsWith('/')) return result;
  return { ...result, headers: { ...result.headers, Location: onPublicBase(publicBase, location) } };
}

/** A path on the stage's public base URL (its trailing slashes dropped); without one, the path itself. */
const onPublicBase = (publicBase: string | undefined, path: string): string => `${(publicBase ?? '').replace(/\/+$/, '')}${path}`;

/** A route's `erasableSubject` must name a path parameter it has, and the route must store responses (Idempotency-Key). */
function checkErasableSubject(areaName: string, route: RouteRow): void {
  const subject = route.erasableSubject;
  if (!subject) return;
  const where = `${areaName}.${route.operation}`;
  if (!route.idempotencyKey) throw new Error(`${where} declares erasableSubject but stores no response (no idempotencyKey).`);
  if ('param' in subject.idFrom && !pathParamNames(route.path).includes(subject.idFrom.param)) throw new Error(`${where}: erasableSubject names {${subject.idFrom.param}}, which ${route.path} lacks.`);
}

/**
 * The subject the stored response of `route` concerns (its `erasableSubject`), from the path
 * parameter or the success body member it names; undefined for other routes. A body without
 * the member is a programming error: the write fails before its commit.
 */
export function responseSubject(route: RouteContract, params: Readonly<Record<string, string>>, organizationId: string, result: HttpResult): ResponseSubject | undefined {
  const subject = route.erasableSubject;
  if (!subject) return undefined;
  const id = 'param' in subject.idFrom ? params[subject.idFrom.param] : (result.body as Record<string, unknown> | undefined)?.[subject.idFrom.responseMember];
  if (typeof id !== 'string' || id === '') throw new Error(`The response names no ${subject.type} id where the route's erasableSubject says it is.`);
  return { organizationId, type: subject.type, id };
}

/**
 * A `noStore` route's operation: its result says `Cache-Control: no-store`, before the kit
 * stores it for replays (so a replay says it too) and before the shown-once members join it.
 */
const noStore =
  <Q>(operation: (request: Q) => Promise<HttpResult>) =>
  async (request: Q): Promise<HttpResult> => {
    const result = await operation(request);
    return { ...result, headers: { ...result.headers, 'Cache-Control': 'no-store' } };
  };

/** Where the request's committed figures wait for the end of the request. */
const FIGURES = Symbol('figures');
const figuresOf = (event: ApiEvent): MetricsBuffer => (event as ApiEvent & { [FIGURES]?: MetricsBuffer })[FIGURES] ?? new MetricsBuffer();

/**
 * The response with its shown-once members (`HttpResult.once`) when this request made it;
 * a replay (Idempotency-Replayed) never gets them: they were never stored.
 */
function withOnce(result: HttpResult, made: HttpResult | undefined): HttpResult {
  const once = made?.once;
  if (!once || result.headers?.['Idempotency-Replayed'] || typeof result.body !== 'object' || result.body === null || Array.isArray(result.body)) return { ...result, once: undefined };
  const { bodyText: _stored, ...rest } = result;
  return { ...rest, body: { ...result.body, ...once }, once: undefined };
}

function rawRequest(event: ApiEvent, context: Context, route: RouteRow): ApiRequest {
  if (!event.principal) throw new Error('authorizeRoute did not run.');
  // Before anything reads them: a lone surrogate would reach a handler, a stored value or a detail.
  const illFormed = illFormedParameters(event.pathParameters, event.queryStringParameters, event.multiValueQueryStringParameters);
  if (illFormed.length > 0) throw new ValidationError(illFormed, illFormedParametersMessage(illFormed));
  return {
    requestId: requestIdOf(event),
    route: route as never,
    principal: event.principal,
    pathParameters: Object.fromEntries(Object.entries(event.pathParameters ?? {}).filter((e): e is [string, string] => e[1] !== undefined)),
    query: singleValuedQuery(event),
    headers: Object.fromEntries(Object.entries(event.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    body: event.jsonBody,
    instance: event.path,
    remainingTimeMs: () => (typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : 30_000),
  };
}

/** Path ids (404 unless a UUID), If-Match (428 when required), query and body (422). */
function parseInputs(raw: ApiRequest, route: RouteRow, publicBaseUrl: string | undefined): Omit<OperationRequest<RouteContract, unknown>, 'ports' | 'metrics'> {
  const params: Record<string, string> = {};
  for (const name of pathParamNames(route.path)) {
    const value = raw.pathParameters[name] ?? '';
    if (route.textParams?.includes(name)) {
      params[name] = value;
      continue;
    }
    if (!isUuid(value)) throw new NotFoundError(`${describeParam(name)} ${value}`);
    params[name] = value.toLowerCase();
  }
  const ifMatch = route.ifMatch === 'required' ? requireIfMatch(raw) : route.ifMatch === 'optional' ? optionalIfMatch(raw) : undefined;
  const query = route.query ? parseQuery(route.query, raw.query) : parseQuery(NO_QUERY, raw.query);
  const body = parseRouteBody(route, raw.body);
  const actor: Actor = { principal: raw.principal, requestId: raw.requestId };
  const orgPath = `/v1/organizations/${raw.principal.organizationId}`;
  return {
    route,
    principal: raw.principal,
    actor,
    requestId: raw.requestId,
    params,
    query: query as never,
    body: body as never,
    ifMatch: ifMatch as never,
    headers: raw.headers,
    orgPath,
    orgUrl: onPublicBase(publicBaseUrl, orgPath),
    instance: raw.instance,
  };
}

/** A route that declares no query takes none: any parameter is 422, as on lists. */
const NO_QUERY = z.object({}).strict();

function parseRouteBody(route: RouteRow, body: unknown): unknown {
  if (route.body) {
    if (body === undefined && route.bodyOptional) return undefined;
    return parseBody(route.body, body);
  }
  if (body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)) return undefined;
  throw new ValidationError([{ pointer: '', detail: 'This operation takes no request body: send none, or {}.' }]);
}

/** `materialId` -> `Material`, `timeEntryId` -> `Time entry`: the "does not exist" message of a bad path id. */
function describeParam(name: string): string {
  const words = name.replace(/Id$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function singleValuedQuery(event: ApiEvent): Record<string, string> {
  const multi = event.multiValueQueryStringParameters ?? {};
  const repeated = Object.entries(multi).filter(([, values]) => (values?.length ?? 0) > 1);
  if (repeated.length > 0) {
    throw new ValidationError(repeated.map(([parameter]) => ({ parameter, detail: 'Given more than once; pass it once.' })));
  }
  return Object.fromEntries(Object.entries(event.queryStringParameters ?? {}).filter((e): e is [string, string] => e[1] !== undefined));
}
