import { ScimError, invalidFilter } from '../../services/scim/domain-errors';
import { renderScimError } from '../../services/scim/handler-errors';
import {
  AccessDeniedError,
  AppError,
  EtagMismatchError,
  IdempotencyInProgressError,
  IdempotencyKeyReusedError,
  NotFoundError,
  ScopeRequiredError,
  TransactionConflictError,
  UnauthenticatedError,
  UniquenessConflictError,
  ValidationError,
} from '../../services/shared/errors';

const render = (error: unknown) => renderScimError(error, 'req-1', '/v1/organizations/o/scim/v2/Users');
const SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

describe('renderScimError', () => {
  it.each([
    ['uniqueness', new UniquenessConflictError('userName'), 409, 'uniqueness'],
    ['a validation problem (400, not 422)', new ValidationError([{ pointer: '/userName', detail: 'Required.' }]), 400, 'invalidValue'],
    ['malformed JSON', new AppError('MALFORMED_JSON', 'The request body is not valid JSON.'), 400, 'invalidSyntax'],
    ['an invalid filter', invalidFilter('Filtering on "title" is not supported.'), 400, 'invalidFilter'],
    ['a mutability error', new ScimError('mutability', 'id is readOnly.', 'BAD_REQUEST'), 400, 'mutability'],
    ['an unknown user', new NotFoundError('User x'), 404, undefined],
    ['a stale If-Match', new EtagMismatchError(), 412, undefined],
    ['a missing scope', new ScopeRequiredError(['scim:write']), 403, undefined],
    ['another organization', new AccessDeniedError(), 403, undefined],
    ['a missing key', new UnauthenticatedError(), 401, undefined],
    ['an unsupported media type', new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send application/scim+json.'), 415, undefined],
    ['a too large body', new AppError('PAYLOAD_TOO_LARGE', 'Too large.'), 413, undefined],
    ['a reused Idempotency-Key', new IdempotencyKeyReusedError(), 409, undefined],
  ])('renders %s in the SCIM error schema', (_name, error, status, scimType) => {
    const result = render(error);
    expect(result.statusCode).toBe(status);
    expect(result.contentType).toBe('application/scim+json');
    expect(result.body).toEqual({ schemas: [SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail: (error as Error).message });
    expect((error as Error).message.length).toBeGreaterThan(0);
  });

  it('asks for a bearer token on 401', () => {
    expect(render(new UnauthenticatedError()).headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
  });

  it('says when to retry a request in progress or a lost transaction race', () => {
    expect(render(new IdempotencyInProgressError()).headers).toEqual({ 'Retry-After': '1' });
    expect(render(new TransactionConflictError())).toMatchObject({ statusCode: 503, headers: { 'Retry-After': '1' } });
  });

  it('never shows the message of an unexpected error', () => {
    const result = render(new Error('ResourceNotFoundException: table wfm-prod-Table not found'));
    expect(result.statusCode).toBe(500);
    expect(result.body).toEqual({ schemas: [SCHEMA], status: '500', detail: expect.stringContaining('X-Request-Id') });
    expect(JSON.stringify(result.body)).not.toContain('wfm-prod');
    expect(render(new AppError('INTERNAL_ERROR', 'secret detail')).body).not.toMatchObject({ detail: 'secret detail' });
  });
});
