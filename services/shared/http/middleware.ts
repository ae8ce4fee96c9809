import type { MiddlewareObj } from '@middy/core';
import { parse as parseContentType } from 'content-type';
import Negotiator from 'negotiator';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { resourcePath, routeKey, routeRows, type AreaDefinition, type RouteRow } from '../area';
import { principalFrom, requireScopes, type Principal } from '../auth/principal';
import { AccessDeniedError, AppError, UnauthenticatedError, ValidationError, locationOf, type FieldError } from '../errors';
import { addLogKeys, logger } from '../logger';
import { API_STAGES, FORWARDED_REQUEST_ID_HEADER } from './gateway-responses';
import type { HttpResult } from './request';
import { illFormedStrings } from './well-formed';

/** The proxy event, as the middlewares below complete it. */
export type ApiEvent = APIGatewayProxyEvent & {
  route?: RouteRow;
  principal?: Principal;
  jsonBody?: unknown;
  /** The problem code of the error answered (errorResponses), for the request's metrics. */
  problemCode?: string;
};

type Middleware = MiddlewareObj<ApiEvent, APIGatewayProxyResult, Error, Context>;

/** Renders an error in the wire format of the API (problem+json, SCIM error). */
export type ErrorRenderer = (error: unknown, requestId: string, instance: string) => HttpResult;

/**
 * The request id of a call: API Gateway's, or on the SCIM stage the public API's id that its
 * forward passed on (the SCIM stage is reachable only through that forward, whose header
 * replaces any the client sent).
 */
export const requestIdOf = (event: APIGatewayProxyEvent): string => {
  if (event.requestContext?.stage === API_STAGES.scim) {
    const forwarded = headerOf(event, FORWARDED_REQUEST_ID_HEADER);
    if (forwarded && /^[A-Za-z0-9-]{1,64}$/.test(forwarded)) return forwarded;
  }
  return event.requestContext?.requestId ?? 'unknown';
};

/** Every response carries X-Request-Id = API Gateway's request ID. */
export function requestIdHeader(): Middleware {
  const addRequestId = (request: { event: ApiEvent; response: APIGatewayProxyResult | null | undefined }) => {
    if (!request.response) return;
    request.response.headers = { ...request.response.headers, 'X-Request-Id': requestIdOf(request.event) };
  };
  return { name: 'requestIdHeader', after: addRequestId, onError: addRequestId };
}

/** Logs under the request ID and key ID; never the token or the body. */
export function requestLogKeys(): Middleware {
  return {
    name: 'requestLogKeys',
    before: ({ event }) => {
      addLogKeys({ requestId: requestIdOf(event), route: `${event.httpMethod} ${event.resource}` });
    },
  };
}

/**
 * The one place that turns errors into responses. Only AppErrors below 500 show their
 * message; the rest is logged with its detail under the request ID and answered generically.
 */
export function errorResponses(render: ErrorRenderer): Middleware {
  return {
    name: 'errorResponses',
    onError: (request) => {
      const { error, event } = request;
      const requestId = requestIdOf(event);
      const result = render(error, requestId, event.path ?? '');
      event.problemCode = error instanceof AppError ? error.code : 'INTERNAL_ERROR';
      if (result.statusCode >= 500) {
        logger.error('Request failed', { error: error as Error, code: error instanceof AppError ? error.code : 'INTERNAL_ERROR' });
      } else {
        logger.info('Request rejected', { code: error instanceof AppError ? error.code : undefined, status: result.statusCode });
      }
      request.response = toProxyResult(result, 'application/json');
    },
  };
}

/**
 * Resolves the route, reads the principal from the authorizer context, and checks that the
 * key's organization is the URL's (the authorizer's policy already ensures it; checked again
 * here so that no handler ever runs for another organization) and that the key holds every
 * scope of the route.
 */
export function authorizeRoute(area: AreaDefinition): Middleware {
  const byKey = new Map(routeRows(area).map((r) => [routeKey(r.method, resourcePath(r)), r]));
  return {
    name: 'authorizeRoute',
    before: ({ event }) => {
      const route = byKey.get(routeKey(event.httpMethod, event.resource));
      if (!route) throw new AppError('RESOURCE_NOT_FOUND', 'No such route: check the method and the path.');
      const principal = principalFrom(event.requestContext?.authorizer as Record<string, unknown> | undefined);
      if (!principal) throw new UnauthenticatedError();
      if (principal.organizationId !== event.pathParameters?.organizationId) throw new AccessDeniedError();
      addLogKeys({ keyId: principal.keyId, organizationId: principal.organizationId });
      requireScopes(principal, route.scopes, route.anyOfScopes);
      event.route = route;
      event.principal = principal;
    },
  };
}

export const MAX_BODY_BYTES = 64 * 1024;

export interface JsonBodyOptions {
  /** Media types accepted for request bodies, lower case; a charset parameter must name UTF-8 (other parameters are ignored). */
  readonly mediaTypes: readonly string[];
}

/**
 * Refuses a request whose `Accept` names none of `mediaTypes` (406 NOT_ACCEPTABLE), parsed by
 * `negotiator` (media ranges, wildcards, q=0, a charset other than UTF-8). No `Accept` accepts anything,
 * and so does a route that redirects (its representation is the target's). The refusal itself
 * is problem+json, as every error: a client learns why whatever it accepts.
 */
