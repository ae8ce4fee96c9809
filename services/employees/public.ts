/**
 * What other areas may use of employees (their declared port). SCIM provisions the same
 * records through these; timesheets, evidence and reports check and read employees by key.
 */
export {
  EMPLOYEE_LABEL,
  employeeChangeItems,
  employeeExistsCheck,
  employeeIdsByDisplayName,
  employeeIdsByEmail,
  employeeKeys,
  employeeSearchItems,
  getEmployee,
  getEmployees,
  holderKey,
  listEmployeesPage,
  listVisibleEmployeeIds,
  putEmployee,
  readGuardHolders,
  uniqueValueOf,
  type Employee,
  type EmployeeAddress,
  type EmployeeEmail,
  type EmployeePhoneNumber,
  type EmployeeWrite,
  type GuardAction,
  type UniqueAttribute,
  type UniqueValue,
} from './store';
