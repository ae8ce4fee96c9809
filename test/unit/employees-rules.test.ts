import { randomUUID } from 'node:crypto';
import { applyProfile, changedFields, planGuards, readEmployee, updateEmployee, type EmployeeChange, type EmployeePorts } from '../../services/employees/domain';
import { employeeChangeItems } from '../../services/employees/store';
import { bankAccountBodySchema, createBodySchema, employeeDetail, employeeSummary, parseBirthDate, updateBodySchema } from '../../services/employees/schemas';
import { employeeSearchItems, employeeSearchWords, holderKey, type Employee } from '../../services/employees/store';
import type { Principal } from '../../services/shared/auth/principal';
import { MAX_WORDS } from '../../services/shared/ddb/search';
import { MAX_TRANSACTION_ITEMS } from '../../services/shared/ddb/transaction';
import { EtagMismatchError, UniquenessConflictError, ValidationError } from '../../services/shared/errors';

const ORG = '6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f';
const ME = '1b2c3d4e-5f60-4718-89a0-b1c2d3e4f501';
const employee = (over: Partial<Employee> = {}): Employee => ({
  id: ME,
  organizationId: ORG,
  userName: 'ada.lindqvist@acme.example',
  givenName: 'Ada',
  familyName: 'Lindqvist',
  emails: [{ value: 'ada.lindqvist@acme.example', type: 'work', primary: true }],
  externalId: 'HR-1',
  active: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  version: 3,
  ...over,
});
const principal = (...scopes: string[]): Principal => ({ organizationId: ORG, keyId: 'k1', keyLabel: 'HR sync', environment: 'TEST', scopes: new Set(scopes) });
const audit = { id: 'a', organizationId: ORG, occurredAt: 'now', actor: { type: 'API_KEY' as const, keyId: 'k', label: 'l' }, action: 'x', entity: { type: 'employee', id: ME }, requestId: 'r' };

describe('employeeSummary and employeeDetail', () => {
  const sensitive = employee({ dateOfBirth: '1990-01-02', taxId: 'T-1', personalAddress: { streetAddress: 'Main 1', locality: 'Berlin', country: 'DE' } });

  it('answers every optional field as null and sensitive fields only with employees:read_sensitive', () => {
    const plain = employeeSummary(sensitive, principal('employees:read'));
    expect(plain).toMatchObject({ displayName: null, title: null, department: null, employeeNumber: null, emails: [{ value: 'ada.lindqvist@acme.example', type: 'work', primary: true }] });
    expect(Object.keys(plain)).not.toEqual(expect.arrayContaining(['dateOfBirth']));
    expect(plain).not.toHaveProperty('taxId');
    expect(plain).not.toHaveProperty('personalAddress');
    expect(employeeSummary(sensitive, principal('employees:read', 'employees:read_sensitive'))).toMatchObject({
      dateOfBirth: '1990-01-02',
      taxId: 'T-1',
      personalAddress: { streetAddress: 'Main 1', postalCode: null, locality: 'Berlin', region: null, country: 'DE' },
    });
    expect(employeeSummary(employee(), principal('employees:read_sensitive'))).toMatchObject({ dateOfBirth: null, taxId: null, personalAddress: null });
  });

  it('adds only the masked IBAN to the detail', () => {
    const detail = employeeDetail(employee(), 'DE89 **** **** **** **** 00', principal('employees:read'));
    expect(Object.keys(detail).filter((k) => !(k in employeeSummary(employee(), principal('employees:read'))))).toEqual(['maskedIban']);
  });
});

describe('parseBirthDate', () => {
  it('accepts real dates from 1900 up to today only', () => {
    expect(parseBirthDate('2000-02-29', '2026-03-02')).toBe('2000-02-29');
    expect(parseBirthDate('2026-03-02', '2026-03-02')).toBe('2026-03-02');
    for (const bad of ['1900-02-29', '2026-03-03', '1899-12-31', '2001-13-01', '2001-1-1', '2001-01-01T00:00:00Z']) expect(parseBirthDate(bad, '2026-03-02')).toBeUndefined();
  });
});

