import type { ApiName } from '../area';
import { PROBLEMS, problemType } from './problems';
import type { ErrorCode } from '../errors';

/**
 * Responses API Gateway makes itself (authorizer deny, throttling, unknown route, 5xx),
 * rewritten to our error formats. The CDK Api construct turns these into GatewayResponse
 * resources; the local gateway renders the same rows.
 */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'REQUEST_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'INVALID_API_KEY'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'INTEGRATION_FAILURE'
  | 'INTEGRATION_TIMEOUT'
  | 'WAF_FILTERED'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

/**
 * The public API forwards SCIM paths to the SCIM API with its own request id in this header;
 * the SCIM API (reachable only through that forward) answers and logs under it, so a SCIM
 * call has one request id from the public access log to the audit entry.
 */
export const FORWARDED_REQUEST_ID_HEADER = 'X-Wfm-Forwarded-Request-Id';

/** The header a forward adds so that only forwarded requests reach the target API (its WebACL checks it). */
export const ORIGIN_HEADER = 'X-Wfm-Origin';

/**
 * The headers the SCIM forward sets (lib/constructs/api.ts, integration request parameters):
 * a mapped header replaces any the client sent, so none of them ever comes from a client.
 * The local gateway does the same (services/local/gateway.ts).
 */
export const FORWARD_HEADERS: readonly string[] = [ORIGIN_HEADER, FORWARDED_REQUEST_ID_HEADER];

export interface GatewayResponseRow {
  readonly type: GatewayResponseType;
  readonly status: number;
  readonly code: ErrorCode;
  readonly detail: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export const GATEWAY_RESPONSES: readonly GatewayResponseRow[] = [
  { type: 'UNAUTHORIZED', status: 401, code: 'UNAUTHENTICATED', detail: 'A valid API key is required: send it as "Authorization: Bearer <API key>".', headers: { 'WWW-Authenticate': 'Bearer' } },
  { type: 'ACCESS_DENIED', status: 403, code: 'ACCESS_DENIED', detail: 'The API key has no access to this organization.' },
  // API Gateway answers an unknown path or method with MISSING_AUTHENTICATION_TOKEN (403).
  { type: 'MISSING_AUTHENTICATION_TOKEN', status: 404, code: 'RESOURCE_NOT_FOUND', detail: 'No such route: check the method and the path.' },
  { type: 'RESOURCE_NOT_FOUND', status: 404, code: 'RESOURCE_NOT_FOUND', detail: 'No such route: check the method and the path.' },
  { type: 'THROTTLED', status: 429, code: 'RATE_LIMITED', detail: 'Too many requests: slow down and retry after the time in Retry-After.', headers: { 'Retry-After': '1' } },
  { type: 'QUOTA_EXCEEDED', status: 429, code: 'RATE_LIMITED', detail: 'The request quota of this API key is used up.', headers: { 'Retry-After': '60' } },
  { type: 'REQUEST_TOO_LARGE', status: 413, code: 'PAYLOAD_TOO_LARGE', detail: 'The request body is larger than 64 KiB.' },
  { type: 'UNSUPPORTED_MEDIA_TYPE', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'Send the body as application/json.' },
  // The authorizer accepted the key but API Gateway has no usage-plan key for it: an operator
  // must register it (npm run keys -- sync-usage-plan); the client cannot fix it.
  { type: 'INVALID_API_KEY', status: 403, code: 'ACCESS_DENIED', detail: 'This API key is not enabled on this host yet; contact the operator who issued it.' },
  { type: 'AUTHORIZER_FAILURE', status: 500, code: 'INTERNAL_ERROR', detail: 'An unexpected error occurred. Share the requestId with support.' },
  { type: 'AUTHORIZER_CONFIGURATION_ERROR', status: 500, code: 'INTERNAL_ERROR', detail: 'An unexpected error occurred. Share the requestId with support.' },
  { type: 'INTEGRATION_FAILURE', status: 502, code: 'INTERNAL_ERROR', detail: 'An unexpected error occurred. Share the requestId with support.' },
  { type: 'INTEGRATION_TIMEOUT', status: 504, code: 'SERVICE_UNAVAILABLE', detail: 'The request took too long; retry it.' },
  // A WebACL managed rule (common attacks, known bad inputs) blocked the request; without its
  // own row it would take DEFAULT_4XX's status, 400, and read as the client's syntax error.
  { type: 'WAF_FILTERED', status: 403, code: 'ACCESS_DENIED', detail: 'The firewall refused this request: it looks like a known attack pattern. If it is legitimate, share the requestId with support.' },
  { type: 'DEFAULT_4XX', status: 400, code: 'BAD_REQUEST', detail: 'The request could not be processed.' },
  { type: 'DEFAULT_5XX', status: 500, code: 'INTERNAL_ERROR', detail: 'An unexpected error occurred. Share the requestId with support.' },
];

export const gatewayResponse = (type: GatewayResponseType): GatewayResponseRow => {
  const row = GATEWAY_RESPONSES.find((r) => r.type === type);
  if (!row) throw new Error(`No gateway response row for ${type}.`);
  return row;
};

export type ErrorFormat = 'problem' | 'scim';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export const ERROR_MEDIA_TYPE: Readonly<Record<ErrorFormat, string>> = {
  problem: 'application/problem+json',
  scim: 'application/scim+json',
};

/** Values the body needs: real ones locally, `$context` variables in API Gateway templates. */
export interface GatewayResponseVars {
  readonly requestId: string;
  readonly instance: string;
}

/** The body of a gateway-made response, in the API's error format. */
export function gatewayResponseBody(row: GatewayResponseRow, format: ErrorFormat, vars: GatewayResponseVars): Record<string, unknown> {
  if (format === 'scim') {
    return { schemas: [SCIM_ERROR_SCHEMA], status: String(row.status), detail: row.detail };
  }
  return {
    type: problemType(row.code),
    title: PROBLEMS[row.code].title,
    status: row.status,
    detail: row.detail,
    instance: vars.instance,
    code: row.code,
    requestId: vars.requestId,
  };
}

/** Stage of each REST API: the deployed stages and the local gateway use these names. */
export const API_STAGES: Readonly<Record<ApiName, string>> = { public: 'v1', scim: 'scim' };

/** Error format of each REST API. */
export const API_ERROR_FORMAT: Readonly<Record<ApiName, ErrorFormat>> = { public: 'problem', scim: 'scim' };

/** The `Allow` header of a resource: its methods, sorted. */
export const allowHeader = (methods: readonly string[]): string => [...new Set(methods)].sort().join(', ');

/**
 * The 405 body, built once for both sides: the stack's ANY mocks (with `$context`
 * variables) and the local gateway (with real values).
 */
export function methodNotAllowedBody(format: ErrorFormat, allow: string, vars: GatewayResponseVars): Record<string, unknown> {
  const detail = `This route accepts ${allow}.`;
  if (format === 'scim') return { schemas: [SCIM_ERROR_SCHEMA], status: '405', detail };
  return {
    type: problemType('METHOD_NOT_ALLOWED'),
    title: PROBLEMS.METHOD_NOT_ALLOWED.title,
    status: 405,
    detail,
    instance: vars.instance,
    code: 'METHOD_NOT_ALLOWED',
    requestId: vars.requestId,
  };
}
