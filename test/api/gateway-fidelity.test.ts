import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { call, expectProblem, itemsOfType, startApi, type ApiFixture } from '../support/api';
import { withCapturedLogs } from '../support/logs';

/**
 * The local gateway behaves as API Gateway does where the black-box tests found it did not:
 * problem bodies and X-Request-Id on every response, paths matched as sent, and a repeated
 * header handed over as API Gateway does (last value), never joined with a comma.
 */
let api: ApiFixture;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

/** A raw request: fetch would normalize the path and refuse some headers. */
function raw(path: string, headers: Record<string, string | string[]>, method = 'GET', body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(api.gateway.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

const orgPath = () => new URL(api.orgUrl()).pathname;

describe('local gateway fidelity', () => {
  it('answers headers over 10240 bytes with 431, a problem body and X-Request-Id', async () => {
    const res = await raw(`${orgPath()}/audit`, { Authorization: `Bearer ${api.demo.keys.admin}`, 'X-Padding': 'x'.repeat(11_000) });
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(res.body)).toMatchObject({ status: 431, code: 'BAD_REQUEST', requestId: res.headers['x-request-id'] });
  });

  it('answers even headers Node cannot parse with a problem body and X-Request-Id', async () => {
    const res = await raw(`${orgPath()}/audit`, { 'X-Padding': 'x'.repeat(70_000) }).catch(() => undefined);
    if (res === undefined) return; // the socket may close first on some Node versions
    expect(res.status).toBe(431);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('does not read a backslash as a slash: such a path names no route', async () => {
    const res = await raw(`${orgPath()}\\audit`, { Authorization: `Bearer ${api.demo.keys.admin}` });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('hands over the last of two If-Match headers, as API Gateway does, not both joined', async () => {
    const created = await call('POST', `${api.orgUrl()}/materials`, { token: api.demo.keys.admin, body: { name: 'Grout' }, idempotencyKey: 'fidelity-1' });
    const etag = created.headers.get('etag')!;
    const url = `${new URL(created.headers.get('location')!, api.gateway.url).pathname}`;
    const patch = (ifMatch: string[]) =>
      raw(url, { Authorization: `Bearer ${api.demo.keys.admin}`, 'Content-Type': 'application/json', 'If-Match': ifMatch }, 'PATCH', JSON.stringify({ name: 'Grout 2' }));
    // Joined, the two would read as a list that names the current ETag, and pass.
    const stale = await patch([etag, '"material:other:v9"']);
    expect(stale.status).toBe(412);
    const fresh = await patch(['"material:other:v9"', etag]);
    expect(fresh.status).toBe(200);
  });

  it("never takes a client-sent forward header on a SCIM route: the request id, the logs' and the audit entry's, stays the gateway's", async () => {
    const forged = 'client-chosen-request-id-1';
    const user = (n: string) => ({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: `forge.${n}@contoso.example`, externalId: `forge-${n}`, name: { givenName: 'Forge', familyName: 'Test' }, emails: [{ primary: true, value: `forge.${n}@contoso.example`, type: 'work' }], active: true });
    const send = (headers: Record<string, string | string[]>) => {
      const body = JSON.stringify(user(randomUUID().slice(0, 8)));
      return raw(`${orgPath()}/scim/v2/Users`, { Authorization: `Bearer ${api.demo.keys.scim}`, 'Content-Type': 'application/scim+json', ...headers }, 'POST', body);
    };
    // As sent by a client in any case, twice, or with the origin header beside it.
    const answers = [
      await send({ 'X-Wfm-Forwarded-Request-Id': forged }),
      await send({ 'x-wfm-forwarded-request-id': forged, 'X-Wfm-Origin': 'guessed' }),
      await send({ 'X-WFM-FORWARDED-REQUEST-ID': [forged, forged] }),
    ];
    const audits = await itemsOfType(api.db, 'AuditEntry');
    const ids = new Set<string>();
    for (const res of answers) {
      expect(res.status).toBe(201);
      const requestId = res.headers['x-request-id'] as string;
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(requestId);
      const created = JSON.parse(res.body) as { id: string };
      const audit = audits.filter((a) => a.entity?.id === created.id);
      expect(audit.map((a) => a.requestId)).toEqual([requestId]);
    }
    // Each request its own id; none the client's.
    expect(ids.size).toBe(3);
    expect(JSON.stringify(audits)).not.toContain(forged);
    // A refusal is answered and logged under the gateway's id as well.
    const { result: refused, logs } = await withCapturedLogs(() => raw(`${orgPath()}/scim/v2/Users/${randomUUID()}`, { Authorization: `Bearer ${api.demo.keys.scim}`, 'X-Wfm-Forwarded-Request-Id': forged }));
    expect(refused.status).toBe(404);
    expect(refused.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(logs).toContain(refused.headers['x-request-id'] as string);
    expect(logs).not.toContain(forged);
  });

  it('still answers a known route normally', async () => {
    expectProblem(await call('GET', `${api.orgUrl()}/audit`), 401, 'UNAUTHENTICATED');
  });
});

describe('Location of an area create', () => {
  it('is the absolute URL on the configured base, whatever Host and X-Forwarded-* the client sends', async () => {
    const body = JSON.stringify({ name: `Forged host ${Date.now()}` });
    const res = await raw(`${orgPath()}/locations`, {
      Authorization: `Bearer ${api.demo.keys.admin}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': `forged-${Date.now()}`,
      Host: 'evil.example',
      'X-Forwarded-Host': 'evil.example',
      'X-Forwarded-Proto': 'gopher',
    }, 'POST', body);
    expect(res.status).toBe(201);
    const id = (JSON.parse(res.body) as { id: string }).id;
    expect(res.headers.location).toBe(`${api.orgUrl()}/locations/${id}`);
  });
});
