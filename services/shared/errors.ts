/**
 * The one error family of the service. Domain, data and HTTP code throw these; one mapper
 * per wire format (http/problems.ts, scim/handler-errors.ts) turns them into responses.
 * Anything that is not an AppError is an internal error: logged, never shown.
 *
 * Two kinds of codes: the platform's own (below; every area may meet them, their status and
 * title sit in http/problems.ts) and each area's (its state conflicts and rules, declared in
 * `services/<area>/problems.ts` with `defineProblems` and listed on the area's definition), so
 * adding an area never touches this file.
 */

/** The platform's codes: input, auth, idempotency, preconditions, availability. */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'BAD_REQUEST'
  | 'MALFORMED_JSON'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'NOT_ACCEPTABLE'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNAUTHENTICATED'
  | 'ACCESS_DENIED'
  | 'SCOPE_REQUIRED'
  | 'RESOURCE_NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'FEATURE_NOT_ENABLED'
  | 'UNIQUENESS_CONFLICT'
  | 'IDEMPOTENCY_KEY_REQUIRED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_REQUEST_IN_PROGRESS'
  | 'ETAG_REQUIRED'
  | 'ETAG_MISMATCH'
  | 'RATE_LIMITED'
  | 'TRANSACTION_CONFLICT'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

/** A code an area declares, with the HTTP status and title of its problem (RFC 9457). */
export interface Problem<C extends string = string> {
  readonly code: C;
  readonly status: number;
  readonly title: string;
}

/** An area's problem table: code -> problem; docs/errors.md documents every code. */
export type ProblemTable = Readonly<Record<string, Problem>>;

/**
 * A problem of the resource's state (409): what the request asks is not possible in the state
 * the resource is in (`QUOTE_SENT: conflict('Quote is sent')`). Most area codes are.
 */
export const conflict = (title: string) => ({ status: 409, title }) as const;

/**
 * Declares an area's codes once (`services/<area>/problems.ts`); the domain throws
 * `new AppError(PROBLEMS.X, detail)`, routes list them, the registry checks that no two areas
 * declare one code and that none shadows a platform code.
 */
export const defineProblems = <const T extends Readonly<Record<string, { readonly status: number; readonly title: string }>>>(
  table: T,
): { readonly [K in keyof T & string]: Problem<K> } =>
  Object.fromEntries(Object.entries(table).map(([code, definition]) => [code, { code, ...definition }])) as { readonly [K in keyof T & string]: Problem<K> };

/** What an error or a route names: a platform code or an area's problem. */
export type ProblemRef = ErrorCode | Problem;

/** The code of a platform code or an area problem. */
export const codeOf = (ref: ProblemRef): string => (typeof ref === 'string' ? ref : ref.code);

/** Where an invalid input value sits: a JSON Pointer into the body, a query parameter or a header. */
export type FieldError =
  | { readonly pointer: string; readonly detail: string }
  | { readonly parameter: string; readonly detail: string }
  | { readonly header: string; readonly detail: string };

export interface AppErrorOptions extends ErrorOptions {
  /** Extension members for the problem body (e.g. `overlappingEntryIds`). Never secrets. */
  readonly extensions?: Readonly<Record<string, unknown>>;
  readonly errors?: readonly FieldError[];
  /** Seconds after which a retry may succeed (`Retry-After`). */
  readonly retryAfterSeconds?: number;
  /** Overrides the status the problem table gives the code (decisions.md names a few). */
  readonly status?: number;
}

export class AppError extends Error {
  /** The machine-readable code (`problem`'s code for an area problem). */
  readonly code: string;
  /** The area problem this error is, with its status and title; undefined for platform codes. */
  readonly problem?: Problem;
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly errors: readonly FieldError[];
  readonly retryAfterSeconds?: number;
  readonly status?: number;

  constructor(problem: ProblemRef, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = codeOf(problem);
    this.problem = typeof problem === 'string' ? undefined : problem;
    this.extensions = options.extensions ?? {};
    this.errors = options.errors ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.status = options.status;
  }
}

export class ValidationError extends AppError {
  constructor(errors: readonly FieldError[], message = describeFieldErrors(errors), status?: number) {
    super('VALIDATION_ERROR', message, { errors, status });
    this.name = 'ValidationError';
  }
}

export const fieldError = (pointer: string, detail: string): ValidationError => new ValidationError([{ pointer, detail }]);

