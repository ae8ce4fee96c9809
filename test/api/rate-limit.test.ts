import { call, expectProblem, startApi, type ApiFixture } from '../support/api';

/**
 * Tenant-fair throttling (issue 12): each key has its own budget (the usage plan's per-key
 * throttle, emulated by the local gateway as API Gateway applies it). Over it, the key gets
 * 429 RATE_LIMITED with Retry-After; another organization's key is not affected.
 */
let api: ApiFixture;

beforeAll(async () => {
  api = await startApi({ perKeyThrottle: { rateLimit: 0.5, burstLimit: 3 } });
});
afterAll(() => api.close());

describe('per-key throttling', () => {
  it('answers 429 RATE_LIMITED with Retry-After once a key has used its burst, and leaves other keys alone', async () => {
    const url = `${api.orgUrl()}/work-events?limit=1`;
    const statuses: number[] = [];
    let throttled;
    for (let i = 0; i < 5; i += 1) {
      const res = await call('GET', url, { token: api.demo.keys.readOnly });
      statuses.push(res.status);
      if (res.status === 429) throttled = res;
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    expectProblem(throttled!, 429, 'RATE_LIMITED');
    expect(throttled!.headers.get('retry-after')).toBe('1');

    const other = await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}/work-events?limit=1`, { token: api.demo.keys.otherOrganization });
    expect(other.status).toBe(200);
  });
});