export function acceptable(mediaTypes: readonly string[]): Middleware {
  // Offered with the charset every answer has, so `application/json; charset=utf-8` matches too.
  const offered = mediaTypes.map((t) => `${t}; charset=utf-8`);
  return {
    name: 'acceptable',
    before: ({ event }) => {
      const accept = headerOf(event, 'accept');
      if (accept === undefined) return;
      // A redirect's representation is where it points (a presigned file of its own type): any Accept.
      const status = event.route?.success.status ?? 200;
      if (status >= 300 && status < 400) return;
      if (new Negotiator({ headers: { accept } }).mediaType(offered) !== undefined) return;
      throw new AppError('NOT_ACCEPTABLE', `Accept "${accept.slice(0, 200)}" names no media type this route answers; accept ${mediaTypes.join(' or ')}.`);
    },
  };
}

/** The labels of UTF-8 in the WHATWG Encoding Standard (what browsers and HTTP clients send, `utf8` among them). */
const UTF8_LABELS = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8']);

/**
 * Parses a JSON body: 413 PAYLOAD_TOO_LARGE above 64 KiB, 415 UNSUPPORTED_MEDIA_TYPE for
 * another media type, a charset other than UTF-8 or a content coding (gzip...), 400
 * MALFORMED_JSON for text that is not JSON, 422 VALIDATION_ERROR for a body nested too deep or
 * holding a string (value or member name) that is not well-formed Unicode. No body: undefined.
 */
export function jsonBody({ mediaTypes }: JsonBodyOptions): Middleware {
  return {
    name: 'jsonBody',
    before: ({ event }) => {
      if (event.body === null || event.body === undefined || event.body === '') return;
      const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
      if (raw.length > MAX_BODY_BYTES) {
        throw new AppError('PAYLOAD_TOO_LARGE', `The request body has ${raw.length} bytes; at most ${MAX_BODY_BYTES} are accepted.`);
      }
      const contentType = headerOf(event, 'content-type');
      // `content-type` lower-cases the type and the parameter names and unquotes the values.
      const declared = parseContentType(contentType ?? '');
      const shown = `"${(contentType ?? '').slice(0, 200)}"`;
      if (!declared.type || !mediaTypes.includes(declared.type)) {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${contentType ? shown : 'is missing'}; send the body as ${mediaTypes.join(' or ')}.`);
      }
      // JSON between systems is UTF-8 (RFC 8259 §8.1): the body is read as UTF-8, so a body that
      // declares another charset would be read as something it is not.
      const charset = declared.parameters.charset;
      if (charset !== undefined && !UTF8_LABELS.has(charset.toLowerCase())) {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${shown} declares the charset "${charset.slice(0, 40)}"; only UTF-8 is accepted: send the body in UTF-8, with charset=utf-8 or no charset.`);
      }
      // A compressed body would be read as broken JSON; RFC 9110 §15.5.16 answers an unsupported coding with 415.
      const coding = headerOf(event, 'content-encoding')?.trim().toLowerCase();
      if (coding && coding !== 'identity') {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding "${coding.slice(0, 40)}" is not accepted; send the body uncompressed (no Content-Encoding).`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw.toString('utf8')) as unknown;
      } catch {
        throw new AppError('MALFORMED_JSON', 'The request body is not valid JSON.');
      }
      // No body of this API nests deeply; thousands of levels would exhaust the stack of
      // anything that walks it (schemas, hashing) and turn a bad request into a 500.
      if (nestedDeeperThan(parsed, MAX_JSON_DEPTH)) {
        throw new ValidationError([{ pointer: '', detail: `The body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels.` }]);
      }
      // JSON's syntax lets a string escape a lone surrogate ("\ud800"), which is no Unicode text
      // (RFC 8259 §8.2): stored, it would make every page that holds it unreadable to strict
      // parsers. Refused on every route, SCIM's too, before any schema or store sees it.
      const illFormed = illFormedStrings(parsed);
      if (illFormed.length > 0) throw new ValidationError(illFormed, illFormedMessage(illFormed));
      event.jsonBody = parsed;
    },
  };
}

export const MAX_JSON_DEPTH = 32;

/** One error: its pointer and detail; several: their pointers (SCIM's error schema shows only this message, no `errors`). */
const illFormedMessage = (errors: readonly FieldError[]): string | undefined =>
  errors.length === 1
    ? undefined
    : `The body holds ${errors.length} strings that are not well-formed Unicode text (lone surrogates), at ${errors.slice(0, 10).map(locationOf).join(', ')}${errors.length > 10 ? ` and ${errors.length - 10} more` : ''}.`;

/** Walks without recursion, so that the check itself cannot run out of stack. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(v as Record<string, unknown>)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

export function headerOf(event: APIGatewayProxyEvent, name: string): string | undefined {
  const headers = event.headers ?? {};
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === lower && value !== undefined) return value;
  }
  return undefined;
}

export function toProxyResult(result: HttpResult, mediaType: string): APIGatewayProxyResult {
  const hasBody = result.body !== undefined && result.statusCode !== 204;
  return {
    statusCode: result.statusCode,
    headers: {
      ...(hasBody ? { 'Content-Type': result.contentType ?? mediaType } : {}),
      ...result.headers,
    },
    body: hasBody ? (result.bodyText ?? JSON.stringify(result.body)) : '',
  };
}
