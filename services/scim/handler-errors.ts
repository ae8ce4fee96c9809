import { AppError, type ErrorCode } from '../shared/errors';
import { SCIM_ERROR_SCHEMA } from '../shared/http/gateway-responses';
import type { ErrorRenderer } from '../shared/http/middleware';
import { statusOfError } from '../shared/http/problems';
import { ScimError, type ScimType } from './domain-errors';

export interface ScimErrorBody {
  readonly schemas: readonly [typeof SCIM_ERROR_SCHEMA];
  /** RFC 7644 §3.12: the HTTP status as a string. */
  readonly status: string;
  readonly scimType?: ScimType;
  readonly detail: string;
}

/** Statuses SCIM clients know; anything the problem table maps elsewhere is adjusted here. */
const SCIM_STATUS: Partial<Record<ErrorCode, number>> = {
  VALIDATION_ERROR: 400,
};

/** scimType for errors that did not name one. */
const SCIM_TYPE_OF: Partial<Record<ErrorCode, ScimType>> = {
  VALIDATION_ERROR: 'invalidValue',
  MALFORMED_JSON: 'invalidSyntax',
  UNIQUENESS_CONFLICT: 'uniqueness',
};

const INTERNAL_DETAIL = 'An unexpected error occurred. Share the X-Request-Id of this response with support.';

/**
 * The one mapper of the SCIM API: any error becomes the RFC 7644 error schema, as
 * application/scim+json. AppErrors show their message (written for clients); anything else is
 * an internal error answered generically (the log has it under the request ID).
 */
export const renderScimError: ErrorRenderer = (error) => {
  const known = error instanceof AppError && error.code !== 'INTERNAL_ERROR' ? error : undefined;
  const status = known ? (known instanceof ScimError ? 400 : SCIM_STATUS[known.code as ErrorCode] ?? statusOfError(known)) : 500;
  const scimType = known ? (known instanceof ScimError ? known.scimType : SCIM_TYPE_OF[known.code as ErrorCode]) : undefined;
  const detail = known ? known.message : INTERNAL_DETAIL;
  const body: ScimErrorBody = { schemas: [SCIM_ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail };
  return {
    statusCode: status,
    headers: {
      ...(known?.retryAfterSeconds !== undefined ? { 'Retry-After': String(known.retryAfterSeconds) } : {}),
      ...(known?.code === 'UNAUTHENTICATED' ? { 'WWW-Authenticate': 'Bearer' } : {}),
    },
    body,
    contentType: 'application/scim+json',
  };
};
