import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { employeeSummarySchema } from '../../services/employees/schemas';
import { call, expectParameters, expectProblem, startApi, walkPages, withQuery, type ApiFixture } from '../support/api';
import { createdEmployee, deactivate, employeeBody, employeesUrl, etagOf, keyWith, patchEmployee, putBank, getBank } from './employees-fixture';

/** GET /employees: cursor paging, `active`, and `q` through the search index, for API, SCIM and seeded employees. */
let api: ApiFixture;
let noSensitive: string;
const tag = randomUUID().slice(0, 6);
let ids: { api: string; inactive: string; scim: string };

beforeAll(async () => {
  api = await startApi();
  noSensitive = await keyWith(api, ['employees:read']);
  const viaApi = await createdEmployee(api, employeeBody({ givenName: 'Quentin', familyName: `Zarnecki${tag}`, externalId: `PAY-${tag}`, taxId: 'DE-TAX-1', dateOfBirth: '1970-01-01' }));
  const leaving = await createdEmployee(api, employeeBody({ givenName: 'Quentin', familyName: `Leaving${tag}` }));
  await deactivate(api, leaving.body.id, etagOf(leaving));
  const scim = await call('POST', `${api.orgUrl()}/scim/v2/Users`, {
    token: api.demo.keys.scim,
    body: { userName: `so.${tag}@acme.example`, name: { givenName: 'Sade', familyName: 'Okonkwo' }, emails: [{ value: `sade.${tag}@acme.example`, type: 'work', primary: true }] },
  });
  ids = { api: viaApi.body.id, inactive: leaving.body.id, scim: scim.body.id };
  const bank = await getBank(api, viaApi.body.id);
  await putBank(api, viaApi.body.id, etagOf(bank), { iban: 'DE89370400440532013000', accountHolder: 'Quentin Zarnecki' });
});
afterAll(() => api?.close());

const list = (query: Record<string, string | number | undefined> = {}, token = api.demo.keys.admin) => call('GET', withQuery(employeesUrl(api), query), { token });
const idsOf = (res: { body: { items: { id: string }[] } }) => res.body.items.map((e) => e.id);
const search = async (q: string, extra: Record<string, string> = {}) => idsOf(await list({ q, limit: 200, ...extra }));

describe('GET /employees', () => {
  it('pages through every employee of the organization once, in creation order, with the summary shape', async () => {
    const pages = await walkPages(withQuery(employeesUrl(api), { limit: 2 }), api.demo.keys.admin);
    const items = pages.flatMap((p) => p.body.items);
    expect(pages.length).toBeGreaterThan(2);
    expect(new Set(items.map((e) => e.id)).size).toBe(items.length);
    expect(items.map((e) => e.id)).toEqual(expect.arrayContaining([...api.demo.employees, ids.api, ids.inactive, ids.scim]));
    expect(items.map((e) => e.id)).not.toContain(api.demo.otherOrganizationEmployees[0]);
    const created = items.map((e) => `${e.createdAt}#${e.id}`);
    expect(created).toEqual([...created].sort());
    for (const item of items) expect(employeeSummarySchema.strict().safeParse(item).error).toBeUndefined();
  });

  it('never contains bank data, not even masked', async () => {
    const res = await list({ limit: 200 });
    expect(res.text).not.toMatch(/DE89|3704|0532 0130|013000|maskedIban|iban/i);
  });

  it('has sensitive fields only with employees:read_sensitive', async () => {
    const withScope = (await list({ limit: 200 })).body.items.find((e: { id: string }) => e.id === ids.api);
    expect(withScope).toMatchObject({ taxId: 'DE-TAX-1', dateOfBirth: '1970-01-01', personalAddress: null });
    const without = await list({ limit: 200 }, noSensitive);
    for (const item of without.body.items) for (const field of ['dateOfBirth', 'personalAddress', 'taxId']) expect(item).not.toHaveProperty(field);
    expect(without.text).not.toContain('DE-TAX-1');
  });

  it('filters on active', async () => {
    const inactive = idsOf(await list({ active: 'false', limit: 200 }));
    const active = idsOf(await list({ active: 'true', limit: 200 }));
    expect(inactive).toContain(ids.inactive);
    expect(active).not.toContain(ids.inactive);
    expect(active).toEqual(expect.arrayContaining([ids.api, ids.scim, ...api.demo.employees]));
  });

  it('is a Query: no request of a list is a Scan', async () => {
    const spy = jest.spyOn(DynamoDBDocumentClient.prototype, 'send');
    await list({ limit: 3 });
    await list({ q: 'quentin', active: 'true' });
    const commands = spy.mock.calls.map(([command]) => command.constructor.name);
    spy.mockRestore();
    expect(commands).toContain('QueryCommand');
    expect(commands).not.toContain('ScanCommand');
  });

  it('rejects invalid parameters and a cursor of another query', async () => {
    expectParameters(await list({ limit: 0 }), ['limit']);
    expectParameters(await list({ limit: 201 }), ['limit']);
    expectParameters(await list({ active: 'yes' }), ['active']);
    expectParameters(await list({ q: '!!!' }), ['q']);
    expectParameters(await list({ sort: 'name' }), ['sort']);
    const first = await list({ limit: 1 });
    expectParameters(await list({ limit: 1, active: 'true', cursor: first.body.nextCursor }), ['cursor']);
    const foreign = await call('GET', withQuery(employeesUrl(api, api.demo.otherOrganizationId), { limit: 1 }), { token: api.demo.keys.otherOrganization });
    expectParameters(await list({ limit: 1, cursor: foreign.body.nextCursor }), ['cursor']);
  });

  it("refuses another organization's key and a key without employees:read", async () => {
    expectProblem(await list({}, api.demo.keys.otherOrganization), 403, 'ACCESS_DENIED');
    expectProblem(await list({}, api.demo.keys.scim), 403, 'SCOPE_REQUIRED');
  });
});

