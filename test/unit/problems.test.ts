import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AREAS } from '../../services/registry';
import { routeRows } from '../../services/shared/area';
import { AppError, defineProblems, NotFoundError, ScopeRequiredError, ServiceUnavailableError, ValidationError } from '../../services/shared/errors';
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

describe("areas' own problem codes", () => {
  const areaCodes = AREAS.flatMap((area) => Object.values(area.problems ?? {}).map((problem) => ({ area: area.name, problem })));
  const errorsDoc = readFileSync(join(__dirname, '../../docs/errors.md'), 'utf8');

  it('are declared once, never shadow a platform code, and follow <RESOURCE>_<STATE> style', () => {
    const codes = areaCodes.map(({ problem }) => problem.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) {
      expect(Object.keys(PROBLEMS)).not.toContain(code);
      expect(code).toMatch(/^[A-Z]+(_[A-Z]+)+$/);
    }
    expect(codes.length).toBeGreaterThan(20);
  });

  it('are what routes list: every area problem a route names is registered by some area', () => {
    const registered = new Set(areaCodes.map(({ problem }) => problem));
    for (const area of AREAS) {
      for (const route of routeRows(area)) {
        for (const ref of route.problems) {
          if (typeof ref === 'string') expect(Object.keys(PROBLEMS)).toContain(ref);
          else expect(registered.has(ref)).toBe(true);
        }
      }
    }
  });

  it('are each documented in docs/errors.md with their status', () => {
    for (const { problem } of areaCodes) expect(errorsDoc).toMatch(new RegExp(`\\| ${problem.status} \\|[^\\n]*\`${problem.code}\``));
    for (const [code, { status }] of Object.entries(PROBLEMS)) expect(errorsDoc).toMatch(new RegExp(`\\| ${status} \\|[^\\n]*\`${code}\``));
  });

  it('render with their own status, title and type', () => {
    const problem = defineProblems({ THING_FROZEN: { status: 409, title: 'Thing is frozen' } }).THING_FROZEN;
    const rendered = renderProblem(new AppError(problem, 'Thing 1 is frozen.', { extensions: { state: 'FROZEN' } }), 'r', '/i');
    expect(rendered.statusCode).toBe(409);
    expect(rendered.body).toMatchObject({ type: 'https://errors.wfm-api.example/thing-frozen', title: 'Thing is frozen', status: 409, code: 'THING_FROZEN', detail: 'Thing 1 is frozen.', state: 'FROZEN' });
  });
});