describe('bankAccountBodySchema', () => {
  const parse = (body: unknown) => bankAccountBodySchema.safeParse(body);
  const pointers = (body: unknown) => parse(body).error?.issues.map((i) => i.path.join('/'));

  it('normalizes IBAN and BIC to their electronic format', () => {
    expect(parse({ iban: ' de89 3704-0044 0532 0130 00 ', bic: 'cobadeff xxx', accountHolder: ' Ada Lindqvist ' }).data).toEqual({ iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', accountHolder: 'Ada Lindqvist' });
    expect(parse({ iban: 'GB82WEST12345698765432', accountHolder: 'A' }).data).toEqual({ iban: 'GB82WEST12345698765432', bic: null, accountHolder: 'A' });
    expect(parse({ iban: 'NO9386011117947', bic: null, accountHolder: 'A' }).success).toBe(true);
  });

  it('clears with iban null, and then accepts no other member but null', () => {
    expect(parse({ iban: null }).data).toBeNull();
    expect(parse({ iban: null, bic: null, accountHolder: null }).data).toBeNull();
    expect(pointers({ iban: null, bic: 'COBADEFF' })).toEqual(['bic']);
  });

  it.each([
    ['a wrong check digit', 'DE88370400440532013000', /check digits/],
    ['a wrong length for the country', 'DE8937040044053201300', /22 characters/],
    ['a country without IBANs', 'US12345678901234567890', /not a country/],
    ['characters outside the alphabet', 'DE89_3704_0044_0532_0130_00', /2-letter country code/],
    ['an empty string', '', /2-letter country code/],
    ['a lower-case country with a typo', 'de89370400440532013001', /check digits/],
  ])('rejects an IBAN with %s, pointing at /iban with what is wrong', (_what, iban, detail) => {
    const issues = parse({ iban, accountHolder: 'A' }).error!.issues;
    expect(issues.map((i) => i.path.join('/'))).toEqual(['iban']);
    expect(issues[0].message).toMatch(detail);
  });

  it('rejects a malformed BIC, a missing holder, a missing iban member and unknown members', () => {
    expect(pointers({ iban: 'DE89370400440532013000', bic: 'COBADE', accountHolder: 'A' })).toEqual(['bic']);
    expect(pointers({ iban: 'DE89370400440532013000', bic: 'COBADEFFXX', accountHolder: 'A' })).toEqual(['bic']);
    expect(pointers({ iban: 'DE89370400440532013000' })).toEqual(['accountHolder']);
    expect(pointers({ bic: 'COBADEFF' })).toEqual(['iban']);
    expect(parse({ iban: null, note: 'x' }).success).toBe(false);
  });
});

describe('updateBodySchema', () => {
  it('accepts only active: true (reactivation)', () => {
    expect(updateBodySchema.safeParse({ active: true }).success).toBe(true);
    expect(updateBodySchema.safeParse({ active: false }).error?.issues[0].message).toMatch(/deactivate/);
  });
});

describe('applyProfile and changedFields', () => {
  it('sets given fields, removes nulls, keeps the rest (SCIM fields included)', () => {
    const before = employee({ title: 'Lead', phoneNumbers: [{ value: '+49 40 1' }], taxId: 'T' });
    const after = applyProfile(before, { title: null, department: 'Ops', taxId: null, emails: [{ value: 'x@y.example', type: null, primary: false }] });
    expect(after).not.toHaveProperty('title');
    expect(after).not.toHaveProperty('taxId');
    expect(after).toMatchObject({ department: 'Ops', phoneNumbers: [{ value: '+49 40 1' }], emails: [{ value: 'x@y.example', primary: false }] });
    expect(changedFields(before, after).sort()).toEqual(['department', 'emails', 'taxId', 'title']);
  });
});

describe('planGuards', () => {
  const held = (entries: [string, string, string][]) => new Map(entries.map(([attribute, value, id]) => [holderKey({ attribute: attribute as 'userName', value }), id]));

  it('claims free values, keeps its own, releases what it gave up', () => {
    const before = { userName: 'ada@x', externalId: 'HR-1' };
    const holders = held([['userName', 'ada@x', ME], ['externalId', 'HR-1', ME]]);
    expect(planGuards(ME, before, { userName: 'ADA@x' }, holders)).toEqual([
      { kind: 'keep', attribute: 'userName', value: 'ADA@x' },
      { kind: 'release', attribute: 'externalId', value: 'HR-1' },
    ]);
    expect(planGuards(ME, before, { userName: 'new@x', externalId: 'HR-1' }, holders)).toEqual([
      { kind: 'claim', attribute: 'userName', value: 'new@x' },
      { kind: 'release', attribute: 'userName', value: 'ada@x' },
      { kind: 'keep', attribute: 'externalId', value: 'HR-1' },
    ]);
  });

  it("never takes a value over, even from an employee whose SCIM resource was deleted", () => {
    const holders = held([['userName', 'taken@x', randomUUID()]]);
    expect(() => planGuards(ME, undefined, { userName: 'taken@x' }, holders)).toThrow(UniquenessConflictError);
    expect(() => planGuards(ME, { userName: 'mine@x' }, { userName: 'taken@x' }, holders)).toThrow(UniquenessConflictError);
  });

  it('lets a change of other fields pass on an employee whose userName another user took over over SCIM', () => {
    const holders = held([['userName', 'tk-b@x', randomUUID()], ['externalId', 'HR-1', ME]]);
    expect(planGuards(ME, { userName: 'tk-b@x', externalId: 'HR-1' }, { userName: 'TK-B@x', externalId: 'HR-1' }, holders)).toEqual([{ kind: 'keep', attribute: 'externalId', value: 'HR-1' }]);
  });
});

describe('search index of employees', () => {
  it('indexes names, userName, externalId and e-mails, never sensitive fields', () => {
    const words = employeeSearchWords(employee({ taxId: 'TAXSECRET', dateOfBirth: '1990-01-01', displayName: 'Ada L.' }));
    expect(words).toEqual(expect.arrayContaining(['ada', 'lindqvist', 'hr-1', 'ada.lindqvist@acme.example']));
    expect(words.join(' ')).not.toMatch(/taxsecret|1990/);
  });

  it('keeps identity words first when many e-mail addresses exceed the word limit', () => {
    const emails = Array.from({ length: 20 }, (_, i) => ({ value: `alias${i}@mail${i}.example` }));
    const words = employeeSearchWords(employee({ emails }));
    expect(words).toHaveLength(MAX_WORDS);
    expect(words).toEqual(expect.arrayContaining(['ada', 'lindqvist', 'hr-1']));
  });

  it('writes nothing when the words did not change, and deletes the words given up', () => {
    expect(employeeSearchItems(employee(), employee({ title: 'New', version: 4 }))).toEqual([]);
    const items = employeeSearchItems(employee({ displayName: 'Night Shift Zeta' }), employee({ displayName: 'Night Shift Berg' }));
    const wordOf = (i: (typeof items)[number]) => String('Delete' in i.op ? i.op.Delete.Key?.SK : 'Put' in i.op ? i.op.Put.Item?.SK : '').split('#')[0];
    expect(items.filter((i) => 'Delete' in i.op).map(wordOf)).toEqual(['zeta']);
    expect(items.filter((i) => 'Put' in i.op).map(wordOf)).toContain('berg');
    // Labels reach logs when a transaction fails: they name the role, never the word.
    expect(new Set(items.map((i) => i.label))).toEqual(new Set(['search']));
  });

  it('keeps the largest employee change within one transaction (this API and SCIM build it alike)', () => {
    const many = (prefix: string) => Array.from({ length: 20 }, (_, i) => ({ value: `${prefix}${i}.${'x'.repeat(20)}@d${i}.example` }));
    const before = employee({ emails: many('a'), displayName: 'One Two Three Four Five Six' });
    const after = employee({ emails: many('b'), userName: 'other@x', externalId: 'HR-2', displayName: 'Seven Eight Nine Ten Eleven Twelve', version: 4 });
    const guards = [
      { kind: 'claim' as const, attribute: 'userName' as const, value: 'other@x' },
      { kind: 'release' as const, attribute: 'userName' as const, value: before.userName },
      { kind: 'claim' as const, attribute: 'externalId' as const, value: 'HR-2' },
      { kind: 'release' as const, attribute: 'externalId' as const, value: 'HR-1' },
    ];
    const extra = [{ label: 'idempotency', op: { Put: { Item: {} } } }];
    const items = employeeChangeItems({ before, after, guards, audit, extra });
    expect(items.length).toBeLessThanOrEqual(MAX_TRANSACTION_ITEMS);
    expect(items.some((i) => i.label === 'search')).toBe(true);
  });
});

describe('updateEmployee', () => {
  const deps = (stored: Employee, writes: EmployeeChange[]): EmployeePorts => ({
    store: {
      getWithBankAccount: async () => ({ employee: stored }),
      guardHolders: async (_org, values) => new Map(values.map((v) => [holderKey(v), ME])),
      saveEmployee: (w) => void writes.push(w),
      saveBankAccount: () => undefined,
    },
    now: () => new Date('2026-03-02T08:00:00Z'),
    newId: () => 'a0000000-0000-4000-8000-000000000001',
    seal: async () => ({ alg: 'AES-256-GCM', iv: '', ciphertext: '', tag: '', encryptedKey: '', keyProvider: 'local' }),
    unseal: async () => null,
  });
  const actor = { principal: principal('employees:write'), requestId: 'req-1' };

  it('needs the current strong ETag', async () => {
    const writes: EmployeeChange[] = [];
    for (const stale of [`"employee:${ME}:v2"`, 'W/"3"', '*']) {
      await expect(updateEmployee(deps(employee(), writes), actor, ME, stale, { title: 'x' })).rejects.toBeInstanceOf(EtagMismatchError);
    }
    expect(writes).toEqual([]);
  });

  it('refuses to reactivate an employee whose SCIM resource was deleted', async () => {
    const retired = employee({ active: false, scimDeleted: true });
    await expect(updateEmployee(deps(retired, []), actor, ME, `"employee:${ME}:v3"`, { active: true })).rejects.toBeInstanceOf(ValidationError);
  });

  it('bumps the version and audits the changed names', async () => {
    const writes: EmployeeChange[] = [];
    const view = await updateEmployee(deps(employee(), writes), actor, ME, `"employee:${ME}:v3"`, { title: 'Lead' });
    expect(view.employee).toMatchObject({ version: 4, title: 'Lead', updatedAt: '2026-03-02T08:00:00.000Z' });
    expect(writes[0].audit).toMatchObject({ action: 'employee.updated', changedAttributes: ['title'], requestId: 'req-1' });
  });
});

describe('readEmployee: the masked IBAN as the contract shows it', () => {
  it('masks every middle group whole, also of an account stored before that rule', async () => {
    const employee = { id: 'e1', organizationId: 'o1', userName: 'u', emails: [], active: true, version: 1, createdAt: 't', updatedAt: 't' } as unknown as Employee;
    const store = { getWithBankAccount: async () => ({ employee, bankAccount: { organizationId: 'o1', employeeId: 'e1', version: 1, maskedIban: 'DE89 **** **** **** **30 00', updatedAt: 't' } }) } as unknown as EmployeePorts['store'];
    expect((await readEmployee({ store }, 'o1', 'e1')).maskedIban).toBe('DE89 **** **** **** **** 00');
  });
});

describe('empty text in employee bodies', () => {
  const messages = (schema: { safeParse: (v: unknown) => { error?: { issues: { message: string }[] } } }, body: unknown) => schema.safeParse(body).error?.issues.map((i) => i.message);

  it('tells a required field it must not be empty, and only a clearable one that null clears it', () => {
    expect(messages(createBodySchema, { userName: '   ' })).toEqual(['userName must not be empty.']);
    expect(messages(updateBodySchema, { displayName: ' ' })).toEqual(['displayName must not be empty; send null to clear it.']);
  });
});
