import { startScimHarness, type ScimHarness } from './scim-harness';

let h: ScimHarness;
beforeAll(async () => {
  h = await startScimHarness();
});
afterAll(async () => {
  await h.close();
});

const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

const expectScimError = (res: { status: number; headers: Headers; json: Record<string, unknown> }, status: number, scimType?: string) => {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/scim+json');
  expect(res.headers.get('x-request-id')).toBeTruthy();
  expect(res.json).toMatchObject({ schemas: [ERROR_SCHEMA], status: String(status), detail: expect.stringMatching(/\S/) });
  if (scimType) expect(res.json.scimType).toBe(scimType);
  else expect(res.json.scimType).toBeUndefined();
};

describe('discovery', () => {
  it('serves ServiceProviderConfig as application/scim+json with X-Request-Id', async () => {
    const res = await h.request('GET', '/ServiceProviderConfig');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/scim+json');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.json).toMatchObject({ patch: { supported: true }, filter: { supported: true, maxResults: 200 }, etag: { supported: true }, bulk: { supported: false } });
    expect(res.json.meta.location).toBe(`${h.gateway.url}/v1/organizations/${h.orgA}/scim/v2/ServiceProviderConfig`);
  });

  it('lists the User resource type only, at /Users, and serves it by id', async () => {
    const list = await h.request('GET', '/ResourceTypes');
    expect(list.json).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 1, itemsPerPage: 1, startIndex: 1 });
    expect(list.json.Resources[0]).toMatchObject({ id: 'User', endpoint: '/Users' });
    expect((await h.request('GET', '/ResourceTypes/User')).json).toMatchObject({ id: 'User', endpoint: '/Users' });
    expectScimError((await h.request('GET', '/ResourceTypes/Group')) as never, 404);
  });

  it('lists the User and enterprise schemas ("User Account") and serves each by its URN', async () => {
    const list = await h.request('GET', '/Schemas');
    expect(list.status).toBe(200);
    expect(list.text).toContain('User Account');
    expect(list.json.Resources.map((s: { id: string }) => s.id)).toEqual(['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User']);
    const one = await h.request('GET', '/Schemas/urn:ietf:params:scim:schemas:extension:enterprise:2.0:User');
    expect(one.json).toMatchObject({ name: 'EnterpriseUser' });
    expectScimError((await h.request('GET', '/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group')) as never, 404);
  });

  it('does not serve Groups', async () => {
    expectScimError((await h.request('GET', '/Groups')) as never, 404);
  });
});

describe('authentication and authorization in the SCIM error schema', () => {
  it('answers 401 for Okta’s "Authorization: non-token" and for no key at all', async () => {
    const nonToken = await h.request('GET', '/Users?filter=userName%20eq%20%22x%22', { token: null, headers: { Authorization: 'non-token' } });
    expectScimError(nonToken as never, 401);
    expectScimError((await h.request('GET', '/Users', { token: null })) as never, 401);
    expectScimError((await h.request('GET', '/Users', { token: 'wfm_test_aaaaaaaaaaaaaaaaaaaa.bogus' })) as never, 401);
  });

  it('answers 403 to a key without the SCIM scopes', async () => {
    expectScimError((await h.request('GET', '/Users', { token: h.keys.noScim })) as never, 403);
    const readOnly = await h.request('POST', '/Users', { token: h.keys.readOnly, body: { userName: 'x' } });
    expectScimError(readOnly as never, 403);
    expect(readOnly.json.detail).toContain('scim:write');
  });

  it('never lets a key of organization B read or provision into organization A, whatever the URL says', async () => {
    const created = await h.request('POST', '/Users', { body: { userName: `a-only-${Date.now()}` } });
    expect(created.status).toBe(201);
    expectScimError((await h.request('GET', `/Users/${created.json.id}`, { token: h.keys.orgB })) as never, 403);
    expectScimError((await h.request('GET', '/Users', { token: h.keys.orgB })) as never, 403);
    expectScimError((await h.request('POST', '/Users', { token: h.keys.orgB, body: { userName: 'intruder' } })) as never, 403);
    expectScimError((await h.request('DELETE', `/Users/${created.json.id}`, { token: h.keys.orgB })) as never, 403);
    // Under its own URL, B does not see A's user either.
    expectScimError((await h.request('GET', `/Users/${created.json.id}`, { token: h.keys.orgB }, h.orgB)) as never, 404);
    expect((await h.request('GET', '/Users', { token: h.keys.orgB }, h.orgB)).json.totalResults).toBe(0);
    expect((await h.request('GET', `/Users/${created.json.id}`)).status).toBe(200);
  });
});

describe('media types', () => {
  it.each(['application/json', 'application/json; charset=utf-8', 'application/scim+json', 'application/scim+json; charset=utf-8', 'APPLICATION/SCIM+JSON', 'application/scim+json; charset="UTF-8"'])(
    'accepts a body sent as %s and answers application/scim+json',
    async (contentType) => {
      const res = await h.request('POST', '/Users', { body: { userName: `mt-${Math.random()}` }, headers: { 'Content-Type': contentType, Accept: '*/*' } });
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toBe('application/scim+json');
    },
  );

  it('answers GETs whatever Accept and Content-Type Okta sends', async () => {
    const res = await h.request('GET', '/Users?count=1&startIndex=1', {
      headers: { Accept: 'application/scim+json', 'Accept-Charset': 'utf-8', 'Content-Type': 'application/scim+json; charset=utf-8' },
    });
    expect(res.status).toBe(200);
    for (const accept of ['application/json', 'application/scim+json; charset=UTF-8', '*/*', 'application/*']) {
      expect([accept, (await h.request('GET', '/Users?count=1', { headers: { Accept: accept } })).status]).toEqual([accept, 200]);
    }
  });

  it('answers 406 in the SCIM error schema when Accept names neither SCIM nor JSON', async () => {
    expectScimError((await h.request('GET', '/Users?count=1', { headers: { Accept: 'application/xml' } })) as never, 406);
  });

  it('answers 415 for another media type, 400 invalidSyntax for malformed JSON, 413 above 64 KiB', async () => {
    expectScimError((await h.request('POST', '/Users', { rawBody: 'userName=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })) as never, 415);
    expectScimError((await h.request('POST', '/Users', { rawBody: '{ "acve": tre, "adadfdresses": [ ' })) as never, 400, 'invalidSyntax');
    expectScimError((await h.request('POST', '/Users', { body: { userName: 'x', title: 'x'.repeat(70 * 1024) } })) as never, 413);
  });

  it('answers 415 in the SCIM error schema to a body declared in a charset other than UTF-8, creating nobody', async () => {
    const userName = `charset-${Math.random()}`;
    for (const contentType of ['application/scim+json; charset=utf-16', 'application/scim+json; charset="ISO-8859-1"', 'application/json; charset=latin1']) {
      const res = await h.request('POST', '/Users', { body: { userName }, headers: { 'Content-Type': contentType } });
      expectScimError(res as never, 415);
      expect(res.json.detail).toMatch(/only UTF-8 is accepted/);
    }
    const found = await h.request('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    expect(found.json.totalResults).toBe(0);
  });

  it('answers 405 in the SCIM error schema for a method the route does not have', async () => {
    const res = await h.request('PATCH', '/Users');
    expect(res.status).toBe(405);
    expect(res.json).toMatchObject({ schemas: [ERROR_SCHEMA], status: '405' });
  });
});
