import { ResponseType, type GatewayResponseOptions } from 'aws-cdk-lib/aws-apigateway';
import {
  ERROR_MEDIA_TYPE,
  gatewayResponseBody,
  type ErrorFormat,
  type GatewayResponseRow,
  type GatewayResponseVars,
} from '../services/shared/http/gateway-responses';

/**
 * The API Gateway side of services/shared/http/gateway-responses.ts: the same rows and the
 * same body builder as the local gateway, with API Gateway's `$context` variables where the
 * local gateway puts real values, so deployed and local error bodies never drift.
 */
export const API_GATEWAY_VARS: GatewayResponseVars = { requestId: '$context.requestId', instance: '$context.path' };

/** A static header value in a response parameter mapping is a single-quoted literal. */
export function staticHeaderValue(name: string, value: string): string {
  if (value.includes("'")) throw new Error(`Header ${name}: a static value cannot contain a single quote, got ${JSON.stringify(value)}.`);
  return `'${value}'`;
}

/** The headers every error response of `format` carries: Content-Type and X-Request-Id (unquoted: a mapping, not a literal). */
export function errorHeaders(format: ErrorFormat, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    'Content-Type': staticHeaderValue('Content-Type', ERROR_MEDIA_TYPE[format]),
    'X-Request-Id': 'context.requestId',
    ...Object.fromEntries(Object.entries(extra).map(([name, value]) => [name, staticHeaderValue(name, value)])),
  };
}

/**
 * Templates keyed by the media types API Gateway may select on: JSON and the format's own
 * error type. Gateway response templates are not VTL: only `$context` substitution.
 */
export function errorTemplates(format: ErrorFormat, body: string): Record<string, string> {
  return { 'application/json': body, [ERROR_MEDIA_TYPE[format]]: body };
}

/** One GATEWAY_RESPONSES row as a CDK gateway response in the API's error format. */
export function gatewayResponseOptions(row: GatewayResponseRow, format: ErrorFormat): GatewayResponseOptions {
  return {
    type: ResponseType.of(row.type),
    statusCode: String(row.status),
    responseHeaders: errorHeaders(format, row.headers),
    templates: errorTemplates(format, JSON.stringify(gatewayResponseBody(row, format, API_GATEWAY_VARS))),
  };
}

export { allowHeader, methodNotAllowedBody } from '../services/shared/http/gateway-responses';
