import { AppError, type ErrorCode } from '../errors';

/**
 * The one table from error code to HTTP status, problem type and title (RFC 9457).
 * `type` URIs are stable and documented in docs/errors.md.
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
  TIME_ENTRY_OVERLAP: { status: 409, title: 'Time entry overlaps another entry' },
  TIME_ENTRY_VOIDED: { status: 409, title: 'Time entry is voided' },
  UPLOAD_SESSION_COMPLETED: { status: 409, title: 'Upload session already completed' },
  UPLOAD_SESSION_EXPIRED: { status: 409, title: 'Upload session expired' },
  UPLOAD_NOT_RECEIVED: { status: 409, title: 'Nothing uploaded yet' },
  DOCUMENT_NOT_AVAILABLE: { status: 409, title: 'Document not available' },
  SHIFT_OVERLAP: { status: 409, title: 'Shift overlaps another published shift' },
  SHIFT_PUBLISHED: { status: 409, title: 'Shift is already published' },
  SHIFT_CANCELLED: { status: 409, title: 'Shift is cancelled' },
  QUOTE_DRAFT: { status: 409, title: 'Quote is a draft' },
  QUOTE_SENT: { status: 409, title: 'Quote is sent' },
  QUOTE_ACCEPTED: { status: 409, title: 'Quote is accepted' },
  QUOTE_DECLINED: { status: 409, title: 'Quote is declined' },
  QUOTE_EXPIRED: { status: 409, title: 'Quote is expired' },
  QUOTE_CONVERTED: { status: 409, title: 'Quote is converted' },
  INVOICE_DRAFT: { status: 409, title: 'Invoice is a draft' },
  INVOICE_ISSUED: { status: 409, title: 'Invoice is issued' },
  INVOICE_PARTIALLY_PAID: { status: 409, title: 'Invoice is partially paid' },
  INVOICE_PAID: { status: 409, title: 'Invoice is paid' },
  INVOICE_VOID: { status: 409, title: 'Invoice is void' },
  FEATURE_NOT_ENABLED: { status: 409, title: 'Feature not enabled' },
  CUSTOMER_ACCESS_ACTIVE: { status: 409, title: 'Customer access is already active' },
  CUSTOMER_ACCESS_REVOKED: { status: 409, title: 'Customer access is revoked' },
  CUSTOMER_ACCESS_EXPIRED: { status: 409, title: 'Customer access has expired' },
  FEEDBACK_ACKNOWLEDGED: { status: 409, title: 'Feedback is already acknowledged' },
  FEEDBACK_RESOLVED: { status: 409, title: 'Feedback is resolved' },
  INSPECTION_COMPLETED: { status: 409, title: 'Inspection is completed' },
  UNIQUENESS_CONFLICT: { status: 409, title: 'Value already in use' },
  CANDIDATE_HIRED: { status: 409, title: 'Candidate is hired' },
  CANDIDATE_REJECTED: { status: 409, title: 'Candidate is rejected' },
  CANDIDATE_WITHDRAWN: { status: 409, title: 'Candidate has withdrawn' },
  CANDIDATE_ERASED: { status: 409, title: "Candidate's personal data is erased" },
  CANDIDATE_STAGE_PASSED: { status: 409, title: 'Candidate has passed this stage' },
  CANDIDATE_NOT_OFFERED: { status: 409, title: 'Candidate has no offer' },
  CANDIDATE_MESSAGE_LIMIT: { status: 409, title: 'Candidate message limit reached' },
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

export const problemType = (code: ErrorCode): string => `${PROBLEM_TYPE_BASE}${code.toLowerCase().replace(/_/g, '-')}`;

export const statusOf = (code: ErrorCode): number => PROBLEMS[code].status;

export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance: string;
  readonly code: ErrorCode;
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
  const body = { ...problemBody(error.code, error.message, requestId, instance), ...(error.status ? { status: error.status } : {}) };
  return {
    ...error.extensions,
    ...body,
    ...(error.errors.length > 0 ? { errors: error.errors } : {}),
  };
}

export function problemBody(code: ErrorCode, detail: string, requestId: string, instance: string): ProblemBody {
  const { status, title } = PROBLEMS[code];
  return { type: problemType(code), title, status, detail, instance, code, requestId };
}
