import { AUDIT_LABEL } from '../audit/model';
import { employeeChangeItems, employeeIdsByDisplayName, employeeIdsByEmail, getEmployee, getEmployees, listVisibleEmployeeIds, readGuardHolders } from '../employees/public';
import type { Db } from '../shared/ddb/client';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import { ConcurrentChangeError } from '../shared/domain/conflict';
import type { UserStore } from './domain';

/**
 * The DynamoDB adapter of the SCIM user port. SCIM keeps no items of its own: it reads and
 * writes employees through the employees area's port (services/employees/public.ts; keys
 * and access patterns in docs/scim.md), and stages each change in the request's unit of work.
 */
export function scimUserStore(db: Db, unit: UnitOfWork): UserStore {
  return {
    getUser: (org, id) => getEmployee(db, org, id),
    getUsers: (org, ids) => getEmployees(db, org, ids),
    guardHolders: (org, values) => readGuardHolders(db, org, values),
    idsByEmail: (org, email) => employeeIdsByEmail(db, org, email),
    idsByDisplayName: (org, displayName) => employeeIdsByDisplayName(db, org, displayName),
    visibleIds: (org) => listVisibleEmployeeIds(db, org),
    saveUser(write) {
      // The employee's items (entry at the version read, guards, retired holders, e-mail lookups,
      // search index); the unit adds the audit entry and the idempotency record.
      const items = employeeChangeItems({ ...write, extra: [] }).filter((item) => item.label !== AUDIT_LABEL);
      unit.stage({
        items,
        audit: write.audit,
        // Every condition of these items is on something the use case read (the employee's
        // version, a guard's holder, a retired holder): it moved, so run the use case again;
        // its reads then answer 404, 409 uniqueness or the new state.
        explain: (error) => (error.failedLabels().some((label) => items.some((item) => item.label === label)) ? new ConcurrentChangeError('A user or a value it claims') : undefined),
      });
    },
  };
}
