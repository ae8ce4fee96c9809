import {
  employeeChangeItems,
  employeeIdsByDisplayName,
  employeeIdsByEmail,
  getEmployee,
  getEmployees,
  listVisibleEmployeeIds,
  readGuardHolders,
} from '../employees/public';
import type { Db } from '../shared/ddb/client';
import { IDEMPOTENCY_LABEL } from '../shared/ddb/idempotency';
import { commit, TransactionCancelledError } from '../shared/ddb/transaction';
import { StaleReadError, type UserStore } from './domain';

/**
 * The DynamoDB adapter of the SCIM user port: reads through the employee store's access
 * patterns (docs/scim.md) and commits each change as ONE TransactWriteItems.
 */
export function dynamoUserStore(db: Db): UserStore {
  return {
    getUser: (org, id) => getEmployee(db, org, id),
    getUsers: (org, ids) => getEmployees(db, org, ids),
    guardHolders: (org, values) => readGuardHolders(db, org, values),
    idsByEmail: (org, email) => employeeIdsByEmail(db, org, email),
    idsByDisplayName: (org, displayName) => employeeIdsByDisplayName(db, org, displayName),
    visibleIds: (org) => listVisibleEmployeeIds(db, org),
    async commit(write) {
      try {
        await commit(db, employeeChangeItems(write));
      } catch (error) {
        // The idempotency record's own failure is resolved by runIdempotent (replay or 409).
        if (error instanceof TransactionCancelledError && !error.failed(IDEMPOTENCY_LABEL)) throw new StaleReadError({ cause: error });
        throw error;
      }
    },
  };
}
