import type { Actor } from '../shared/domain/actor';
import { assertEtag, entityEtag } from '../shared/domain/etag';
import { revised } from '../shared/domain/lifecycle';
import { employeeAudit, readEmployee, type EmployeePorts } from './domain';
import { maskIban } from './domain-iban';
import { bankAccountDataSchema, type BankAccountData, type Employee, type StoredBankAccount } from './model';

/**
 * An employee's bank account: set, cleared and read only through its own resource, stored
 * sealed (IBAN, BIC, holder) beside the employee, with only the masked IBAN in clear.
 */

export const bankAccountEtag = (employeeId: string, account: StoredBankAccount | undefined): string => entityEtag('bank-account', employeeId, account?.version ?? 0);

export interface BankAccountView {
  readonly employeeId: string;
  readonly account: BankAccountData | null;
  readonly stored?: StoredBankAccount;
}

/**
 * GET /employees/{id}/bank-account: the full account, unsealed. 404 if the employee is not of
 * this organization; an employee never given an account answers nulls at version 0, so that
 * a first PUT has an If-Match to send.
 */
export async function readBankAccount(ports: EmployeePorts, organizationId: string, employeeId: string): Promise<BankAccountView> {
  const { bankAccount } = await readEmployee(ports, organizationId, employeeId);
  const account = bankAccount?.sealed ? bankAccountDataSchema.parse(await ports.unseal(bankAccount.sealed)) : null;
  return { employeeId, account, ...(bankAccount ? { stored: bankAccount } : {}) };
}

/**
 * PUT /employees/{id}/bank-account: sets (validated and normalized by the body schema) or
 * clears (`null`) the account.
 * 1. Read the employee (404) and its account; If-Match must be the account's ETag (412).
 * 2. Seal the account (IBAN, BIC, holder); keep only the masked IBAN in clear.
 * 3. Stage: the account at version + 1 (only if still at the version read: 412), the employee
 *    at version + 1 (its detail shows the masked IBAN), the audit entry (no bank data: the
 *    attribute name only). If the employee changed meanwhile (SCIM, a PATCH), the kit runs
 *    the use case again from 1.
 */
export async function putBankAccount(ports: EmployeePorts, actor: Actor, employeeId: string, ifMatch: string, account: BankAccountData | null): Promise<StoredBankAccount> {
  const org = actor.principal.organizationId;
  const { employee, bankAccount: before } = await readEmployee(ports, org, employeeId);
  assertEtag(ifMatch, bankAccountEtag(employeeId, before));
  const now = ports.now().toISOString();
  const after: StoredBankAccount = {
    organizationId: org,
    employeeId,
    version: (before?.version ?? 0) + 1,
    ...(account ? { sealed: await ports.seal(account), maskedIban: maskIban(account.iban) } : {}),
    updatedAt: now,
  };
  const employeeAfter: Employee = revised(employee, now);
  const audit = { ...employeeAudit(ports, actor, account ? 'employee.bank_account_set' : 'employee.bank_account_cleared', employee, employeeAfter), changedAttributes: ['bankAccount'] };
  ports.store.saveBankAccount({ employeeBefore: employee, employeeAfter, ...(before ? { before } : {}), after, audit });
  return after;
}
