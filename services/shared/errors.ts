/**
 * The one error family of the service. Domain, data and HTTP code throw these; one mapper
 * per wire format (http/problems.ts, scim/errors.ts) turns them into responses. Anything
 * that is not an AppError is an internal error: logged, never shown.
 */

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
  | 'TIME_ENTRY_OVERLAP'
  | 'TIME_ENTRY_VOIDED'
  | 'UPLOAD_SESSION_COMPLETED'
  | 'UPLOAD_SESSION_EXPIRED'
  | 'UPLOAD_NOT_RECEIVED'
  | 'DOCUMENT_NOT_AVAILABLE'
  | 'SHIFT_OVERLAP'
  | 'SHIFT_PUBLISHED'
  | 'SHIFT_CANCELLED'
  | 'QUOTE_DRAFT'
  | 'QUOTE_SENT'
  | 'QUOTE_ACCEPTED'
  | 'QUOTE_DECLINED'
  | 'QUOTE_EXPIRED'
  | 'QUOTE_CONVERTED'
  | 'INVOICE_DRAFT'
  | 'INVOICE_ISSUED'
  | 'INVOICE_PARTIALLY_PAID'
  | 'INVOICE_PAID'
  | 'INVOICE_VOID'
  | 'FEATURE_NOT_ENABLED'
  | 'CUSTOMER_ACCESS_ACTIVE'
  | 'CUSTOMER_ACCESS_REVOKED'
  | 'CUSTOMER_ACCESS_EXPIRED'
  | 'FEEDBACK_ACKNOWLEDGED'
  | 'FEEDBACK_RESOLVED'
  | 'INSPECTION_COMPLETED'
  | 'UNIQUENESS_CONFLICT'
  | 'CANDIDATE_HIRED'
  | 'CANDIDATE_REJECTED'
  | 'CANDIDATE_WITHDRAWN'
  | 'CANDIDATE_ERASED'
  | 'CANDIDATE_STAGE_PASSED'
  | 'CANDIDATE_NOT_OFFERED'
  | 'CANDIDATE_MESSAGE_LIMIT'
  | 'IDEMPOTENCY_KEY_REQUIRED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_REQUEST_IN_PROGRESS'
  | 'ETAG_REQUIRED'
  | 'ETAG_MISMATCH'
  | 'RATE_LIMITED'
  | 'TRANSACTION_CONFLICT'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

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
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly errors: readonly FieldError[];
  readonly retryAfterSeconds?: number;
  readonly status?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
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

export class ScopeRequiredError extends AppError {
  constructor(readonly missingScopes: readonly string[]) {
    super('SCOPE_REQUIRED', `This operation needs the scope ${missingScopes.join(' and ')} on the API key.`, {
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
