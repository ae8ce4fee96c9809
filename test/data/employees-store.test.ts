import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createEmployee, EmployeeMovedError, type EmployeePorts, type EmployeeStore } from '../../services/employees/domain';
import { putBankAccount, readBankAccount } from '../../services/employees/domain-bank';
import { employeesStore, employeeSearchItems, getEmployee, listEmployeesPage, putEmployee, searchEmployeesPage, type Employee } from '../../services/employees/store';
import { putOrganization } from '../../services/organization/public';
import { createUser, scimDeps, updateUser, type ScimDeps } from '../support/scim-use-cases';
import { sealRestricted, unsealRestricted } from '../../services/shared/crypto/restricted';
import type { Db } from '../../services/shared/ddb/client';
import { commit } from '../../services/shared/ddb/transaction';
import { inUnitOfWork, READ_ONLY_UNIT, TransactionUnit, type UnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { EtagMismatchError, UniquenessConflictError } from '../../services/shared/errors';
import { createTestTable } from '../support/table';

/** The employees store and its transactions against DynamoDB Local, under the kit's unit of work. */
let db: Db;
let scim: ScimDeps;
beforeAll(async () => {
  db = await createTestTable();
  scim = scimDeps(db);
});

/** The area's ports on `unit`, with the store's reads replaced where a test makes them stale. */
const portsOf = (unit: UnitOfWork, reads: Partial<EmployeeStore> = {}): EmployeePorts => ({
  store: { ...employeesStore(db, unit), ...reads },
  now: () => new Date(),
  newId: randomUUID,
  seal: sealRestricted,
  unseal: unsealRestricted,
});
/** Runs a use case as the area handler does: one unit of work, committed, run again on a concurrent change. */
const run = <T>(work: (ports: EmployeePorts) => Promise<T>, reads: Partial<EmployeeStore> = {}, attempts?: number) =>
  inUnitOfWork(db, (unit) => work(portsOf(unit, reads)), { sleep: async () => undefined, ...(attempts ? { attempts } : {}) });
/** The store's reads, for the ones a test makes stale. */
const reader = (): EmployeeStore => employeesStore(db, READ_ONLY_UNIT);

const newOrg = async (): Promise<string> => {
  const id = randomUUID();
  const now = new Date().toISOString();
  await putOrganization(db, { id, name: 'Org', entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: now, updatedAt: now });
  return id;
};
const actor = (organizationId: string) => ({
  principal: { organizationId, keyId: 'k1', keyLabel: 'HR', environment: 'TEST' as const, scopes: new Set(['employees:write']) },
  requestId: randomUUID(),
});
let clock = Date.UTC(2026, 0, 1);
const plain = (org: string, over: Partial<Employee> = {}): Employee => {
  const at = new Date((clock += 1000)).toISOString();
  const id = randomUUID();
  return { id, organizationId: org, userName: `${id}@x.example`, emails: [], active: true, createdAt: at, updatedAt: at, version: 1, ...over };
};
const searchItems = async (org: string) =>
  (await db.doc.send(new QueryCommand({ TableName: db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `ORG#${org}#SEARCH#employee` } }))).Items ?? [];

describe('listEmployeesPage', () => {
  it('fills a page past inactive employees and continues after the last returned one', async () => {
    const org = await newOrg();
    const all = [plain(org, { active: false }), plain(org, { active: false }), plain(org), plain(org, { active: false }), plain(org), plain(org)];
    for (const e of all) await putEmployee(db, e);
    const active = all.filter((e) => e.active).map((e) => e.id);
    const first = await listEmployeesPage(db, org, { limit: 2, active: true });
    expect(first.employees.map((e) => e.id)).toEqual(active.slice(0, 2));
    expect(first.after).toBeDefined();
    const second = await listEmployeesPage(db, org, { limit: 2, active: true, after: first.after });
    expect(second.employees.map((e) => e.id)).toEqual(active.slice(2));
    expect(second.after).toBeUndefined();
    expect((await listEmployeesPage(db, org, { limit: 6 })).after).toBeUndefined();
  });
});

