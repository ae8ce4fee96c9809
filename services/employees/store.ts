import { auditItem } from '../audit/model';
import type { Db } from '../shared/ddb/client';
import { versionedPut } from '../shared/ddb/entity';
import { commit, type TransactionCancelledError, type TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import { EtagMismatchError, UniquenessConflictError } from '../shared/errors';
import { EmployeeMovedError, type BankAccountChange, type EmployeeChange, type EmployeeStore } from './domain';
import { employeeKeys, employeeToItem, type Employee, type UniqueAttribute } from './model';
import { BANK_ACCOUNT_LABEL, putBankAccountItem } from './store-bank';
import { emailLookupChanges, emailLookupItem, guardActionItems, guardItem, guardLabel, readGuardHolders, uniqueEmails } from './store-guards';
import { getWithBankAccount } from './store-reads';
import { employeeSearchItems } from './store-search';

/**
 * The DynamoDB adapter of employees: the employee item and everything one change of it
 * commits (guards, e-mail lookups, search words: store-guards.ts, store-search.ts), the
 * bank account beside it (store-bank.ts), and the port the use cases run on. Keys and item
 * shapes: model.ts; reads and pages: store-reads.ts. Writes are staged in the request's unit
 * of work; SCIM builds its transactions from the same `employeeItems`.
 */

export const EMPLOYEE_LABEL = 'employee';

/** Holds only while the employee exists in this organization. */
export const employeeExistsCheck = (organizationId: string, id: string): TxItem => ({
  label: EMPLOYEE_LABEL,
  op: { ConditionCheck: { Key: employeeKeys.employee(organizationId, id), ConditionExpression: 'attribute_exists(PK)' } },
});

/** Holds only while the employee exists in this organization and is active (not deactivated, over this API or SCIM). */
export const activeEmployeeCheck = (organizationId: string, id: string): TxItem => ({
  label: EMPLOYEE_LABEL,
  op: { ConditionCheck: { Key: employeeKeys.employee(organizationId, id), ConditionExpression: 'attribute_exists(PK) AND active = :active', ExpressionAttributeValues: { ':active': true } } },
});

/**
 * Writes the next state of an employee: a new one only if the id is free, an existing one
 * only if nobody changed it since it was read (`expectedVersion`).
 */
export const putEmployeeItem = (e: Employee, expectedVersion?: number): TxItem =>
  versionedPut(EMPLOYEE_LABEL, employeeToItem(e), expectedVersion === undefined ? undefined : { version: expectedVersion });

/**
 * The items of one employee change, whichever API makes it (SCIM or the employees API),
 * without its audit entry: the employee (new, or at the version read), its guard actions
 * (with a check that a retired holder is still retired and unchanged), and the e-mail lookups
 * and search index items added and removed.
 */
export function employeeItems(change: Omit<EmployeeChange, 'audit'>): TxItem[] {
  const org = change.after.organizationId;
  const me = change.after.id;
  return [
    putEmployeeItem(change.after, change.before?.version),
    ...guardActionItems(org, me, change.guards),
    ...emailLookupChanges(org, me, change.before?.emails ?? [], change.after.emails),
    ...employeeSearchItems(change.before, change.after),
  ];
}

/** Everything one employee change commits, atomically, for a caller that commits it itself. */
export interface EmployeeWrite extends EmployeeChange {
  /** The caller's items for the same transaction (the idempotency record). */
  readonly extra: readonly TxItem[];
}

/** The items of one employee change with its audit entry and the caller's extra items: one transaction. */
export const employeeChangeItems = (write: EmployeeWrite): TxItem[] => [...employeeItems(write), auditItem(write.audit), ...write.extra];

/**
 * A failed condition of an employee change: the employee moved since the If-Match was
 * checked (412), a value was claimed by another employee meanwhile (409), a value given up
 * is no longer ours (read again).
 */
function explainEmployee(error: TransactionCancelledError): Error | undefined {
  if (error.failed(EMPLOYEE_LABEL)) return new EtagMismatchError();
  const attributes: UniqueAttribute[] = ['userName', 'externalId'];
  const taken = attributes.find((a) => error.failed(guardLabel(a)));
  if (taken) return new UniquenessConflictError(taken);
  const released = attributes.find((a) => error.failed(`release:${a}`));
  return released ? new EmployeeMovedError({ cause: error }) : undefined;
}

/** Stages an employee change in the unit of work (its audit entry with it). */
export function saveEmployee(unit: UnitOfWork, change: EmployeeChange): void {
  unit.stage({ items: employeeItems(change), audit: change.audit, explain: explainEmployee });
}

/**
 * Stages a bank-account change: the account at its next version (only if still at the
 * version read: 412 otherwise) and the employee at its next version (only if unchanged:
 * otherwise the use case reads again).
 */
export function saveBankAccount(unit: UnitOfWork, change: BankAccountChange): void {
  unit.stage({
    items: [putBankAccountItem(change.after, change.before), putEmployeeItem(change.employeeAfter, change.employeeBefore.version)],
    audit: change.audit,
    explain: (error) => {
      if (error.failed(BANK_ACCOUNT_LABEL)) return new EtagMismatchError();
      return error.failed(EMPLOYEE_LABEL) ? new EmployeeMovedError({ cause: error }) : undefined;
    },
  });
}

/** The employees store port on DynamoDB, staging writes in `unit`. */
export const employeesStore = (db: Db, unit: UnitOfWork): EmployeeStore => ({
  getWithBankAccount: (org, id) => getWithBankAccount(db, org, id),
  guardHolders: (org, values) => readGuardHolders(db, org, values),
  saveEmployee: (change) => saveEmployee(unit, change),
  saveBankAccount: (change) => saveBankAccount(unit, change),
});

/**
 * Plain put, for seeds and tests: the employee with its uniqueness guards and e-mail lookups,
 * unconditionally (last writer wins). Both APIs write through the conditional items above.
 */
export async function putEmployee(db: Db, e: Employee): Promise<void> {
  const plain = (label: string, Item: Record<string, unknown>): TxItem => ({ label, op: { Put: { Item } } });
  await commit(db, [
    plain(EMPLOYEE_LABEL, employeeToItem(e)),
    plain('guard:userName', guardItem(e.organizationId, 'userName', e.userName, e.id)),
    ...(e.externalId ? [plain('guard:externalId', guardItem(e.organizationId, 'externalId', e.externalId, e.id))] : []),
    ...uniqueEmails(e.emails).map((email, i) => plain(`email:${i}`, emailLookupItem(e.organizationId, email, e.id))),
  ]);
}

// The reads and key builders, for the callers (tests, seeds) of the former single store file.
export { employeeKeys, holderKey, type Employee } from './model';
export { getEmployee, getEmployees, listEmployeesPage, searchEmployeesPage } from './store-reads';
export { employeeSearchItems, employeeSearchWords } from './store-search';
