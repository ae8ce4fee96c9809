import { randomUUID } from 'node:crypto';
import { listAuditEntries } from '../../services/audit/store';
import { getEmployee as storedEmployee } from '../../services/employees/store';
import { employeeSchema } from '../../services/employees/schemas';
import { call, countByType, expectPointers, expectProblem, keyIdOf, startApi, withQuery, type ApiFixture } from '../support/api';
import { createdEmployee, createEmployee, deactivate, employeeBody, employeesUrl, employeeUrl, etagOf, getEmployee, keyWith, patchEmployee } from './employees-fixture';

/** Create, read, update and deactivate employees through the local gateway, against DynamoDB Local. */
let api: ApiFixture;
let noSensitive: string;
beforeAll(async () => {
  api = await startApi();
  noSensitive = await keyWith(api, ['employees:read', 'employees:write']);
});
afterAll(() => api?.close());

const SENSITIVE = {
  dateOfBirth: '1988-04-12',
  personalAddress: { streetAddress: 'Lindenweg 7', postalCode: '20095', locality: 'Hamburg', region: null, country: 'de' },
  taxId: '12 345 678 901',
};
const trailOf = async (id: string) => (await listAuditEntries(api.db, api.demo.organizationId, { limit: 50, entity: { type: 'employee', id } })).items;