describe('search index maintenance', () => {
  it('indexes an employee created through the API in its own transaction', async () => {
    const org = await newOrg();
    const view = await run((ports) => createEmployee(ports, actor(org), { userName: 'mira@x.example', givenName: 'Mira', familyName: 'Hoffmann' }));
    expect((await searchEmployeesPage(db, org, 'hoff', { limit: 10 })).employees.map((e) => e.id)).toEqual([view.employee.id]);
  });

  it('writes no index item, employee or guard when the create loses its guard', async () => {
    const org = await newOrg();
    await run((ports) => createEmployee(ports, actor(org), { userName: 'taken@x.example' }));
    const before = await searchItems(org);
    // A concurrent create claimed the value between the guard read and the commit.
    const blind = { guardHolders: async () => new Map<string, string>() };
    await expect(run((ports) => createEmployee(ports, actor(org), { userName: 'TAKEN@x.example', familyName: 'Ghost' }), blind)).rejects.toBeInstanceOf(UniquenessConflictError);
    expect(await searchItems(org)).toEqual(before);
    expect((await searchEmployeesPage(db, org, 'ghost', { limit: 10 })).employees).toEqual([]);
  });

  it('is maintained by SCIM creates and updates in their transactions', async () => {
    const org = await newOrg();
    const { user } = await createUser(scim, actor(org), { userName: 'grace@x.example', givenName: 'Grace', familyName: 'Hopper', emails: [], active: true });
    expect((await searchEmployeesPage(db, org, 'hopper', { limit: 10 })).employees.map((e) => e.id)).toEqual([user.id]);
    await updateUser(scim, actor(org), user.id, undefined, (before) => ({ userName: before.userName, givenName: 'Grace', familyName: 'Murray', emails: [], active: true }));
    expect((await searchEmployeesPage(db, org, 'hopper', { limit: 10 })).employees).toEqual([]);
    expect((await searchEmployeesPage(db, org, 'murray grace', { limit: 10 })).employees.map((e) => e.id)).toEqual([user.id]);
  });

  it('reads ahead when the active filter thins a search page', async () => {
    const org = await newOrg();
    const make = async (familyName: string, active: boolean) => {
      const e = plain(org, { familyName, active });
      await putEmployee(db, e);
      await commit(db, employeeSearchItems(undefined, e));
      return e.id;
    };
    for (const name of ['Anders', 'Andersen', 'Anderson']) await make(name, false);
    const wanted = await make('Andrews', true);
    const page = await searchEmployeesPage(db, org, 'and', { limit: 1, active: true });
    expect(page.employees.map((e) => e.id)).toEqual([wanted]);
  });
});

describe('bank account transactions', () => {
  const setUp = async () => {
    const org = await newOrg();
    const { employee } = await run((ports) => createEmployee(ports, actor(org), { userName: `${randomUUID()}@x.example` }));
    return { org, employee };
  };

  it('stores the account sealed, the masked IBAN in clear, and bumps the employee version with it', async () => {
    const { org, employee } = await setUp();
    const account = { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', accountHolder: 'Mira Hoffmann' };
    const stored = await run((ports) => putBankAccount(ports, actor(org), employee.id, `"bank-account:${employee.id}:v0"`, account));
    expect(stored).toMatchObject({ version: 1, maskedIban: 'DE89 **** **** **** **** 00', sealed: { alg: 'AES-256-GCM', keyProvider: 'local' } });
    expect(JSON.stringify(stored)).not.toMatch(/370400440532013000|COBADEFF|Mira/);
    expect((await getEmployee(db, org, employee.id))?.version).toBe(2);
    expect((await readBankAccount(portsOf(READ_ONLY_UNIT), org, employee.id)).account).toEqual(account);
  });

  it('refuses a write computed from a stale account version with ETAG_MISMATCH and writes nothing', async () => {
    const { org, employee } = await setUp();
    const account = { iban: 'DE89370400440532013000', bic: null, accountHolder: 'A' };
    // Read before the first PUT committed: version 0 with If-Match v0, committed after it.
    const stale = { getWithBankAccount: async (o: string, id: string) => ({ employee: (await reader().getWithBankAccount(o, id)).employee }) };
    await run((ports) => putBankAccount(ports, actor(org), employee.id, `"bank-account:${employee.id}:v0"`, account));
    await expect(run((ports) => putBankAccount(ports, actor(org), employee.id, `"bank-account:${employee.id}:v0"`, null), stale)).rejects.toBeInstanceOf(EtagMismatchError);
    expect((await readBankAccount(portsOf(READ_ONLY_UNIT), org, employee.id)).account).toEqual(account);
  });

  it('reads again when the employee changed meanwhile, and gives up after a few attempts', async () => {
    const { org, employee } = await setUp();
    let reads = 0;
    const moving = {
      getWithBankAccount: async (o: string, id: string) => {
        reads += 1;
        const current = await reader().getWithBankAccount(o, id);
        return { ...current, employee: { ...current.employee!, version: current.employee!.version - 1 } };
      },
    };
    // The kit's retry, bounded here to 4 attempts (the area handler bounds it by attempts and the Lambda's time left).
    await expect(run((ports) => putBankAccount(ports, actor(org), employee.id, `"bank-account:${employee.id}:v0"`, null), moving, 4)).rejects.toMatchObject({ code: 'TRANSACTION_CONFLICT' });
    expect(reads).toBe(4);
    const unit = new TransactionUnit(db);
    employeesStore(db, unit).saveBankAccount({
      employeeBefore: { ...employee, version: 7 },
      employeeAfter: { ...employee, version: 8 },
      after: { organizationId: org, employeeId: employee.id, version: 1, updatedAt: new Date().toISOString() },
      audit: { id: randomUUID(), organizationId: org, occurredAt: new Date().toISOString(), actor: { type: 'API_KEY', keyId: 'k', label: 'l' }, action: 'x', entity: { type: 'employee', id: employee.id }, requestId: 'r' },
    });
    await expect(unit.commit()).rejects.toBeInstanceOf(EmployeeMovedError);
    expect((await readBankAccount(portsOf(READ_ONLY_UNIT), org, employee.id)).stored).toBeUndefined();
  });
});
