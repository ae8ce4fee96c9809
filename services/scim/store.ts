import { auditItem } from '../audit/store';
import {
  claimGuardItem,
  emailLookupChanges,
  employeeIdsByDisplayName,
  employeeIdsByEmail,
  employeeSearchItems,
  getEmployee,
  getEmployees,
  keepGuardItem,
  listVisibleEmployeeIds,
  putEmployeeItem,
  readGuardHolders,
  releaseGuardItem,
  retiredHolderCheck,
  takeOverGuardItem,
} from '../employees/store';
import type { Db } from '../shared/ddb/client';
import { IDEMPOTENCY_LABEL } from '../shared/ddb/idempotency';
import { commit, TransactionCancelledError, type TxItem } from '../shared/ddb/transaction';
import { StaleReadError, type GuardAction, type UserStore, type UserWrite } from './domain';

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
        await commit(db, writeItems(write));
      } catch (error) {
        // The idempotency record's own failure is resolved by runIdempotent (replay or 409).
        if (error instanceof TransactionCancelledError && !error.failed(IDEMPOTENCY_LABEL)) throw new StaleReadError({ cause: error });
        throw error;
      }
    },
  };
}

/**
 * The items of one user change: the employee (new, or at the version read), its guard
 * actions (with a check that a retired holder is still retired and unchanged), e-mail
 * lookups and search index items added and removed, the audit entry, and the caller's extra items.
 */
export function writeItems(write: UserWrite): TxItem[] {
  const org = write.after.organizationId;
  const me = write.after.id;
  const holderChecks = new Map<string, TxItem>();
  const guardItem = (g: GuardAction): TxItem => {
    switch (g.kind) {
      case 'claim':
        return claimGuardItem(org, g.attribute, g.value, me);
      case 'keep':
        return keepGuardItem(org, g.attribute, g.value, me);
      case 'release':
        return releaseGuardItem(org, g.attribute, g.value, me);
      case 'takeOver':
        if (g.from.version !== undefined) holderChecks.set(g.from.id, retiredHolderCheck(org, g.from.id, g.from.version));
        return takeOverGuardItem(org, g.attribute, g.value, me, g.from.id);
    }
  };
  const guards = write.guards.map(guardItem);
  return [
    putEmployeeItem(write.after, write.before?.version),
    ...guards,
    ...holderChecks.values(),
    ...emailLookupChanges(org, me, write.before?.emails ?? [], write.after.emails),
    // The employees API's `q` search finds SCIM-provisioned employees through the same index.
    ...employeeSearchItems(write.before, write.after),
    auditItem(write.audit),
    ...write.extra,
  ];
}
