import { AppError, type ErrorCode, type Problem, type ProblemRef } from '../errors';

/**
 * The platform's table from error code to HTTP status and title (RFC 9457); areas declare
 * their own codes with `defineProblems` (shared/errors.ts). `type` URIs are stable and
 * documented in docs/errors.md.
 */
export const PROBLEM_TYPE_BASE = 'https://errors.wfm-api.example/';

interface ProblemDefinition {
  readonly status: number;
  readonly title: string;
}

export const PROBLEMS: Readonly<Record<ErrorCode, ProblemDefinition>> = {
  VALIDATION_ERROR: { status: 422, title: 'Invalid input' },
  BAD_REQUEST: { status: 400, title: 'Bad request' },
  MALFORMED_JSON: { status: 400, title: 'Malformed JSON body' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  NOT_ACCEPTABLE: { status: 406, title: 'Not acceptable' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  UNAUTHENTICATED: { status: 401, title: 'Unauthenticated' },
  ACCESS_DENIED: { status: 403, title: 'Access denied' },
  SCOPE_REQUIRED: { status: 403, title: 'Scope required' },
  RESOURCE_NOT_FOUND: { status: 404, title: 'Resource not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  FEATURE_NOT_ENABLED: { status: 409, title: 'Feature not enabled' },
  UNIQUENESS_CONFLICT: { status: 409, title: 'Value already in use' },
  IDEMPOTENCY_KEY_REQUIRED: { status: 400, title: 'Idempotency-Key required' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, title: 'Idempotency-Key reused with different input' },
  IDEMPOTENCY_REQUEST_IN_PROGRESS: { status: 409, title: 'Request with this Idempotency-Key in progress' },
  ETAG_REQUIRED: { status: 428, title: 'If-Match required' },
  ETAG_MISMATCH: { status: 412, title: 'ETag mismatch' },
  RATE_LIMITED: { status: 429, title: 'Rate limit exceeded' },
  TRANSACTION_CONFLICT: { status: 503, title: 'Concurrent change' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
};

export const problemType = (code: string): string => `${PROBLEM_TYPE_BASE}${code.toLowerCase().replace(/_/g, '-')}`;

/** The status and title of a platform code or an area problem. */
export const definitionOf = (ref: ProblemRef): Problem => (typeof ref === 'string' ? { code: ref, ...PROBLEMS[ref] } : ref);

/** The status an error answers with: its own override, its problem's, or 500 for anything else. */
export const statusOfError = (error: unknown): number => {
  if (!(error instanceof AppError)) return 500;
  return error.status ?? (error.problem ?? definitionOf(error.code as ErrorCode)).status;
};

export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance: string;
  readonly code: string;
  readonly requestId: string;
  readonly [extension: string]: unknown;
}

const INTERNAL_DETAIL = 'An unexpected error occurred. Share the requestId with support.';

/**
 * The problem body for an error. Only AppErrors show their message; anything else is an
 * internal error whose message (SDK text, table names, stacks) never reaches the client.
 */
export function toProblem(error: unknown, requestId: string, instance: string): ProblemBody {
  if (!(error instanceof AppError) || error.code === 'INTERNAL_ERROR') return problemBody('INTERNAL_ERROR', INTERNAL_DETAIL, requestId, instance);
  const body = { ...problemBody(error.problem ?? (error.code as ErrorCode), error.message, requestId, instance), ...(error.status ? { status: error.status } : {}) };
  return {
    ...error.extensions,
    ...body,
    ...(error.errors.length > 0 ? { errors: error.errors } : {}),
  };
}

export function problemBody(ref: ProblemRef, detail: string, requestId: string, instance: string): ProblemBody {
  const { code, status, title } = definitionOf(ref);
  return { type: problemType(code), title, status, detail, instance, code, requestId };
}
