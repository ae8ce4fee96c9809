import type { Db } from '../shared/ddb/client';
import { batchGet, collect, collectAll, getOne } from '../shared/ddb/read';
import { searchIds } from '../shared/ddb/search';
import { bankAccountFromItem, employeeFromItem, employeeKeys, type Employee, type StoredBankAccount } from './model';
import { EMPLOYEE_SEARCH_SCOPE } from './store-search';

/**
 * The employees' reads: by key (consistent), the lookups SCIM filters with, and the pages of
 * GET /employees (creation order on GSI1, or `q` on the word index). Every key starts with the
 * organization, so another organization's id is simply not found.
 */

const ids = (items: readonly Record<string, unknown>[], attribute: string): string[] =>
  items.flatMap((i) => {
    const value = i[attribute];
    return typeof value === 'string' ? [value] : [];
  });

export const getEmployee = (db: Db, organizationId: string, id: string): Promise<Employee | undefined> => getOne(db, employeeKeys.employee(organizationId, id), employeeFromItem);

/** Employees by id, in the order asked; ids that do not exist are left out. */
export async function getEmployees(db: Db, organizationId: string, employeeIds: readonly string[]): Promise<Employee[]> {
  const found: Employee[] = [];
  for (let i = 0; i < employeeIds.length; i += 100) {
    const items = await batchGet(db, employeeIds.slice(i, i + 100).map((id) => employeeKeys.employee(organizationId, id)));
    for (const item of items) if (item) found.push(employeeFromItem(item));
  }
  return found;
}

/** The employee and its bank-account item, consistently, in one BatchGetItem. */
export async function getWithBankAccount(db: Db, organizationId: string, id: string): Promise<{ readonly employee?: Employee; readonly bankAccount?: StoredBankAccount }> {
  const [employee, bankAccount] = await batchGet(db, [employeeKeys.employee(organizationId, id), employeeKeys.bankAccount(organizationId, id)]);
  return { ...(employee ? { employee: employeeFromItem(employee) } : {}), ...(bankAccount ? { bankAccount: bankAccountFromItem(bankAccount) } : {}) };
}

/** Ids of the employees with this e-mail address (any type, case-insensitive): one Query. */
export async function employeeIdsByEmail(db: Db, organizationId: string, email: string): Promise<string[]> {
  const items = await collectAll(db, {
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': employeeKeys.emailPartition(organizationId, email) },
    ProjectionExpression: 'employeeId',
    ConsistentRead: true,
  });
  return ids(items, 'employeeId');
}

/** Ids of the employees with this displayName (case-insensitive), creation order: one Query on GSI2. */
export async function employeeIdsByDisplayName(db: Db, organizationId: string, displayName: string): Promise<string[]> {
  const items = await collectAll(db, {
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :pk',
    ExpressionAttributeValues: { ':pk': employeeKeys.byDisplayName(organizationId, displayName).GSI2PK },
    ProjectionExpression: 'id',
  });
  return ids(items, 'id');
}

/**
 * Ids of the organization's employees in creation order (GSI1), leaving out those whose
 * SCIM resource was deleted: one Query, paged through, returning ids only.
 */
export async function listVisibleEmployeeIds(db: Db, organizationId: string): Promise<string[]> {
  const items = await collectAll(db, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    FilterExpression: 'attribute_not_exists(scimDeleted) OR scimDeleted = :no',
    ExpressionAttributeValues: { ':pk': employeeKeys.byOrganization(organizationId).GSI1PK, ':no': false },
    ProjectionExpression: 'id',
  });
  return ids(items, 'id');
}

export interface EmployeePageQuery {
  readonly limit: number;
  /** Only active (true) or inactive (false) employees. */
  readonly active?: boolean;
  /** Continuation position from a previous page. */
  readonly after?: string;
}

export interface EmployeePage {
  readonly employees: Employee[];
  /** Position after the last employee returned, when more may follow. */
  readonly after?: string;
}

/**
 * Employees of the organization in creation order (GSI1), optionally only active or inactive
 * ones: one Query from the position after `after` (a GSI1SK), `limit + 1` read to know
 * whether more follow. `after` of the result is the last returned position when they do.
 */
export async function listEmployeesPage(db: Db, organizationId: string, query: EmployeePageQuery): Promise<EmployeePage> {
  const { items } = await collect(
    db,
    {
      IndexName: 'GSI1',
      KeyConditionExpression: query.after ? 'GSI1PK = :pk AND GSI1SK > :after' : 'GSI1PK = :pk',
      ...(query.active !== undefined ? { FilterExpression: 'active = :active' } : {}),
      ExpressionAttributeValues: {
        ':pk': employeeKeys.byOrganization(organizationId).GSI1PK,
        ...(query.after ? { ':after': query.after } : {}),
        ...(query.active !== undefined ? { ':active': query.active } : {}),
      },
    },
    query.limit + 1,
  );
  const page = items.slice(0, query.limit).map(employeeFromItem);
  const last = page.at(-1);
  const more = items.length > query.limit && last !== undefined;
  return { employees: page, ...(more ? { after: employeeKeys.byOrganization(organizationId, last.createdAt, last.id).GSI1SK } : {}) };
}

/** Search pages read ahead at most this often to fill a page that the `active` filter thinned. */
const SEARCH_ROUNDS = 10;

/**
 * Employees matching every word of `q` by prefix (name, userName, externalId, e-mail), in the
 * index's order, optionally only active or inactive ones. A page may hold fewer than `limit`
 * employees when many matches were filtered out; `after` says whether more may follow.
 */
export async function searchEmployeesPage(db: Db, organizationId: string, q: string, query: EmployeePageQuery): Promise<EmployeePage> {
  const employees: Employee[] = [];
  let after = query.after;
  for (let round = 0; round < SEARCH_ROUNDS && employees.length < query.limit; round += 1) {
    const page = await searchIds(db, organizationId, EMPLOYEE_SEARCH_SCOPE, q, query.limit - employees.length, after);
    const found = await getEmployees(db, organizationId, page.entityIds);
    employees.push(...found.filter((e) => query.active === undefined || e.active === query.active));
    after = page.after;
    if (after === undefined) break;
  }
  return { employees, ...(after !== undefined ? { after } : {}) };
}

/** One page of GET /employees: creation order, or search order with `q`. */
export const listEmployees = (db: Db, organizationId: string, query: EmployeePageQuery & { readonly q?: string }): Promise<EmployeePage> => {
  const { q, ...page } = query;
  return q === undefined ? listEmployeesPage(db, organizationId, page) : searchEmployeesPage(db, organizationId, q, page);
};