describe('POST /employees', () => {
  it('answers 201 with Location, a strong ETag and the published shape, sensitive fields included for read_sensitive', async () => {
    const body = employeeBody(SENSITIVE);
    const res = await createdEmployee(api, body);
    const id = res.body.id;
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/employees/${id}`);
    expect(etagOf(res)).toBe(`"employee:${id}:v1"`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      userName: body.userName,
      externalId: body.externalId,
      displayName: body.displayName,
      givenName: 'Mira',
      familyName: body.familyName,
      title: null,
      department: 'Facility',
      employeeNumber: null,
      emails: [{ ...(body.emails as object[])[0], primary: true }],
      active: true,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: res.body.createdAt,
      dateOfBirth: '1988-04-12',
      personalAddress: { streetAddress: 'Lindenweg 7', postalCode: '20095', locality: 'Hamburg', region: null, country: 'DE' },
      taxId: '12 345 678 901',
      maskedIban: null,
    });
    expect(employeeSchema.strict().safeParse(res.body).error).toBeUndefined();
    const read = await getEmployee(api, id);
    expect(read.body).toEqual(res.body);
    expect(etagOf(read)).toBe(etagOf(res));
  });

  it('leaves sensitive fields out (absent, not null) for a key without employees:read_sensitive', async () => {
    const res = await createdEmployee(api, employeeBody(SENSITIVE), { token: noSensitive });
    for (const body of [res.body, (await getEmployee(api, res.body.id, noSensitive)).body]) {
      expect(body).not.toHaveProperty('dateOfBirth');
      expect(body).not.toHaveProperty('personalAddress');
      expect(body).not.toHaveProperty('taxId');
      expect(employeeSchema.strict().safeParse(body).error).toBeUndefined();
    }
    expect((await getEmployee(api, res.body.id)).body).toMatchObject({ dateOfBirth: '1988-04-12', taxId: '12 345 678 901' });
    const text = (await getEmployee(api, res.body.id, noSensitive)).text;
    for (const value of ['1988-04-12', 'Lindenweg', '12 345 678 901']) expect(text).not.toContain(value);
  });

  it('writes one audit entry in the same request, with field names and never their values', async () => {
    const body = employeeBody(SENSITIVE);
    const res = await createdEmployee(api, body);
    const [entry] = await trailOf(res.body.id);
    expect(entry).toMatchObject({
      action: 'employee.created',
      actor: { type: 'API_KEY', keyId: keyIdOf(api.demo.keys.admin), label: 'Demo key: admin' },
      entity: { type: 'employee', id: res.body.id },
      requestId: res.requestId,
      after: { active: true },
    });
    expect(entry.changedAttributes).toEqual(expect.arrayContaining(['userName', 'externalId', 'emails', 'dateOfBirth', 'personalAddress', 'taxId', 'active']));
    const text = JSON.stringify(entry);
    for (const value of [body.userName, body.externalId, body.givenName, body.familyName, (body.emails as { value: string }[])[0].value, '1988-04-12', 'Lindenweg', '12 345 678 901']) {
      expect(text).not.toContain(value as string);
    }
  });

  it('needs an Idempotency-Key, replays the same key and input, and refuses the key with other input', async () => {
    expectProblem(await createEmployee(api, employeeBody(), { idempotencyKey: undefined }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    const key = randomUUID();
    const body = employeeBody();
    const first = await createEmployee(api, body, { idempotencyKey: key });
    const again = await createEmployee(api, body, { idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(etagOf(again)).toBe(etagOf(first));
    expect(await trailOf(first.body.id)).toHaveLength(1);
    expectProblem(await createEmployee(api, { ...body, department: 'Other' }, { idempotencyKey: key }), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('answers 409 UNIQUENESS_CONFLICT for a taken userName (any case) or externalId, also against SCIM and seeded employees', async () => {
    const taken = await createdEmployee(api);
    const before = await countByType(api.db);
    const conflicts = [
      { userName: (taken.body.userName as string).toUpperCase() },
      { externalId: taken.body.externalId },
      { userName: 'ADA.LINDQVIST@acme.example' },
    ];
    for (const over of conflicts) {
      const res = await createEmployee(api, employeeBody(over));
      expect(expectProblem(res, 409, 'UNIQUENESS_CONFLICT').attribute).toBe(Object.keys(over)[0]);
    }
    expect(await countByType(api.db)).toEqual(before);
    const scim = await call('POST', `${api.orgUrl()}/scim/v2/Users`, { token: api.demo.keys.scim, body: { userName: `scim.${randomUUID()}@acme.example`, externalId: `scim-${randomUUID()}` } });
    expect(scim.status).toBe(201);
    expectProblem(await createEmployee(api, employeeBody({ externalId: scim.body.externalId })), 409, 'UNIQUENESS_CONFLICT');
  });

  it('rejects invalid input with pointers at every bad member', async () => {
    const res = await createEmployee(api, {
      userName: ' ',
      emails: [{ value: 'not-an-address', type: 'private' }, { value: 'a@b.example', primary: true }],
      dateOfBirth: '1990-02-30',
      personalAddress: { streetAddress: 'Lindenweg 7', locality: 'Hamburg', country: 'Germany' },
      taxId: '<script>',
      nickName: 'Mimi',
    });
    expectPointers(res, ['/userName', '/emails/0/value', '/emails/0/type', '/dateOfBirth', '/personalAddress/country', '/taxId', '/nickName']);
    // Two letters that name no country are refused too; a lower-case real one is accepted (as 'de' above).
    for (const country of ['XX', 'QQ', 'zz', 'UK']) {
      expectPointers(await createEmployee(api, employeeBody({ personalAddress: { streetAddress: 'Lindenweg 7', locality: 'Hamburg', country } })), ['/personalAddress/country']);
    }
    const twice = employeeBody({ emails: [{ value: 'a@b.example', primary: true }, { value: 'A@B.example', primary: true }] });
    expectPointers(await createEmployee(api, twice), ['/emails', '/emails/1/value']);
    const future = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    expectPointers(await createEmployee(api, employeeBody({ dateOfBirth: future })), ['/dateOfBirth']);
    expectPointers(await createEmployee(api, { givenName: 'No user name' }), ['/userName']);
  });

  it('refuses control characters and bidi overrides in names (422 at the field, naming character and position, never the value), and control characters in userName', async () => {
    const before = await countByType(api.db);
    const res = await createEmployee(api, employeeBody({ userName: 'ctl\u0000user\u001b[31m', displayName: 'Evil\u202egnp.exe\u0007', givenName: 'Mi\u001bra', familyName: 'Ho\u2028ff', title: 'Lead\u2066', department: 'Fa\u0085c', employeeNumber: 'E\u007f1' }));
    const body = expectProblem(res, 422, 'VALIDATION_ERROR');
    const detailAt = (pointer: string) => body.errors.filter((e: { pointer: string }) => e.pointer === pointer).map((e: { detail: string }) => e.detail);
    expect(detailAt('/displayName')).toEqual([expect.stringMatching(/^displayName must not contain control characters .*; found U\+202E at character 5\.$/)]);
    expect(detailAt('/userName')).toEqual([expect.stringMatching(/^userName must not contain control characters .*; found U\+0000 at character 4\.$/)]);
    expect(detailAt('/givenName')).toEqual([expect.stringMatching(/found U\+001B at character 3\.$/)]);
    expect(detailAt('/familyName')).toEqual([expect.stringMatching(/found U\+2028 at character 3\.$/)]);
    expect(detailAt('/title')).toEqual([expect.stringMatching(/found U\+2066 at character 5\.$/)]);
    expect(detailAt('/department')).toEqual([expect.stringMatching(/found U\+0085 at character 3\.$/)]);
    expect(detailAt('/employeeNumber')).toEqual([expect.stringMatching(/found U\+007F at character 2\.$/)]);
    expect(res.text).not.toContain('gnp.exe');
    expect(res.text).not.toContain('ctl');
    for (const over of [{ displayName: 'Evil\u202egnp.exe' }, { displayName: 'nul\u0000' }, { displayName: 'esc\u001b[31m' }, { userName: `tab\t${randomUUID()}@acme.example` }]) {
      expectPointers(await createEmployee(api, employeeBody(over)), [`/${Object.keys(over)[0]}`]);
    }
    expect(await countByType(api.db)).toEqual(before);
  });

  it('accepts bidi marks and names in any script', async () => {
    const res = await createdEmployee(api, employeeBody({ displayName: '\u200fنور الهدى\u200f', givenName: 'Ζωή', familyName: '王', title: 'שרה\u200e (Lead)', department: 'Склад' }));
    expect(res.body).toMatchObject({ displayName: '\u200fنور الهدى\u200f', givenName: 'Ζωή', familyName: '王', title: 'שרה\u200e (Lead)', department: 'Склад' });
  });

  it('calls read-only and bank members read-only instead of unknown', async () => {
    const res = await createEmployee(api, employeeBody({ active: false, id: randomUUID(), iban: 'DE89370400440532013000' }));
    const body = expectProblem(res, 422, 'VALIDATION_ERROR');
    expect(body.errors).toEqual([
      { pointer: '/id', detail: 'id is read-only.' },
      { pointer: '/iban', detail: expect.stringMatching(/bank-account/) },
      { pointer: '/active', detail: expect.stringMatching(/deactivate/) },
    ]);
    expect(res.text).not.toContain('DE89370400440532013000');
  });

  it('needs employees:write', async () => {
    expectProblem(await createEmployee(api, employeeBody(), { token: api.demo.keys.readOnly }), 403, 'SCOPE_REQUIRED');
  });
});

describe('GET /employees/{employeeId}', () => {
  it('finds seeded and SCIM-provisioned employees: the same records', async () => {
    const seeded = await getEmployee(api, api.demo.employees[0]);
    expect(seeded.body).toMatchObject({ id: api.demo.employees[0], givenName: 'Ada', familyName: 'Lindqvist', active: true, maskedIban: null });
    const scim = await call('POST', `${api.orgUrl()}/scim/v2/Users`, { token: api.demo.keys.scim, body: { userName: `okta.${randomUUID()}@acme.example`, name: { givenName: 'Okta', familyName: 'Person' } } });
    expect((await getEmployee(api, scim.body.id)).body).toMatchObject({ id: scim.body.id, givenName: 'Okta', userName: scim.body.userName });
  });

  it("answers 404 for an unknown id, a non-UUID and another organization's employee", async () => {
    for (const id of [randomUUID(), 'not-a-uuid', api.demo.otherOrganizationEmployees[0]]) expectProblem(await getEmployee(api, id), 404, 'RESOURCE_NOT_FOUND');
  });

  it("refuses another organization's key on this organization's URL", async () => {
    expectProblem(await getEmployee(api, api.demo.employees[0], api.demo.keys.otherOrganization), 403, 'ACCESS_DENIED');
  });
});

describe('PATCH /employees/{employeeId}', () => {
  it('changes only the given fields, clears nulls, and moves both the strong and the SCIM ETag', async () => {
    const created = await createdEmployee(api, employeeBody(SENSITIVE));
    const id = created.body.id;
    const scimBefore = await call('GET', `${api.orgUrl()}/scim/v2/Users/${id}`, { token: api.demo.keys.scim });
    const res = await patchEmployee(api, id, etagOf(created), { title: 'Team lead', department: null, taxId: null, emails: [] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created.body, title: 'Team lead', department: null, taxId: null, emails: [], updatedAt: expect.any(String) });
    expect(etagOf(res)).toBe(`"employee:${id}:v2"`);
    const scimAfter = await call('GET', `${api.orgUrl()}/scim/v2/Users/${id}`, { token: api.demo.keys.scim });
    expect(scimAfter.headers.get('etag')).not.toBe(scimBefore.headers.get('etag'));
    expect(scimAfter.body.title).toBe('Team lead');
    expect(scimAfter.text).not.toContain('1988-04-12');
    const [, entry] = await trailOf(id).then((t) => t.reverse());
    expect(entry).toMatchObject({ action: 'employee.updated', requestId: res.requestId });
    expect([...entry.changedAttributes!].sort()).toEqual(['department', 'emails', 'taxId', 'title']);
  });

  it('refuses control characters and bidi overrides in names and control characters in userName, changing nothing', async () => {
    const created = await createdEmployee(api);
    const res = await patchEmployee(api, created.body.id, etagOf(created), { userName: 'bell\u0007@acme.example', displayName: 'Evil\u202egnp.exe' });
    expectPointers(res, ['/userName', '/displayName']);
    expect((await getEmployee(api, created.body.id)).body).toEqual(created.body);
  });

  it('keeps what SCIM changes and what this API changes on the same record', async () => {
    const created = await createdEmployee(api, employeeBody(SENSITIVE));
    const id = created.body.id;
    const scim = await call('PATCH', `${api.orgUrl()}/scim/v2/Users/${id}`, {
      token: api.demo.keys.scim,
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'title', value: 'Supervisor' }] },
    });
    expect(scim.status).toBe(200);
    expectProblem(await patchEmployee(api, id, etagOf(created), { title: 'Stale' }), 412, 'ETAG_MISMATCH');
    const read = await getEmployee(api, id);
    expect(read.body).toMatchObject({ title: 'Supervisor', dateOfBirth: '1988-04-12', taxId: '12 345 678 901' });
    expect(etagOf(read)).toBe(`"employee:${id}:v2"`);
  });

  it('answers 428 without If-Match and 412 with a stale one, changing nothing', async () => {
    const created = await createdEmployee(api);
    expectProblem(await patchEmployee(api, created.body.id, undefined, { title: 'X' }), 428, 'ETAG_REQUIRED');
    const next = await patchEmployee(api, created.body.id, etagOf(created), { title: 'First' });
    expectProblem(await patchEmployee(api, created.body.id, etagOf(created), { title: 'Second' }), 412, 'ETAG_MISMATCH');
    expectProblem(await patchEmployee(api, created.body.id, `W/"2"`, { title: 'Weak' }), 412, 'ETAG_MISMATCH');
    expect((await getEmployee(api, created.body.id)).body.title).toBe('First');
    expect(etagOf(await getEmployee(api, created.body.id))).toBe(etagOf(next));
  });

  it('moves the uniqueness guards: the old userName is free afterwards, a taken one is 409', async () => {
    const a = await createdEmployee(api);
    const b = await createdEmployee(api);
    expectProblem(await patchEmployee(api, b.body.id, etagOf(b), { userName: a.body.userName.toLowerCase() }), 409, 'UNIQUENESS_CONFLICT');
    const renamed = await patchEmployee(api, a.body.id, etagOf(a), { userName: `renamed.${randomUUID()}@acme.example`, externalId: null });
    expect(renamed.status).toBe(200);
    expect(renamed.body.externalId).toBeNull();
    expect((await patchEmployee(api, b.body.id, etagOf(b), { userName: a.body.userName, externalId: a.body.externalId })).status).toBe(200);
  });

  it('accepts a case-only change of the own userName', async () => {
    const a = await createdEmployee(api);
    const res = await patchEmployee(api, a.body.id, etagOf(a), { userName: (a.body.userName as string).toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body.userName).toBe((a.body.userName as string).toUpperCase());
  });

  it('refuses deactivation through PATCH, read-only members and an empty body', async () => {
    const a = await createdEmployee(api);
    expectPointers(await patchEmployee(api, a.body.id, etagOf(a), { active: false }), ['/active']);
    expectPointers(await patchEmployee(api, a.body.id, etagOf(a), { maskedIban: 'DE89 **** **** **** **** 00' }), ['/maskedIban']);
    expectPointers(await patchEmployee(api, a.body.id, etagOf(a), { userName: null }), ['/userName']);
    expectPointers(await patchEmployee(api, a.body.id, etagOf(a), {}), ['']);
  });

  it("answers 404 for another organization's employee and writes nothing there", async () => {
    const other = api.demo.otherOrganizationEmployees[0];
    expectProblem(await patchEmployee(api, other, `"employee:${other}:v1"`, { title: 'X' }), 404, 'RESOURCE_NOT_FOUND');
    expect((await storedEmployee(api.db, api.demo.otherOrganizationId, other))?.title).toBeUndefined();
  });
});

describe('POST /employees/{employeeId}/deactivate', () => {
  it('ends access, keeps the employee readable and listed as inactive, and audits the reason', async () => {
    const a = await createdEmployee(api);
    const res = await deactivate(api, a.body.id, etagOf(a), { reason: 'Contract ended' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: a.body.id, active: false });
    expect(etagOf(res)).toBe(`"employee:${a.body.id}:v2"`);
    expect((await getEmployee(api, a.body.id)).body.active).toBe(false);
    const inactive = await call('GET', withQuery(employeesUrl(api), { active: 'false', limit: 200 }), { token: api.demo.keys.admin });
    expect(inactive.body.items.map((e: { id: string }) => e.id)).toContain(a.body.id);
    const [latest] = (await trailOf(a.body.id)).slice(0, 1);
    expect(latest).toMatchObject({ action: 'employee.deactivated', reason: 'Contract ended', before: { active: true }, after: { active: false }, changedAttributes: ['active'], requestId: res.requestId });
    const scim = await call('GET', `${api.orgUrl()}/scim/v2/Users/${a.body.id}`, { token: api.demo.keys.scim });
    expect(scim.body.active).toBe(false);
  });

  it('needs If-Match, the current ETag and a reason', async () => {
    const a = await createdEmployee(api);
    expectProblem(await deactivate(api, a.body.id, undefined), 428, 'ETAG_REQUIRED');
    expectProblem(await deactivate(api, a.body.id, `"employee:${a.body.id}:v9"`), 412, 'ETAG_MISMATCH');
    expectPointers(await deactivate(api, a.body.id, etagOf(a), { reason: ' ' }), ['/reason']);
    expectPointers(await deactivate(api, a.body.id, etagOf(a), {}), ['/reason']);
    expect((await getEmployee(api, a.body.id)).body.active).toBe(true);
  });

  it('is undone by PATCH active: true, unless SCIM deleted the user', async () => {
    const a = await createdEmployee(api);
    const off = await deactivate(api, a.body.id, etagOf(a));
    const on = await patchEmployee(api, a.body.id, etagOf(off), { active: true });
    expect(on.status).toBe(200);
    expect(on.body.active).toBe(true);
    expect((await trailOf(a.body.id))[0].action).toBe('employee.reactivated');

    const deleted = await call('DELETE', `${api.orgUrl()}/scim/v2/Users/${a.body.id}`, { token: api.demo.keys.scim });
    expect(deleted.status).toBe(204);
    const gone = await getEmployee(api, a.body.id);
    expect(gone.body.active).toBe(false);
    expectPointers(await patchEmployee(api, a.body.id, etagOf(gone), { active: true }), ['/active']);
  });

  it('keeps the time entries of a deactivated employee', async () => {
    const [employee] = api.demo.employees;
    const read = await getEmployee(api, employee);
    const before = await call('GET', withQuery(`${api.orgUrl()}/timesheets`, { employeeId: employee }), { token: api.demo.keys.admin });
    expect(before.body.items.length).toBeGreaterThan(0);
    expect((await deactivate(api, employee, etagOf(read))).status).toBe(200);
    const after = await call('GET', withQuery(`${api.orgUrl()}/timesheets`, { employeeId: employee }), { token: api.demo.keys.admin });
    expect(after.body.items).toEqual(before.body.items);
    expect((await call('GET', employeeUrl(api, employee), { token: api.demo.keys.admin })).body.active).toBe(false);
  });
});
