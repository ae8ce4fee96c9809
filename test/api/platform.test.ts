import { randomUUID } from 'node:crypto';
import { issueApiKey } from '../../services/api-keys/issue';
import { revokeApiKey } from '../../services/api-keys/store';
import { startLocalGateway, type LocalGateway } from '../../services/local/gateway';
import { DEMO_IDS, seedDemo, type DemoData } from '../../services/local/seed';
import type { Db } from '../../services/shared/ddb/client';
import { countByType } from '../support/api';
import { createTestTable } from '../support/table';

let db: Db;
let demo: DemoData;
let cached: LocalGateway;
let base: string;

beforeAll(async () => {
  db = await createTestTable();
  demo = await seedDemo(db, 'platform-test-seed');
  // API Gateway caches the authorizer's policy per token: run with a cache, as deployed.
  cached = await startLocalGateway({ port: 0, host: '127.0.0.1', authorizerCacheSeconds: 300 });
  base = `${cached.url}/v1/organizations/${DEMO_IDS.organization}`;
});
afterAll(async () => cached?.close());

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function expectProblem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const requestId = res.headers.get('x-request-id');
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, requestId, type: expect.stringMatching(/^https:\/\//), title: expect.any(String), detail: expect.any(String) });
  return body;
}

describe('authentication (401 UNAUTHENTICATED, the same body whatever the reason)', () => {
  const reasons: [string, () => Record<string, string>][] = [
    ['no Authorization header', () => ({})],
    ['another scheme', () => ({ Authorization: `Basic ${demo.keys.admin}` })],
    ['a token of another shape', () => ({ Authorization: 'Bearer non-token' })],
    ['an unknown key', () => bearer('wfm_test_abcdefghijklmnopqrst.' + 'A'.repeat(43))],
    ['a wrong secret', () => bearer(demo.keys.admin.slice(0, -3) + 'AAA')],
    ['a LIVE key on the TEST host', () => bearer(demo.keys.live)],
  ];
  it.each(reasons)('rejects %s with WWW-Authenticate and X-Request-Id', async (_reason, headers) => {
    const res = await get(`${base}/timesheets`, headers());
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    const body = await expectProblem(res, 401, 'UNAUTHENTICATED');
    expect(body.detail).toBe('A valid API key is required: send it as "Authorization: Bearer <API key>".');
  });

  it('rejects a revoked key and an expired key', async () => {
    const revoked = await issueApiKey(db, { organizationId: DEMO_IDS.organization, environment: 'TEST', label: 'to revoke', scopes: ['audit:read'], now: new Date().toISOString() });
    await revokeApiKey(db, revoked.record.keyId, new Date().toISOString());
    await expectProblem(await get(`${base}/audit`, bearer(revoked.token)), 401, 'UNAUTHENTICATED');
    const expired = await issueApiKey(db, { organizationId: DEMO_IDS.organization, environment: 'TEST', label: 'expired', scopes: ['audit:read'], validUntil: '2020-01-01T00:00:00Z', now: new Date().toISOString() });
    await expectProblem(await get(`${base}/audit`, bearer(expired.token)), 401, 'UNAUTHENTICATED');
  });

  it('answers SCIM routes in the SCIM error schema', async () => {
    const res = await get(`${base}/scim/v2/Users`, { Authorization: 'non-token' });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/scim+json');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await res.json()).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401', detail: expect.any(String) });
  });
});

