import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { getEmployee } from '../../services/employees/public';
import { entraUser, startScimHarness, type ScimHarness } from './scim-harness';
import { withCapturedLogs } from '../support/logs';

/**
 * Issue 11's SCIM findings, each seen from outside: Idempotency-Key on every write, public
 * URLs from configuration (never from Host / X-Forwarded-Proto), bursts of PATCHes without
 * If-Match, no personal data in the logs of racing writes, and the smaller contract gaps.
 */
let h: ScimHarness;
beforeAll(async () => {
  h = await startScimHarness();
});
afterAll(async () => {
  await h.close();
});

const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const patchOps = (...Operations: unknown[]) => ({ schemas: [PATCH_OP], Operations });

async function create(overrides: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/Users', { body: entraUser(overrides) });
  expect(res.status).toBe(201);
  return res.json as { id: string; userName: string; meta: { location: string } };
}

describe('Idempotency-Key on PUT, PATCH and DELETE', () => {
  it('PATCH: replays the first answer for the same key and body, 409 for another body, applied once', async () => {
    const user = await create();
    const key = randomUUID();
    const body = patchOps({ op: 'add', path: 'phoneNumbers', value: [{ type: 'work', value: '+49 30 1' }] });
    const first = await h.request('PATCH', `/Users/${user.id}`, { body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(200);
    const replay = await h.request('PATCH', `/Users/${user.id}`, { body, headers: { 'Idempotency-Key': key } });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));

    const other = await h.request('PATCH', `/Users/${user.id}`, { body: patchOps({ op: 'replace', path: 'title', value: 'Boss' }), headers: { 'Idempotency-Key': key } });
    expect(other).toMatchObject({ status: 409, json: { schemas: [ERROR_SCHEMA], status: '409' } });
    const stored = await getEmployee(h.db, h.orgA, user.id);
    expect(stored).toMatchObject({ version: 2, phoneNumbers: [{ type: 'work', value: '+49 30 1' }] });
    expect(stored?.title).toBeUndefined();
  });

  it('PUT: replays for the same key and body, 409 for another body', async () => {
    const user = await create();
    const key = randomUUID();
    const body = entraUser({ userName: user.userName, displayName: 'Put Once' });
    const first = await h.request('PUT', `/Users/${user.id}`, { body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(200);
    const replay = await h.request('PUT', `/Users/${user.id}`, { body, headers: { 'Idempotency-Key': key } });
    expect(replay).toMatchObject({ status: 200, text: first.text });
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    const other = await h.request('PUT', `/Users/${user.id}`, { body: { ...body, displayName: 'Put Twice' }, headers: { 'Idempotency-Key': key } });
    expect(other).toMatchObject({ status: 409, json: { schemas: [ERROR_SCHEMA], status: '409' } });
    expect((await getEmployee(h.db, h.orgA, user.id))?.displayName).toBe('Put Once');
  });

  it('DELETE: a repeated DELETE with the same key replays the 204 instead of answering 404', async () => {
    const user = await create();
    const key = randomUUID();
    const first = await h.request('DELETE', `/Users/${user.id}`, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(204);
    const replay = await h.request('DELETE', `/Users/${user.id}`, { headers: { 'Idempotency-Key': key } });
    expect(replay.status).toBe(204);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect((await h.request('DELETE', `/Users/${user.id}`)).status).toBe(404);
  });

  it('takes keys of 1 to 255 characters: a 256-character key is 400 and changes nothing', async () => {
    const user = await create();
    const body = patchOps({ op: 'replace', path: 'title', value: 'Keyed' });
    const long = await h.request('PATCH', `/Users/${user.id}`, { body, headers: { 'Idempotency-Key': 'k'.repeat(256) } });
    expect(long).toMatchObject({ status: 400, json: { schemas: [ERROR_SCHEMA], status: '400' } });
    expect((await getEmployee(h.db, h.orgA, user.id))?.version).toBe(1);
    expect((await h.request('PATCH', `/Users/${user.id}`, { body, headers: { 'Idempotency-Key': 'k'.repeat(255) } })).status).toBe(200);
    expect((await h.request('DELETE', `/Users/${user.id}`, { headers: { 'Idempotency-Key': 'd'.repeat(256) } })).status).toBe(400);
    expect((await h.request('PUT', `/Users/${user.id}`, { body: entraUser({ userName: user.userName }), headers: { 'Idempotency-Key': 'p'.repeat(256) } })).status).toBe(400);
  });
});

/** A request with headers fetch() refuses to set (Host). */
function rawRequest(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const url = new URL(`${h.gateway.url}/v1/organizations/${h.orgA}/scim/v2${path}`);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: { Authorization: `Bearer ${h.keys.scim}`, ...(payload ? { 'Content-Type': 'application/scim+json' } : {}), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

describe('public URLs come from configuration, never from request headers', () => {
  const forged = { Host: 'evil.example', 'X-Forwarded-Proto': 'gopher', 'X-Forwarded-Host': 'evil.example' };

  it('builds Location and meta.location of a create (and its stored replay) from the stage base URL', async () => {
    const key = randomUUID();
    const body = entraUser();
    const res = await rawRequest('POST', '/Users', { ...forged, 'Idempotency-Key': key }, body);
    expect(res.status).toBe(201);
    const json = JSON.parse(res.text) as { id: string; meta: { location: string } };
    const expected = `${h.gateway.url}/v1/organizations/${h.orgA}/scim/v2/Users/${json.id}`;
    expect(res.headers.location).toBe(expected);
    expect(json.meta.location).toBe(expected);
    expect(res.text).not.toContain('evil.example');
    expect(res.text).not.toContain('gopher');

    const replay = await h.request('POST', '/Users', { body, headers: { 'Idempotency-Key': key } });
    expect(replay.headers.get('location')).toBe(expected);
    expect(replay.text).not.toContain('evil.example');
  });

  it('builds the discovery documents’ and a read user’s locations the same way', async () => {
    const user = await create();
    for (const path of ['/ServiceProviderConfig', '/ResourceTypes', '/Schemas', `/Users/${user.id}`, '/Users']) {
      const res = await rawRequest('GET', path, forged);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('evil.example');
      expect(res.text).toContain(`${h.gateway.url}/v1/organizations/${h.orgA}/scim/v2/`);
    }
  });
});

describe('a burst of PATCHes without If-Match on one user', () => {
  it('answers 200 to all 16, ends in the state of one serial order, and logs no personal data', async () => {
    const user = await create({ displayName: 'Solveig Burst' });
    const n = 16;
    const { result: results, logs } = await withCapturedLogs(() =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          h.request('PATCH', `/Users/${user.id}`, {
            body: patchOps({ op: 'replace', path: 'title', value: `t${i}` }, { op: 'add', path: 'phoneNumbers', value: [{ type: 'other', value: `p${i}` }] }),
          }),
        ),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(n).fill(200));

    const stored = await getEmployee(h.db, h.orgA, user.id);
    expect(stored?.version).toBe(n + 1);
    const order = (stored?.phoneNumbers ?? []).map((p) => p.value);
    // Every PATCH applied exactly once, and the last one applied set the title.
    expect([...order].sort()).toEqual(Array.from({ length: n }, (_, i) => `p${i}`).sort());
    expect(stored?.title).toBe(`t${order[order.length - 1].slice(1)}`);

    const text = logs.toLowerCase();
    for (const value of [user.userName.toLowerCase(), 'solveig', 'contoso.example']) expect(text).not.toContain(value);
  });
});

describe('smaller contract gaps', () => {
  it('answers 400 invalidValue for a schemas array without the core User URN', async () => {
    const post = await h.request('POST', '/Users', { body: entraUser({ schemas: ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'] }) });
    expect(post).toMatchObject({ status: 400, json: { schemas: [ERROR_SCHEMA], status: '400', scimType: 'invalidValue' } });
    const user = await create();
    const put = await h.request('PUT', `/Users/${user.id}`, { body: entraUser({ userName: user.userName, schemas: ['urn:example:other'] }) });
    expect(put).toMatchObject({ status: 400, json: { scimType: 'invalidValue' } });
    expect((await h.request('POST', '/Users', { body: entraUser({ schemas: [CORE.toUpperCase()] }) })).status).toBe(201);
  });

  it('answers 400 invalidValue for control characters in userName', async () => {
    for (const userName of ['tab\there@contoso.example', 'nul\u0000@contoso.example', 'line\nbreak@contoso.example', 'del\u007f@contoso.example']) {
      const res = await h.request('POST', '/Users', { body: entraUser({ userName }) });
      expect(res).toMatchObject({ status: 400, json: { schemas: [ERROR_SCHEMA], status: '400', scimType: 'invalidValue' } });
    }
    const user = await create();
    const patch = await h.request('PATCH', `/Users/${user.id}`, { body: patchOps({ op: 'replace', path: 'userName', value: 'bell\u0007@contoso.example' }) });
    expect(patch).toMatchObject({ status: 400, json: { scimType: 'invalidValue' } });
    // The detail of the employees API's 422 at /userName: one rule, one message, the position and never the value.
    expect(patch.json.detail).toMatch(/^userName must not contain control characters .*; found U\+0007 at character 5\.$/);
    expect(patch.json.detail).not.toContain('contoso');
  });

  it('answers a startIndex past the end with an empty page and the true totalResults (RFC 7644 §3.4.2.4)', async () => {
    const user = await create();
    const filter = encodeURIComponent(`userName eq "${user.userName}"`);
    for (const startIndex of ['2', '1000', '99999999999', '123456789012345']) {
      const res = await h.request('GET', `/Users?filter=${filter}&startIndex=${startIndex}`);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ totalResults: 1, itemsPerPage: 0, Resources: [] });
      expect(res.json.startIndex).toBe(Number(startIndex));
    }
  });
});
