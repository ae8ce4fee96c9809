import { AppError } from '../errors';
import type { ErrorRenderer } from './middleware';
import { statusOfError, toProblem } from './problems';

/** The problem+json (RFC 9457) rendering of an error: every area's error format except SCIM's. */
export const renderProblem: ErrorRenderer = (error, requestId, instance) => {
  const body = toProblem(error, requestId, instance);
  const retryAfter = error instanceof AppError ? error.retryAfterSeconds : undefined;
  return {
    statusCode: statusOfError(error),
    headers: {
      ...(retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : {}),
      ...(body.code === 'UNAUTHENTICATED' ? { 'WWW-Authenticate': 'Bearer' } : {}),
    },
    body,
    contentType: 'application/problem+json',
  };
};
