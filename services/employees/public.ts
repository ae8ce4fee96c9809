/**
 * What other areas may use of employees (their declared port). SCIM provisions the same
 * records through these; timesheets, evidence and reports check and read employees by key.
 */
export {
  holderKey,
  planGuardMoves,
  uniqueValueOf,
  employeeKeys,
  type Employee,
  type EmployeeAddress,
  type EmployeeEmail,
  type EmployeePhoneNumber,
  type GuardAction,
  type UniqueAttribute,
  type UniqueValue,
} from './model';
export type { EmployeeChange } from './domain';
export { activeEmployeeCheck, EMPLOYEE_LABEL, employeeChangeItems, employeeExistsCheck, employeeItems, putEmployee, saveEmployee, type EmployeeWrite } from './store';
export { readGuardHolders } from './store-guards';
export { employeeIdsByDisplayName, employeeIdsByEmail, getEmployee, getEmployees, listEmployeesPage, listVisibleEmployeeIds } from './store-reads';
export { employeeSearchItems } from './store-search';
/** The overview's search pages employees with `q` (services/overview): the employee item, never bank data. */
export { searchEmployeesPage } from './store-reads';