export class NotFoundError extends AppError {
  constructor(what: string) {
    super('RESOURCE_NOT_FOUND', `${what} does not exist in this organization.`);
    this.name = 'NotFoundError';
  }
}

/** The value a read found, or 404 RESOURCE_NOT_FOUND naming `what` (e.g. `Contact <id>`). */
export function found<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new NotFoundError(what);
  return value;
}

export class ScopeRequiredError extends AppError {
  /** `any`: the key needs one of `missingScopes` (a route's anyOfScopes), not each. */
  constructor(
    readonly missingScopes: readonly string[],
    need: 'all' | 'any' = 'all',
  ) {
    super('SCOPE_REQUIRED', need === 'any' ? `This operation needs at least one of the scopes ${missingScopes.join(', ')} on the API key.` : `This operation needs the scope ${missingScopes.join(' and ')} on the API key.`, {
      extensions: { requiredScopes: missingScopes },
    });
    this.name = 'ScopeRequiredError';
  }
}

export class AccessDeniedError extends AppError {
  constructor(message = 'The API key has no access to this organization.') {
    super('ACCESS_DENIED', message);
    this.name = 'AccessDeniedError';
  }
}

export class UnauthenticatedError extends AppError {
  constructor() {
    super('UNAUTHENTICATED', 'A valid API key is required: send it as "Authorization: Bearer <API key>".');
    this.name = 'UnauthenticatedError';
  }
}

export class FeatureNotEnabledError extends AppError {
  constructor(feature: string) {
    super('FEATURE_NOT_ENABLED', `The ${feature} capability is not enabled for this organization; reads remain available.`);
    this.name = 'FeatureNotEnabledError';
  }
}

export class EtagRequiredError extends AppError {
  constructor() {
    super('ETAG_REQUIRED', 'This change needs the current ETag of the resource in the If-Match header.');
    this.name = 'EtagRequiredError';
  }
}

export class EtagMismatchError extends AppError {
  constructor(readonly currentEtag?: string) {
    super('ETAG_MISMATCH', 'If-Match does not match the current ETag: the resource changed; read it again and retry.');
    this.name = 'EtagMismatchError';
  }
}

export class UniquenessConflictError extends AppError {
  constructor(readonly attribute: string) {
    super('UNIQUENESS_CONFLICT', `Another resource of this organization already has this ${attribute}.`, {
      extensions: { attribute },
    });
    this.name = 'UniquenessConflictError';
  }
}

export class IdempotencyKeyRequiredError extends AppError {
  constructor() {
    super('IDEMPOTENCY_KEY_REQUIRED', 'This operation needs an Idempotency-Key header (1 to 255 printable ASCII characters).');
    this.name = 'IdempotencyKeyRequiredError';
  }
}

export class IdempotencyKeyReusedError extends AppError {
  constructor(options?: ErrorOptions) {
    super('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request; nothing was applied.', options);
    this.name = 'IdempotencyKeyReusedError';
  }
}

export class IdempotencyInProgressError extends AppError {
  constructor(options?: ErrorOptions) {
    super('IDEMPOTENCY_REQUEST_IN_PROGRESS', 'A request with this Idempotency-Key is still in progress; retry later.', {
      ...options,
      retryAfterSeconds: 1,
    });
    this.name = 'IdempotencyInProgressError';
  }
}

/** Real DynamoDB cancelled the transaction for a concurrent one on the same item, every retry. */
export class TransactionConflictError extends AppError {
  constructor(options?: ErrorOptions) {
    super('TRANSACTION_CONFLICT', 'A concurrent change to the same data won; retry the request.', {
      ...options,
      retryAfterSeconds: 1,
    });
    this.name = 'TransactionConflictError';
  }
}

/** The data store could not be reached or answered with a server error. */
export class ServiceUnavailableError extends AppError {
  constructor(options?: ErrorOptions) {
    super('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry the request.', {
      ...options,
      retryAfterSeconds: 2,
    });
    this.name = 'ServiceUnavailableError';
  }
}

function describeFieldErrors(errors: readonly FieldError[]): string {
  if (errors.length === 1) {
    const [only] = errors;
    return `${locationOf(only)}: ${only.detail}`;
  }
  return `The request has ${errors.length} invalid values; see errors.`;
}

export function locationOf(error: FieldError): string {
  if ('pointer' in error) return error.pointer === '' ? 'body' : error.pointer;
  if ('parameter' in error) return `query parameter ${error.parameter}`;
  return `header ${error.header}`;
}
