import { randomUUID } from 'node:crypto';
import { bankAccountReceiptSchema, bankAccountSchema } from '../../services/employees/schemas';
import { logger } from '../../services/shared/logger';
import { call, countByType, expectPointers, expectProblem, scanTable, startApi, withQuery, type ApiFixture } from '../support/api';
import { createdEmployee, employeesUrl, etagOf, getBank, getEmployee, keyWith, putBank } from './employees-fixture';

/**
 * GET|PUT /employees/{id}/bank-account: dual scopes, If-Match + Idempotency-Key, IBAN/BIC
 * validation, sealed storage, and the full number nowhere else (responses, table, audit, logs).
 */
let api: ApiFixture;
let keys: { writeOnly: string; financialOnly: string; readNoFinancial: string; readFinancial: string };
const logged: unknown[][] = [];

const IBAN = 'DE89370400440532013000';
const PRINTED = 'DE89 3704 0044 0532 0130 00';
/** Every way the full number could show up. */
const LEAKS = [IBAN, PRINTED, '370400440532013000', '3704 0044 0532', '0532013000'];
const leaksIn = (text: string) => LEAKS.filter((l) => text.includes(l));

beforeAll(async () => {
  api = await startApi();
  keys = {
    writeOnly: await keyWith(api, ['employees:read', 'employees:write', 'employees:read_financial']),
    financialOnly: await keyWith(api, ['employees:write_financial', 'employees:read_financial']),
    readNoFinancial: await keyWith(api, ['employees:read', 'employees:read_sensitive']),
    readFinancial: await keyWith(api, ['employees:read_financial']),
  };
  for (const level of ['debug', 'info', 'warn', 'error', 'critical', 'appendKeys'] as const) {
    jest.spyOn(logger, level).mockImplementation(((...args: unknown[]) => void logged.push(args)) as never);
  }
});
afterAll(async () => {
  jest.restoreAllMocks();
  await api?.close();
});

async function withAccount(body: Record<string, unknown> = { iban: PRINTED.toLowerCase(), bic: 'cobadeff xxx', accountHolder: 'Mira Hoffmann' }) {
  const employee = await createdEmployee(api);
  const empty = await getBank(api, employee.body.id);
  const put = await putBank(api, employee.body.id, etagOf(empty), body);
  expect(put.status).toBe(200);
  return { id: employee.body.id as string, put };
}

describe('GET /employees/{id}/bank-account', () => {
  it('answers nulls with ETag v0 for an employee without an account', async () => {
    const employee = await createdEmployee(api);
    const res = await getBank(api, employee.body.id, keys.readFinancial);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ employeeId: employee.body.id, iban: null, bic: null, accountHolder: null, updatedAt: null });
    expect(etagOf(res)).toBe(`"bank-account:${employee.body.id}:v0"`);
    expect(bankAccountSchema.strict().safeParse(res.body).error).toBeUndefined();
  });

  it('answers the full IBAN in print format, the BIC and the holder, with a strong ETag', async () => {
    const { id } = await withAccount();
    const res = await getBank(api, id, keys.readFinancial);
    expect(res.body).toEqual({ employeeId: id, iban: PRINTED, bic: 'COBADEFFXXX', accountHolder: 'Mira Hoffmann', updatedAt: expect.stringMatching(/Z$/) });
    expect(etagOf(res)).toBe(`"bank-account:${id}:v1"`);
    expect(bankAccountSchema.strict().safeParse(res.body).error).toBeUndefined();
  });

  it('needs employees:read_financial (employees:read and read_sensitive are not enough)', async () => {
    const { id } = await withAccount();
    const res = await getBank(api, id, keys.readNoFinancial);
    expect(expectProblem(res, 403, 'SCOPE_REQUIRED').requiredScopes).toEqual(['employees:read_financial']);
    expect(leaksIn(res.text)).toEqual([]);
  });

  it("answers 404 for another organization's employee, an unknown id and a non-UUID", async () => {
    for (const id of [api.demo.otherOrganizationEmployees[0], randomUUID(), 'x']) expectProblem(await getBank(api, id), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await getBank(api, api.demo.employees[0], api.demo.keys.otherOrganization), 403, 'ACCESS_DENIED');
  });
});

