import { randomUUID } from 'node:crypto';
import { listAuditEntries } from '../../services/audit/store';
import { getEmployee } from '../../services/employees/store';
import { entraUser, oktaUser, startScimHarness, type ScimHarness } from './scim-harness';

let h: ScimHarness;
beforeAll(async () => {
  h = await startScimHarness();
});
afterAll(async () => {
  await h.close();
});

const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

const patchOps = (...Operations: unknown[]) => ({ schemas: [PATCH_OP], Operations });
const q = (filter: string) => `/Users?filter=${encodeURIComponent(filter)}`;

async function create(body: Record<string, unknown>) {
  const res = await h.request('POST', '/Users', { body, headers: { 'Content-Type': 'application/json' } });
  expect(res.status).toBe(201);
  return res;
}

describe('POST /Users', () => {
  it('creates the employee and answers 201 with Location, a weak ETag and meta', async () => {
    const body = entraUser({ [ENTERPRISE]: { employeeNumber: '701984', department: 'Facility', manager: { value: 'SuzzyQ' } } });
    const res = await create(body);
    const location = `${h.gateway.url}/v1/organizations/${h.orgA}/scim/v2/Users/${res.json.id}`;
    expect(res.headers.get('location')).toBe(location);
    expect(res.headers.get('etag')).toBe('W/"1"');
    expect(res.headers.get('content-type')).toBe('application/scim+json');
    expect(res.json).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE],
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      userName: body.userName,
      externalId: body.externalId,
      name: body.name,
      active: true,
      emails: [{ value: (body.emails as { value: string }[])[0].value, type: 'work', primary: true }],
      [ENTERPRISE]: { employeeNumber: '701984', department: 'Facility', manager: { value: 'SuzzyQ' } },
      meta: { resourceType: 'User', created: expect.any(String), lastModified: expect.any(String), location, version: 'W/"1"' },
    });
    // The SCIM user IS the organization's employee record.
    expect(await getEmployee(h.db, h.orgA, res.json.id)).toMatchObject({ userName: body.userName, givenName: 'Given', familyName: 'Family', employeeNumber: '701984', managerId: 'SuzzyQ', version: 1 });
  });

  it('creates Okta’s user, ignoring password, groups and locale, and never stores the password', async () => {
    const body = oktaUser();
    const res = await create(body);
    expect(res.json).toMatchObject({ userName: body.userName, name: { givenName: 'Test', familyName: 'User' }, active: true, displayName: 'Test User' });
    expect(res.text).not.toContain('1mz050nq');
    expect(JSON.stringify(await getEmployee(h.db, h.orgA, res.json.id))).not.toContain('1mz050nq');
  });

  it('stores "True" as the boolean true and ignores unknown attributes', async () => {
    const res = await create({ userName: `emp-${randomUUID()}`, active: 'True', adreses: [{ country: 'Bermuda' }], preferredLanguage: 'xh', roles: [] });
    expect(res.json.active).toBe(true);
    expect(res.text).not.toContain('Bermuda');
  });

  it('answers 409 uniqueness with a detail for a taken userName (any case) or externalId', async () => {
    const body = oktaUser();
    await create(body);
    for (const again of [{ ...oktaUser(), userName: (body.userName as string).toUpperCase() }, { ...oktaUser(), externalId: body.externalId }]) {
      const res = await h.request('POST', '/Users', { body: again });
      expect(res.status).toBe(409);
      expect(res.json).toEqual({ schemas: [ERROR_SCHEMA], status: '409', scimType: 'uniqueness', detail: expect.stringMatching(/already has this (userName|externalId)/) });
    }
  });

  it('trims userName and externalId before comparing: padded copies of a taken one are 409 uniqueness, a padded new one is stored trimmed', async () => {
    const body = entraUser();
    const taken = await create(body);
    for (const again of [entraUser({ userName: ` ${body.userName as string} ` }), entraUser({ userName: `\t${(body.userName as string).toUpperCase()}\n` }), entraUser({ externalId: `  ${body.externalId as string}  ` })]) {
      const res = await h.request('POST', '/Users', { body: again });
      expect(res.json).toEqual({ schemas: [ERROR_SCHEMA], status: '409', scimType: 'uniqueness', detail: expect.stringMatching(/already has this (userName|externalId)/) });
    }
    const userName = `Padded.${randomUUID()}@example.com`;
    const fresh = await create(entraUser({ userName: `  ${userName} `, externalId: ' ext-padded-new ' + randomUUID() }));
    expect(fresh.json.userName).toBe(userName);
    expect(fresh.json.externalId).toMatch(/^ext-padded-new [0-9a-f-]{36}$/);
    expect(await getEmployee(h.db, h.orgA, fresh.json.id)).toMatchObject({ userName, externalId: fresh.json.externalId });
    expect((await h.request('GET', q(`userName eq "${userName}"`))).json.totalResults).toBe(1);
    // PUT and PATCH trim too: another user's padded userName is taken, the own one padded is no change of name.
    const put = await h.request('PUT', `/Users/${fresh.json.id}`, { body: entraUser({ userName: ` ${body.userName as string} ` }) });
    expect(put.json).toMatchObject({ schemas: [ERROR_SCHEMA], status: '409', scimType: 'uniqueness' });
    const patch = await h.request('PATCH', `/Users/${fresh.json.id}`, { body: patchOps({ op: 'replace', path: 'userName', value: ` ${body.userName as string}` }) });
    expect(patch.json).toMatchObject({ schemas: [ERROR_SCHEMA], status: '409', scimType: 'uniqueness' });
    const own = await h.request('PATCH', `/Users/${fresh.json.id}`, { body: patchOps({ op: 'replace', path: 'userName', value: `${userName}   ` }) });
    expect(own.status).toBe(200);
    expect(own.json.userName).toBe(userName);
    expect((await getEmployee(h.db, h.orgA, taken.json.id))!.userName).toBe(body.userName);
    for (const blank of ['   ', '\t\n']) {
      const res = await h.request('POST', '/Users', { body: entraUser({ userName: blank }) });
      expect(res.json).toMatchObject({ schemas: [ERROR_SCHEMA], status: '400', scimType: 'invalidValue' });
    }
  });

  it('lets one of several concurrent POSTs of the same userName win; the others get 409 uniqueness', async () => {
    const userName = `Concurrent.${randomUUID()}@example.com`;
    const results = await Promise.all(Array.from({ length: 5 }, () => h.request('POST', '/Users', { body: entraUser({ userName }) })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.json).toMatchObject({ status: '409', scimType: 'uniqueness' });
    expect((await h.request('GET', q(`userName eq "${userName}"`))).json.totalResults).toBe(1);
  });

  it('answers 400 invalidValue for a missing userName and for any role value; accepts roles: []', async () => {
    const noUserName = await h.request('POST', '/Users', { body: { active: true, displayName: 'Nobody' } });
    expect(noUserName).toMatchObject({ status: 400, json: { schemas: [ERROR_SCHEMA], status: '400', scimType: 'invalidValue' } });
    const admin = await h.request('POST', '/Users', { body: entraUser({ roles: [{ value: 'Admin', primary: true }] }) });
    expect(admin).toMatchObject({ status: 400, json: { scimType: 'invalidValue', detail: expect.stringContaining('roles') } });
    await create(entraUser({ roles: [] }));
  });

  it('answers 400 invalidSyntax for a body that is not a User object', async () => {
    expect((await h.request('POST', '/Users', { body: [{ userName: 'x' }] })).json).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
    expect((await h.request('POST', '/Users')).json).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
  });
});