describe('authorization', () => {
  it('answers 403 ACCESS_DENIED to a key of another organization, also with its policy cached', async () => {
    const own = await get(`${cached.url}/v1/organizations/${DEMO_IDS.otherOrganization}/audit`, bearer(demo.keys.otherOrganization));
    expect(own.status).toBe(200);
    await expectProblem(await get(`${base}/audit`, bearer(demo.keys.otherOrganization)), 403, 'ACCESS_DENIED');
    await expectProblem(await get(`${base}/timesheets`, bearer(demo.keys.otherOrganization)), 403, 'ACCESS_DENIED');
  });

  it('keeps working on every other route of the organization after the policy is cached', async () => {
    for (const path of ['/audit', '/timesheets', '/work-events', '/audit?limit=1', `/timesheets/${DEMO_IDS.employees[0]}`]) {
      const res = await get(`${base}${path}`, bearer(demo.keys.admin));
      expect([200, 404]).toContain(res.status);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('answers 403 SCOPE_REQUIRED for a scope the key lacks', async () => {
    await expectProblem(await get(`${base}/audit`, bearer(demo.keys.scim)), 403, 'SCOPE_REQUIRED');
  });
});

describe('routing', () => {
  it('answers 404 RESOURCE_NOT_FOUND for an unknown route, before authentication', async () => {
    await expectProblem(await get(`${base}/nope`), 404, 'RESOURCE_NOT_FOUND');
    await expectProblem(await get(`${cached.url}/v2/anything`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('answers 405 METHOD_NOT_ALLOWED with Allow for a known route', async () => {
    const res = await fetch(`${base}/timesheets`, { method: 'DELETE', headers: bearer(demo.keys.admin) });
    expect(res.headers.get('allow')).toBe('GET, POST');
    await expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
  });

  it('gives every response its own request id', async () => {
    const a = await get(`${base}/audit`, bearer(demo.keys.admin));
    const b = await get(`${base}/audit`, bearer(demo.keys.admin));
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});

describe('request bodies', () => {
  const postLocation = (body: string | Uint8Array, contentType: string) =>
    fetch(`${base}/locations`, { method: 'POST', headers: { ...bearer(demo.keys.admin), 'Content-Type': contentType, 'Idempotency-Key': randomUUID() }, body });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE, saying only UTF-8 is accepted, to a body declared in another charset, writing nothing', async () => {
    const before = await countByType(db);
    const json = JSON.stringify({ name: 'Lager Müller' });
    const sent: [string, Uint8Array][] = [
      ['application/json; charset=utf-16', Buffer.from(`\ufeff${json}`, 'utf16le')],
      ['application/json; charset=UTF-16LE', Buffer.from(json, 'utf16le')],
      ['application/json; charset="latin1"', Buffer.from(json, 'latin1')],
      ['Application/JSON;Charset=ISO-8859-1', Buffer.from(json, 'latin1')],
      // Bytes that are UTF-8 do not make another declared charset right.
      ['application/json; charset=windows-1252', Buffer.from(json, 'utf8')],
    ];
    for (const [contentType, bytes] of sent) {
      const problem = await expectProblem(await postLocation(bytes, contentType), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(problem.detail).toMatch(/only UTF-8 is accepted/);
    }
    expect(await countByType(db)).toEqual(before);
  });

  it('accepts UTF-8 declared in any case or quoting, and no charset', async () => {
    for (const contentType of ['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf-8"']) {
      const name = `Lager Süd ${randomUUID().slice(0, 8)}`;
      const res = await postLocation(JSON.stringify({ name }), contentType);
      expect([contentType, res.status]).toEqual([contentType, 201]);
      expect(((await res.json()) as { name: string }).name).toBe(name);
    }
  });

  it('refuses a name holding a bidi override or a control character: 422 VALIDATION_ERROR at /name, nothing written', async () => {
    const before = await countByType(db);
    for (const name of ['invoice\u202Efdp.exe', 'Lager \u2066Nord\u2069', 'Lager\nNord', 'Lager\u0085Nord']) {
      const problem = await expectProblem(await postLocation(JSON.stringify({ name }), 'application/json'), 422, 'VALIDATION_ERROR');
      expect(problem.errors).toEqual([{ pointer: '/name', detail: expect.stringMatching(/^name must not contain control characters .*found U\+[0-9A-F]{4} at character \d+\.$/) }]);
    }
    expect(await countByType(db)).toEqual(before);
  });
});
