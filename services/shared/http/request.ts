import type { RouteRow } from '../area';
import type { Principal } from '../auth/principal';
import type { JsonValue } from '../json';

/** A parsed, authorized request, as operations see it. */
export interface ApiRequest {
  readonly requestId: string;
  readonly route: RouteRow;
  readonly principal: Principal;
  readonly pathParameters: Readonly<Record<string, string>>;
  /** Query parameters, one value each (a repeated parameter is a validation error). */
  readonly query: Readonly<Record<string, string>>;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The parsed JSON body; undefined when there is none. */
  readonly body: unknown;
  /** The request path, for the problem's `instance`. */
  readonly instance: string;
  readonly remainingTimeMs: () => number;
}

export interface HttpResult {
  readonly statusCode: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: JsonValue | object;
  /** Overrides the handler's media type (problem bodies, SCIM errors, files). */
  readonly contentType?: string;
  /** The body's JSON text, sent as it is (an idempotent replay: byte for byte the original). */
  readonly bodyText?: string;
  /**
   * Body members shown once (an issued secret): added to the first response only, never
   * stored in the idempotency record, so a replay answers the same body without them.
   */
  readonly once?: Readonly<Record<string, string>>;
}

export type Operation = (request: ApiRequest) => Promise<HttpResult>;

export const ok = (body: object, headers?: Record<string, string>): HttpResult => ({ statusCode: 200, body, headers });

export const created = (body: object, headers: Record<string, string>): HttpResult => ({ statusCode: 201, body, headers });

export const noContent = (headers?: Record<string, string>): HttpResult => ({ statusCode: 204, headers });