describe('Idempotency-Key on POST /Users', () => {
  it('replays the original 201 for the same key and body, and answers 409 for another body', async () => {
    const key = randomUUID();
    const body = entraUser();
    const first = await h.request('POST', '/Users', { body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    const replay = await h.request('POST', '/Users', { body, headers: { 'Idempotency-Key': key } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(replay.headers.get('content-type')).toBe('application/scim+json');
    expect(replay.json).toEqual(first.json);

    const other = await h.request('POST', '/Users', { body: entraUser(), headers: { 'Idempotency-Key': key } });
    expect(other).toMatchObject({ status: 409, json: { schemas: [ERROR_SCHEMA], status: '409' } });
    expect((await h.request('GET', q(`userName eq "${body.userName}"`))).json.totalResults).toBe(1);
  });

  it('creates without one (Entra and Okta never send it)', async () => {
    const res = await create(entraUser());
    expect(res.headers.get('idempotency-replayed')).toBeNull();
  });
});

describe('GET /Users/{id}', () => {
  it('answers the user with its ETag', async () => {
    const created = await create(entraUser());
    const res = await h.request('GET', `/Users/${created.json.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('W/"1"');
    expect(res.json).toEqual(created.json);
  });

  it.each(['010101001010101011001010101011', '00919288221112222', randomUUID()])('answers 404 in the SCIM error schema for %s', async (id) => {
    const res = await h.request('GET', `/Users/${id}`);
    expect(res).toMatchObject({ status: 404, json: { schemas: [ERROR_SCHEMA], status: '404', detail: expect.stringMatching(/\S/) } });
  });
});

describe('GET /Users', () => {
  let org: string;
  let token: string;
  const users: { id: string; userName: string; externalId: string; email: string; displayName: string }[] = [];
  const list = (path: string) => h.request('GET', path, { token }, org);

  beforeAll(async () => {
    // A quiet organization of its own.
    org = h.orgB;
    token = h.keys.orgB;
    for (let i = 0; i < 5; i += 1) {
      const n = randomUUID().slice(0, 8);
      const body = { userName: `List.User${i}.${n}@example.com`, externalId: `list-${i}-${n}`, displayName: i < 2 ? 'Shared Name' : `Person ${i}`, emails: [{ value: `list${i}.${n}@example.com`, type: i === 4 ? 'home' : 'work', primary: true }] };
      const res = await h.request('POST', '/Users', { token, body }, org);
      expect(res.status).toBe(201);
      users.push({ id: res.json.id, userName: body.userName, externalId: body.externalId, email: body.emails[0].value, displayName: body.displayName });
    }
  });

  it('pages with startIndex and count in a stable order, counts as JSON integers', async () => {
    const seen: string[] = [];
    for (const startIndex of [1, 3, 5]) {
      const res = await list(`/Users?startIndex=${startIndex}&count=2`);
      expect(res.json).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 5, startIndex });
      expect(res.json.itemsPerPage).toBe(res.json.Resources.length);
      expect(res.text).toMatch(/"totalResults":5,"startIndex":\d+,"itemsPerPage":\d+/);
      seen.push(...res.json.Resources.map((u: { id: string }) => u.id));
    }
    expect(seen).toEqual(users.map((u) => u.id));
    expect((await list('/Users')).json).toMatchObject({ totalResults: 5, itemsPerPage: 5, startIndex: 1 });
    expect((await list('/Users?startIndex=0&count=-3')).json).toMatchObject({ totalResults: 5, itemsPerPage: 0, startIndex: 1, Resources: [] });
    expect((await list('/Users?count=1000')).json.itemsPerPage).toBe(5);
  });

  it('answers an empty page as 200 with "Resources": []', async () => {
    const res = await list(q('userName eq "nobody@example.com"'));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
    expect((await list('/Users?startIndex=99')).json).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
  });

  it.each([
    ['userName (any case)', (u: (typeof users)[0]) => `userName eq "${u.userName.toUpperCase()}"`],
    ['externalId', (u: (typeof users)[0]) => `externalId eq "${u.externalId}"`],
    ['id', (u: (typeof users)[0]) => `id eq "${u.id}"`],
    ['emails.value', (u: (typeof users)[0]) => `emails.value eq "${u.email}"`],
    ['emails[type eq "work"].value', (u: (typeof users)[0]) => `emails[type eq "work"].value eq "${u.email}"`],
    ['an attribute name in another case', (u: (typeof users)[0]) => `USERNAME Eq "${u.userName}"`],
    ['an unquoted value', (u: (typeof users)[0]) => `externalId eq ${u.externalId}`],
    ['and', (u: (typeof users)[0]) => `userName eq "${u.userName}" and externalId eq "${u.externalId}"`],
  ])('filters with eq on %s', async (_name, filter) => {
    const res = await list(q(filter(users[1])));
    expect(res.json).toMatchObject({ totalResults: 1, itemsPerPage: 1 });
    expect(res.json.Resources[0].id).toBe(users[1].id);
  });

  it('filters on the work address only when the filter says work', async () => {
    expect((await list(q(`emails[type eq "work"].value eq "${users[4].email}"`))).json.totalResults).toBe(0);
    expect((await list(q(`emails.value eq "${users[4].email}"`))).json.totalResults).toBe(1);
    expect((await list(q(`userName eq "${users[1].userName}" and externalId eq "${users[2].externalId}"`))).json.totalResults).toBe(0);
  });

  it('reads + in the query string as a space, and accepts the trailing slash of Microsoft’s request', async () => {
    const res = await h.request('GET', '/Users/?filter=DisplayName+eq+%22Shared%20Name%22', { token }, org);
    expect(res.json.totalResults).toBe(2);
    expect(res.json.Resources.map((u: { id: string }) => u.id)).toEqual([users[0].id, users[1].id]);
  });

  it('answers 400 invalidFilter for filters outside eq/and', async () => {
    for (const filter of ['userName sw "L"', 'userName eq "a" or userName eq "b"', 'title eq "x"', 'name.familyName eq Employee and (emails.value co example.com)']) {
      const res = await list(q(filter));
      expect(res).toMatchObject({ status: 400, json: { schemas: [ERROR_SCHEMA], status: '400', scimType: 'invalidFilter', detail: expect.stringMatching(/\S/) } });
    }
  });

  it('accepts attributes and excludedAttributes, including attributes=emails[type eq "work"]', async () => {
    const res = await list(`/Users?attributes=${encodeURIComponent('emails[type eq "work"]')}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json.Resources[0]).sort()).toEqual(['emails', 'id', 'schemas']);
    const some = await list('/Users?attributes=userName,emails');
    expect(Object.keys(some.json.Resources[0]).sort()).toEqual(['emails', 'id', 'schemas', 'userName']);
    const excluded = await h.request('GET', `/Users/${users[0].id}?excludedAttributes=emails,meta`, { token }, org);
    expect(excluded.json).not.toHaveProperty('emails');
    expect(excluded.json).toHaveProperty('userName');
  });

  it('answers 400 invalidValue for a count that is not a number', async () => {
    expect((await list('/Users?count=ten')).json).toMatchObject({ status: '400', scimType: 'invalidValue', detail: expect.stringContaining('count') });
  });
});

describe('PUT /Users/{id}', () => {
  it('replaces the user with Okta’s whole-user body (id, meta, groups: [], password)', async () => {
    const created = await create(oktaUser({ title: 'Cleaner' }));
    const current = (await h.request('GET', `/Users/${created.json.id}`)).json;
    const res = await h.request('PUT', `/Users/${created.json.id}`, {
      body: { ...current, name: { givenName: 'Renamed', familyName: 'User' }, groups: [], password: 'x1y2z3', title: undefined },
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('W/"2"');
    expect(res.json).toMatchObject({ id: created.json.id, name: { givenName: 'Renamed', familyName: 'User' }, meta: { version: 'W/"2"', created: created.json.meta.created } });
    expect(res.json.title).toBeUndefined();
    expect(res.text).not.toContain('x1y2z3');
  });

  it('deactivates with active: false (the user stays visible) and reactivates with true', async () => {
    const body = oktaUser();
    const created = await create(body);
    const off = await h.request('PUT', `/Users/${created.json.id}`, { body: { ...body, active: false } });
    expect(off.json.active).toBe(false);
    expect((await h.request('GET', `/Users/${created.json.id}`)).json.active).toBe(false);
    expect((await h.request('GET', q(`userName eq "${body.userName}"`))).json.Resources[0].active).toBe(false);
    expect((await h.request('PUT', `/Users/${created.json.id}`, { body: { ...body, active: true } })).json.active).toBe(true);
  });

  it('answers 400 for a missing userName, 400 mutability for another id, 409 for a taken userName', async () => {
    const created = await create(entraUser());
    const other = await create(entraUser());
    expect((await h.request('PUT', `/Users/${created.json.id}`, { body: { userame: 'typo', active: false } })).json).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect((await h.request('PUT', `/Users/${created.json.id}`, { body: { ...created.json, id: other.json.id } })).json).toMatchObject({ status: '400', scimType: 'mutability' });
    expect((await h.request('PUT', `/Users/${created.json.id}`, { body: { ...created.json, userName: other.json.userName } })).json).toMatchObject({ status: '409', scimType: 'uniqueness' });
    expect((await h.request('PUT', `/Users/${created.json.id}`, { body: { ...created.json, roles: [{ value: 'Admin' }] } })).json).toMatchObject({ status: '400', scimType: 'invalidValue' });
  });
});

describe('PATCH /Users/{id}', () => {
  it('applies Entra’s default shape and answers 200 with the resource', async () => {
    const created = await create(entraUser());
    const res = await h.request('PATCH', `/Users/${created.json.id}`, {
      body: patchOps(
        { op: 'Replace', path: 'active', value: 'False' },
        { op: 'Add', path: 'nickName', value: 'Babs' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'new@contoso.example' },
        { op: 'Replace', path: 'name.givenName', value: 'Gtfd' },
        { op: 'Replace', path: 'name.familyName', value: 'Pkqf' },
        { op: 'Replace', path: 'externalId', value: `Eqpj-${randomUUID()}` },
        { op: 'Replace', path: `${ENTERPRISE}:employeeNumber`, value: 'Eqpj' },
        { op: 'Add', path: 'manager', value: [{ $ref: 'http://example/scim/Users/x', value: 'boss-id' }] },
      ),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('W/"2"');
    expect(res.json).toMatchObject({
      active: false,
      name: { givenName: 'Gtfd', familyName: 'Pkqf' },
      emails: [{ value: 'new@contoso.example', type: 'work', primary: true }],
      [ENTERPRISE]: { employeeNumber: 'Eqpj', manager: { value: 'boss-id' } },
    });
    expect((await h.request('GET', q(`emails[type eq "work"].value eq "new@contoso.example"`))).json.Resources.map((u: { id: string }) => u.id)).toEqual([created.json.id]);
  });

  it('applies Entra’s aadOptscim062020 shape (no-path value with dotted and URN-qualified keys)', async () => {
    const created = await create(entraUser());
    const res = await h.request('PATCH', `/Users/${created.json.id}`, {
      body: patchOps(
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'x@test.microsoft.example' },
        { op: 'replace', value: { displayName: 'Bjfe', 'name.givenName': 'Kkom', 'name.familyName': 'Unua', [`${ENTERPRISE}:employeeNumber`]: 'Aklq' } },
      ),
    });
    expect(res.json).toMatchObject({ displayName: 'Bjfe', name: { givenName: 'Kkom', familyName: 'Unua' }, emails: [{ value: 'x@test.microsoft.example' }], [ENTERPRISE]: { employeeNumber: 'Aklq' } });
  });

  it('deactivates and reactivates with Okta’s no-path boolean value', async () => {
    const created = await create(oktaUser());
    expect((await h.request('PATCH', `/Users/${created.json.id}`, { body: patchOps({ op: 'replace', value: { active: false } }) })).json.active).toBe(false);
    expect((await h.request('GET', `/Users/${created.json.id}`)).json.active).toBe(false);
    expect((await h.request('PATCH', `/Users/${created.json.id}`, { body: patchOps({ op: 'replace', value: { active: true } }) })).json.active).toBe(true);
  });

  it('changes userName and frees the old one in the same step', async () => {
    const body = entraUser();
    const created = await create(body);
    const renamed = `renamed-${randomUUID()}`;
    expect((await h.request('PATCH', `/Users/${created.json.id}`, { body: patchOps({ op: 'Replace', path: 'userName', value: renamed }) })).json.userName).toBe(renamed);
    expect((await h.request('GET', q(`userName eq "${body.userName}"`))).json.totalResults).toBe(0);
    await create({ userName: body.userName });
  });

  it('answers 400 with the RFC scimType for bad operations', async () => {
    const created = await create(entraUser());
    const patch = (body: unknown) => h.request('PATCH', `/Users/${created.json.id}`, { body });
    expect((await patch(patchOps({ op: 'add', path: 'roles', value: [{ value: 'Admin' }] }))).json).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect((await patch(patchOps({ op: 'replace', path: 'id', value: randomUUID() }))).json).toMatchObject({ status: '400', scimType: 'mutability' });
    expect((await patch(patchOps({ op: 'move', path: 'userName', value: 'x' }))).json).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
    expect((await patch({ schemas: [PATCH_OP] })).json).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
    expect((await patch(patchOps({ op: 'replace', path: 'active', value: 'maybe' }))).json).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect((await patch(patchOps({ op: 'replace', path: 'emails[type sw "w"].value', value: 'x' }))).json).toMatchObject({ status: '400', scimType: 'invalidFilter' });
    expect((await h.request('GET', `/Users/${created.json.id}`)).json.meta.version).toBe('W/"1"');
  });
});

describe('If-Match', () => {
  it('answers 412 for a stale ETag on PUT, PATCH and DELETE, and applies with the current one', async () => {
    const body = entraUser();
    const created = await create(body);
    const id = created.json.id;
    await h.request('PATCH', `/Users/${id}`, { body: patchOps({ op: 'replace', path: 'displayName', value: 'v2' }) });
    const stale = { 'If-Match': 'W/"1"' };
    for (const res of [
      await h.request('PUT', `/Users/${id}`, { body, headers: stale }),
      await h.request('PATCH', `/Users/${id}`, { body: patchOps({ op: 'replace', path: 'displayName', value: 'v3' }), headers: stale }),
      await h.request('DELETE', `/Users/${id}`, { headers: stale }),
    ]) {
      expect(res).toMatchObject({ status: 412, json: { schemas: [ERROR_SCHEMA], status: '412', detail: expect.stringMatching(/\S/) } });
    }
    const fresh = await h.request('PATCH', `/Users/${id}`, { body: patchOps({ op: 'replace', path: 'displayName', value: 'v3' }), headers: { 'If-Match': 'W/"2"' } });
    expect(fresh).toMatchObject({ status: 200, json: { displayName: 'v3', meta: { version: 'W/"3"' } } });
    expect((await h.request('DELETE', `/Users/${id}`, { headers: { 'If-Match': fresh.headers.get('etag')! } })).status).toBe(204);
  });
});

describe('DELETE /Users/{id}', () => {
  it('answers 204; the resource is gone from GET and lists, the employee stays, and a later POST re-links it', async () => {
    const body = entraUser();
    const created = await create(body);
    const id = created.json.id;
    const before = (await h.request('GET', '/Users')).json.totalResults;

    const res = await h.request('DELETE', `/Users/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect((await h.request('GET', `/Users/${id}`)).status).toBe(404);
    expect((await h.request('GET', '/Users')).json.totalResults).toBe(before - 1);
    expect((await h.request('GET', q(`externalId eq "${body.externalId}"`))).json).toMatchObject({ totalResults: 0, Resources: [] });
    expect((await h.request('DELETE', `/Users/${id}`)).status).toBe(404);
    expect((await h.request('PATCH', `/Users/${id}`, { body: patchOps({ op: 'replace', value: { active: true } }) })).status).toBe(404);
    expect(await getEmployee(h.db, h.orgA, id)).toMatchObject({ id, scimDeleted: true, active: false });

    const again = await h.request('POST', '/Users', { body: { ...body, displayName: 'Returned' } });
    expect(again.status).toBe(201);
    expect(again.json).toMatchObject({ id, active: true, displayName: 'Returned', meta: { created: created.json.meta.created } });
    expect(again.headers.get('etag')).toBe('W/"3"');
  });
});

describe('audit', () => {
  it('writes one entry per change with the key as actor and the response’s X-Request-Id, never names or addresses', async () => {
    const body = entraUser();
    const created = await create(body);
    const id = created.json.id;
    const patched = await h.request('PATCH', `/Users/${id}`, { body: patchOps({ op: 'Replace', path: 'active', value: 'False' }) });
    const deleted = await h.request('DELETE', `/Users/${id}`);
    const entries = (await listAuditEntries(h.db, h.orgA, { limit: 100, entity: { type: 'employee', id } })).items;
    expect(entries.map((e) => [e.action, e.requestId])).toEqual([
      ['scim_user.deleted', deleted.headers.get('x-request-id')],
      ['scim_user.deactivated', patched.headers.get('x-request-id')],
      ['scim_user.created', created.headers.get('x-request-id')],
    ]);
    for (const e of entries) {
      expect(e.actor).toMatchObject({ type: 'API_KEY', label: 'Entra provisioning', keyId: expect.any(String) });
      const text = JSON.stringify(e);
      for (const secret of [body.userName as string, (body.emails as { value: string }[])[0].value, 'Given', 'Family', body.externalId as string]) expect(text).not.toContain(secret);
    }
    expect(entries[1]).toMatchObject({ before: { active: true, scimDeleted: false }, after: { active: false, scimDeleted: false }, changedAttributes: ['active'] });
  });
});
