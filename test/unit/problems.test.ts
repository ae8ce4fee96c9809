import { AppError, NotFoundError, ScopeRequiredError, ServiceUnavailableError, ValidationError } from '../../services/shared/errors';
import { renderProblem } from '../../services/shared/http/render-problem';
import { PROBLEMS, problemType, toProblem } from '../../services/shared/http/problems';

describe('toProblem', () => {
  it('gives RFC 9457 members plus code and requestId', () => {
    expect(toProblem(new NotFoundError('Time entry x'), 'req-1', '/v1/x')).toEqual({
      type: 'https://errors.wfm-api.example/resource-not-found',
      title: 'Resource not found',
      status: 404,
      detail: 'Time entry x does not exist in this organization.',
      instance: '/v1/x',
      code: 'RESOURCE_NOT_FOUND',
      requestId: 'req-1',
    });
  });

  it('adds validation errors with pointers and extension members', () => {
    const body = toProblem(new ValidationError([{ pointer: '/endedAt', detail: 'bad' }]), 'r', '/i');
    expect(body).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', errors: [{ pointer: '/endedAt', detail: 'bad' }] });
    expect(toProblem(new ScopeRequiredError(['timesheets:write']), 'r', '/i')).toMatchObject({ status: 403, code: 'SCOPE_REQUIRED', requiredScopes: ['timesheets:write'] });
  });

  it('never shows the message of an unknown error or an INTERNAL_ERROR', () => {
    const leaky = new Error('ResourceNotFoundException: Requested resource not found: Table: wfm-prod-Table not found at /var/task/index.js:1');
    for (const error of [leaky, new AppError('INTERNAL_ERROR', 'table wfm-prod')]) {
      const body = toProblem(error, 'r', '/i');
      expect(body).toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
      expect(JSON.stringify(body)).not.toMatch(/Table|wfm-prod|var\/task|Exception/);
    }
  });

  it('lets decisions override a status (Idempotency-Key format is 400)', () => {
    expect(toProblem(new ValidationError([{ header: 'Idempotency-Key', detail: 'x' }], undefined, 400), 'r', '/i').status).toBe(400);
  });

  it('has a stable type URI and a title for every code', () => {
    for (const code of Object.keys(PROBLEMS) as (keyof typeof PROBLEMS)[]) {
      expect(problemType(code)).toMatch(/^https:\/\/errors\.wfm-api\.example\/[a-z-]+$/);
      expect(PROBLEMS[code].title).not.toBe('');
    }
  });
});

describe('renderProblem', () => {
  it('answers application/problem+json with Retry-After for retryable errors', () => {
    const result = renderProblem(new ServiceUnavailableError(), 'r', '/i');
    expect(result).toMatchObject({ statusCode: 503, contentType: 'application/problem+json', headers: { 'Retry-After': '2' } });
  });
  it('adds WWW-Authenticate to 401', () => {
    expect(renderProblem(new AppError('UNAUTHENTICATED', 'x'), 'r', '/i').headers).toMatchObject({ 'WWW-Authenticate': 'Bearer' });
  });
});