describe('PUT /employees/{id}/bank-account', () => {
  it('normalizes and stores the account, answering a masked receipt with the new ETag', async () => {
    const { id, put } = await withAccount({ iban: ' de89-3704-0044-0532-0130-00 ', bic: 'cobadeffxxx', accountHolder: ' Mira Hoffmann ' });
    expect(put.body).toEqual({ employeeId: id, maskedIban: 'DE89 **** **** **** **** 00', updatedAt: expect.stringMatching(/Z$/) });
    expect(bankAccountReceiptSchema.strict().safeParse(put.body).error).toBeUndefined();
    expect(etagOf(put)).toBe(`"bank-account:${id}:v1"`);
    expect(leaksIn(put.text)).toEqual([]);
    expect((await getBank(api, id)).body).toMatchObject({ iban: PRINTED, bic: 'COBADEFFXXX', accountHolder: 'Mira Hoffmann' });
  });

  it('clears the account with iban null; the ETag keeps counting', async () => {
    const { id, put } = await withAccount();
    const cleared = await putBank(api, id, etagOf(put), { iban: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.maskedIban).toBeNull();
    const read = await getBank(api, id);
    expect(read.body).toEqual({ employeeId: id, iban: null, bic: null, accountHolder: null, updatedAt: cleared.body.updatedAt });
    expect(etagOf(read)).toBe(`"bank-account:${id}:v2"`);
    expect((await getEmployee(api, id)).body.maskedIban).toBeNull();
  });

  it('shows only the masked IBAN in the employee detail, and moves the employee ETag', async () => {
    const employee = await createdEmployee(api);
    const id = employee.body.id;
    const put = await putBank(api, id, etagOf(await getBank(api, id)), { iban: IBAN, accountHolder: 'M' });
    const detail = await getEmployee(api, id, keys.readNoFinancial);
    expect(detail.body.maskedIban).toBe('DE89 **** **** **** **** 00');
    expect(etagOf(detail)).not.toBe(etagOf(employee));
    expect(leaksIn(detail.text)).toEqual([]);
    expect(put.status).toBe(200);
  });

  it('needs employees:write AND employees:write_financial', async () => {
    const { id, put } = await withAccount();
    const onlyWrite = await putBank(api, id, etagOf(put), { iban: null }, { token: keys.writeOnly });
    expect(expectProblem(onlyWrite, 403, 'SCOPE_REQUIRED').requiredScopes).toEqual(['employees:write_financial']);
    const onlyFinancial = await putBank(api, id, etagOf(put), { iban: null }, { token: keys.financialOnly });
    expect(expectProblem(onlyFinancial, 403, 'SCOPE_REQUIRED').requiredScopes).toEqual(['employees:write']);
    expect((await getBank(api, id)).body.iban).toBe(PRINTED);
  });

  it('needs an Idempotency-Key and If-Match; a stale ETag changes nothing', async () => {
    const { id, put } = await withAccount();
    expectProblem(await putBank(api, id, etagOf(put), { iban: null }, { idempotencyKey: undefined }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    expectProblem(await putBank(api, id, undefined, { iban: null }), 428, 'ETAG_REQUIRED');
    for (const stale of [`"bank-account:${id}:v0"`, `"employee:${id}:v2"`, 'W/"1"', '*']) expectProblem(await putBank(api, id, stale, { iban: null }), 412, 'ETAG_MISMATCH');
    expect((await getBank(api, id)).body.iban).toBe(PRINTED);
  });

  it('replays the receipt for the same key and input, and refuses the key with another account', async () => {
    const employee = await createdEmployee(api);
    const id = employee.body.id;
    const v0 = etagOf(await getBank(api, id));
    const key = randomUUID();
    const first = await putBank(api, id, v0, { iban: IBAN, accountHolder: 'M' }, { idempotencyKey: key });
    const again = await putBank(api, id, v0, { iban: IBAN, accountHolder: 'M' }, { idempotencyKey: key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(etagOf(again)).toBe(etagOf(first));
    expectProblem(await putBank(api, id, v0, { iban: 'GB82WEST12345698765432', accountHolder: 'M' }, { idempotencyKey: key }), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(etagOf(await getBank(api, id))).toBe(`"bank-account:${id}:v1"`);
  });

  it.each([
    ['a wrong check digit', { iban: 'DE88370400440532013000', accountHolder: 'M' }, ['/iban'], /check digits/],
    ['a wrong length', { iban: 'DE8937040044053201300', accountHolder: 'M' }, ['/iban'], /DE has 22 characters; this one has 21/],
    ['an unknown country', { iban: 'XX89370400440532013000', accountHolder: 'M' }, ['/iban'], /XX is not a country/],
    ['punctuation', { iban: 'DE89.3704.0044.0532.0130.00', accountHolder: 'M' }, ['/iban'], /country code, 2 check digits/],
    ['a malformed BIC', { iban: IBAN, bic: 'COBA-DE-FF', accountHolder: 'M' }, ['/bic'], /8 or 11 characters/],
    ['no holder', { iban: IBAN }, ['/accountHolder'], /required with an IBAN/],
    ['a BIC on a clear', { iban: null, bic: 'COBADEFF' }, ['/bic'], /iban is null/],
    ['no iban member', { bic: 'COBADEFF', accountHolder: 'M' }, ['/iban'], /./],
    ['an unknown member', { iban: null, accountNumber: '123' }, ['/accountNumber'], /Unknown field/],
    ['a NUL in the holder', { iban: IBAN, accountHolder: 'X\u0000Y' }, ['/accountHolder'], /^accountHolder must not contain control characters .*; found U\+0000 at character 2\.$/],
    ['an escape sequence in the holder', { iban: IBAN, accountHolder: 'Mira\u001b[31m' }, ['/accountHolder'], /; found U\+001B at character 5\.$/],
    ['a bidi override in the holder', { iban: IBAN, accountHolder: 'Y\u202eX' }, ['/accountHolder'], /; found U\+202E at character 2\.$/],
  ])('answers 422 pointing at the field for %s, and changes nothing', async (_what, body, pointers, detail) => {
    const { id, put } = await withAccount();
    const res = await putBank(api, id, etagOf(put), body);
    expectPointers(res, pointers);
    expect(res.body.errors[0].detail).toMatch(detail);
    expect(etagOf(await getBank(api, id))).toBe(etagOf(put));
  });

  it('accepts a holder in any script with bidi marks', async () => {
    const holder = '\u200fنور الهدى Ζωή';
    const { id } = await withAccount({ iban: IBAN, accountHolder: holder });
    expect((await getBank(api, id, keys.readFinancial)).body.accountHolder).toBe(holder);
  });

  it("answers 404 for another organization's employee and writes nothing", async () => {
    const before = await countByType(api.db);
    const other = api.demo.otherOrganizationEmployees[0];
    expectProblem(await putBank(api, other, `"bank-account:${other}:v0"`, { iban: IBAN, accountHolder: 'M' }), 404, 'RESOURCE_NOT_FOUND');
    const after = await countByType(api.db);
    expect({ ...after, IdempotencyRecord: 0 }).toEqual({ ...before, IdempotencyRecord: 0 });
  });
});

describe('the full number stays inside the bank-account resource', () => {
  let id: string;
  beforeAll(async () => {
    ({ id } = await withAccount({ iban: IBAN, bic: 'COBADEFFXXX', accountHolder: 'Mira Hoffmann' }));
    // A rejected PUT carrying the number goes through the same code paths and logs.
    await putBank(api, id, '"bank-account:stale"', { iban: IBAN, accountHolder: 'Mira Hoffmann' });
    await putBank(api, id, etagOf(await getBank(api, id)), { iban: 'DE88370400440532013000', accountHolder: 'Mira Hoffmann' });
  });

  it('is not in the employee list, detail, search, SCIM or audit responses', async () => {
    const texts = [
      (await call('GET', withQuery(employeesUrl(api), { limit: 200 }), { token: api.demo.keys.admin })).text,
      (await call('GET', withQuery(employeesUrl(api), { q: 'mira' }), { token: api.demo.keys.admin })).text,
      (await getEmployee(api, id)).text,
      (await call('GET', `${api.orgUrl()}/scim/v2/Users/${id}`, { token: api.demo.keys.scim })).text,
      (await call('GET', `${api.orgUrl()}/scim/v2/Users`, { token: api.demo.keys.scim })).text,
      (await call('GET', withQuery(`${api.orgUrl()}/audit`, { entityType: 'employee', entityId: id }), { token: api.demo.keys.admin })).text,
    ];
    for (const text of texts) expect(leaksIn(text)).toEqual([]);
    const list = await call('GET', withQuery(employeesUrl(api), { limit: 200 }), { token: api.demo.keys.admin });
    expect(list.text).not.toContain('**');
  });

  it('is stored only sealed: no item of the table holds it, and the bank item has no GSI keys', async () => {
    const items = await scanTable(api.db);
    expect(items.filter((i) => leaksIn(JSON.stringify(i)).length > 0)).toEqual([]);
    const bank = items.find((i) => i.itemType === 'EmployeeBankAccount' && i.employeeId === id)!;
    expect(Object.keys(bank).sort()).toEqual(['PK', 'SK', 'employeeId', 'itemType', 'maskedIban', 'organizationId', 'sealed', 'updatedAt', 'version']);
    expect(bank.sealed).toMatchObject({ alg: 'AES-256-GCM', keyProvider: 'local' });
    expect(JSON.stringify(items.filter((i) => i.itemType === 'Employee'))).not.toContain('sealed');
  });

  it('audits set and clear with the attribute name only', async () => {
    const entries = (await call('GET', withQuery(`${api.orgUrl()}/audit`, { entityType: 'employee', entityId: id }), { token: api.demo.keys.admin })).body.items;
    expect(entries.map((e: { action: string }) => e.action)).toContain('employee.bank_account_set');
    for (const e of entries.filter((x: { action: string }) => x.action.startsWith('employee.bank_account'))) expect(e.changedAttributes).toEqual(['bankAccount']);
    expect(JSON.stringify(entries)).not.toMatch(/COBADEFF|Mira Hoffmann|DE89/);
  });

  it('is never logged', () => {
    expect(logged.length).toBeGreaterThan(0);
    expect(leaksIn(JSON.stringify(logged))).toEqual([]);
  });
});
