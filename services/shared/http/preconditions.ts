import { EtagRequiredError, IdempotencyKeyRequiredError, ValidationError } from '../errors';
import type { ApiRequest } from './request';

const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/**
 * The Idempotency-Key of a write: missing is 400 IDEMPOTENCY_KEY_REQUIRED; present but not
 * 1-255 printable ASCII characters is 400 VALIDATION_ERROR (decisions.md).
 */
export function requireIdempotencyKey(request: ApiRequest): string {
  const key = request.headers['idempotency-key'];
  if (key === undefined) throw new IdempotencyKeyRequiredError();
  return checkIdempotencyKey(key);
}

/** An optional Idempotency-Key (SCIM routes), checked the same way when present. */
export function optionalIdempotencyKey(request: ApiRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  return key === undefined ? undefined : checkIdempotencyKey(key);
}

function checkIdempotencyKey(key: string): string {
  if (!PRINTABLE_ASCII.test(key)) {
    throw new ValidationError(
      [{ header: 'Idempotency-Key', detail: `Must be 1 to 255 printable ASCII characters; got ${key.length} characters.` }],
      undefined,
      400,
    );
  }
  return key;
}

/** An optional If-Match (deletes, link changes): when sent, it must name the current ETag. */
export function optionalIfMatch(request: ApiRequest): string | undefined {
  const value = request.headers['if-match']?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** If-Match of a conditional write: missing is 428 ETAG_REQUIRED. */
export function requireIfMatch(request: ApiRequest): string {
  const value = request.headers['if-match'];
  if (value === undefined || value.trim() === '') throw new EtagRequiredError();
  return value.trim();
}
