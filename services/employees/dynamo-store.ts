import { auditItem } from '../audit/model';
import type { Db } from '../shared/ddb/client';
import { IDEMPOTENCY_LABEL } from '../shared/ddb/idempotency';
import { batchGet } from '../shared/ddb/read';
import { commit, TransactionCancelledError, type TxItem } from '../shared/ddb/transaction';
import { EtagMismatchError, UniquenessConflictError } from '../shared/errors';
import { BANK_ACCOUNT_LABEL, bankAccountFromItem, bankAccountKey, putBankAccountItem } from './bank-store';
import { EmployeeMovedError, type EmployeeStore } from './domain';
import {
  EMPLOYEE_LABEL,
  employeeChangeItems,
  employeeFromItem,
  employeeKeys,
  guardLabel,
  listEmployeesPage,
  putEmployeeItem,
  readGuardHolders,
  searchEmployeesPage,
  type UniqueAttribute,
} from './store';

/**
 * The DynamoDB adapter of the employees port: the employee items of services/employees/store.ts
 * (shared with SCIM), the bank-account item of bank-store.ts, and ONE TransactWriteItems per
 * change whose cancellation is explained per item.
 */
export function dynamoEmployeeStore(db: Db): EmployeeStore {
  return {
    async getWithBankAccount(organizationId, id) {
      const [employee, bankAccount] = await batchGet(db, [employeeKeys.employee(organizationId, id), bankAccountKey(organizationId, id)]);
      return { ...(employee ? { employee: employeeFromItem(employee) } : {}), ...(bankAccount ? { bankAccount: bankAccountFromItem(bankAccount) } : {}) };
    },
    guardHolders: (organizationId, values) => readGuardHolders(db, organizationId, values),
    list: (organizationId, { q, ...page }) => (q === undefined ? listEmployeesPage(db, organizationId, page) : searchEmployeesPage(db, organizationId, q, page)),
    async commitEmployee(write) {
      await commitExplained(db, employeeChangeItems(write), (error) => {
        if (error.failed(EMPLOYEE_LABEL)) return new EtagMismatchError();
        const taken = (['userName', 'externalId'] as UniqueAttribute[]).find((a) => error.failed(guardLabel(a)));
        return taken ? new UniquenessConflictError(taken) : undefined;
      });
    },
    async commitBankAccount(write) {
      const items = [putBankAccountItem(write.after, write.before?.version ?? 0), putEmployeeItem(write.employeeAfter, write.employeeBefore.version), auditItem(write.audit), ...write.extra];
      await commitExplained(db, items, (error) => {
        if (error.failed(BANK_ACCOUNT_LABEL)) return new EtagMismatchError();
        return error.failed(EMPLOYEE_LABEL) ? new EmployeeMovedError({ cause: error }) : undefined;
      });
    },
  };
}

/** Commits; a failed condition becomes the error `explain` gives (the idempotency record's own is left to runIdempotent). */
async function commitExplained(db: Db, items: readonly TxItem[], explain: (error: TransactionCancelledError) => Error | undefined): Promise<void> {
  try {
    await commit(db, items);
  } catch (error) {
    if (!(error instanceof TransactionCancelledError) || error.failed(IDEMPOTENCY_LABEL)) throw error;
    throw explain(error) ?? error;
  }
}