describe('GET /employees?q=', () => {
  it('finds employees created through this API by name, e-mail and externalId prefixes', async () => {
    expect(await search(`zarnecki${tag}`)).toEqual([ids.api]);
    expect(await search(`Quen Zarn`)).toContain(ids.api);
    expect(await search(`pay-${tag}`)).toEqual([ids.api]);
    expect(await search(`PAY-${tag.toUpperCase()}`)).toEqual([ids.api]);
  });

  it('finds SCIM-provisioned and seeded employees through the same index', async () => {
    expect(await search(`sade.${tag}@acme`)).toEqual([ids.scim]);
    expect(await search('okonkwo sade')).toContain(ids.scim);
    expect(await search('lindqvist')).toEqual([api.demo.employees[0]]);
    expect(await search('bruno.okafor@acme.example')).toEqual([api.demo.employees[1]]);
  });

  it('follows renames over this API and over SCIM in the same transaction', async () => {
    const created = await createdEmployee(api, employeeBody({ givenName: 'Theodora', familyName: `Before${tag}` }));
    const renamed = await patchEmployee(api, created.body.id, etagOf(created), { familyName: `After${tag}` });
    expect(renamed.status).toBe(200);
    expect(await search(`before${tag}`)).toEqual([]);
    expect(await search(`after${tag}`)).toEqual([created.body.id]);

    const scim = await call('PATCH', `${api.orgUrl()}/scim/v2/Users/${ids.scim}`, {
      token: api.demo.keys.scim,
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'name.familyName', value: `Adeyemi${tag}` }] },
    });
    expect(scim.status).toBe(200);
    expect(await search(`adeyemi${tag}`)).toEqual([ids.scim]);
    expect(await search(`okonkwo sade`)).not.toContain(ids.scim);
  });

  it('combines q with active, stays in the organization, and pages without repeats', async () => {
    expect(await search('quentin', { active: 'false' })).toEqual([ids.inactive]);
    expect(await search('quentin', { active: 'true' })).toEqual([ids.api]);
    expect(await search('dmitri')).toEqual([]);
    const pages = await walkPages(withQuery(employeesUrl(api), { q: 'acme', limit: 1 }), api.demo.keys.admin);
    const found = pages.flatMap((p) => p.body.items.map((e) => e.id));
    expect(new Set(found).size).toBe(found.length);
    expect(found).toEqual(expect.arrayContaining([...api.demo.employees, ids.scim]));
  });

  it('never finds employees by sensitive fields', async () => {
    expect(await search('DE-TAX-1')).toEqual([]);
    expect(await search('1970')).toEqual([]);
  });
});
