import { defineArea } from '../shared/area';
import { READ_WRITE } from '../shared/permissions';
import {
  bankAccountBodySchema,
  bankAccountReceiptSchema,
  bankAccountSchema,
  createBodySchema,
  deactivateBodySchema,
  employeeListSchema,
  employeeSchema,
  employeeSummarySchema,
  listQuerySchema,
  updateBodySchema,
} from './schemas';

const SENSITIVE = 'dateOfBirth, personalAddress and taxId are present only for keys with employees:read_sensitive (absent otherwise).';

/** Employees (the records SCIM provisions) and their bank accounts. */
export const employeesArea = defineArea({
  name: 'employees',
  api: 'public',
  description: 'Employees (the records SCIM provisions) and their bank accounts.',
  // Employees with their guards, search index and bank account (sealed; decrypted only by GET bank-account).
  permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: true, restrictedDataDecrypt: true },
  auditEntityTypes: ['employee'],
  schemas: {
    Employee: employeeSchema,
    EmployeeSummary: employeeSummarySchema,
    EmployeeList: employeeListSchema,
    BankAccount: bankAccountSchema,
    BankAccountReceipt: bankAccountReceiptSchema,
  },
  routes: {
    listEmployees: {
      method: 'GET',
      path: '/employees',
      scopes: ['employees:read'],
      summary: 'List or search employees',
      description: `Employees in creation order, or, with \`q\`, those whose names, userName, externalId or e-mail addresses start with every word of \`q\` (search order). Deactivated employees are included unless \`active\` says otherwise. Never bank data. ${SENSITIVE}`,
      query: listQuerySchema,
      success: { status: 200, description: 'A page of employees.', schema: employeeListSchema },
      problems: [],
    },
    createEmployee: {
      method: 'POST',
      path: '/employees',
      scopes: ['employees:write'],
      summary: 'Create an employee',
      description: `Creates an active employee (the same record SCIM provisions), atomically with its audit entry. userName (case-insensitive) and externalId are unique in the organization: 409 UNIQUENESS_CONFLICT. Read-only members (id, createdAt, updatedAt, active, bank data) are 422 each. ${SENSITIVE}`,
      body: createBodySchema,
      idempotencyKey: 'required',
      success: { status: 201, description: 'The created employee.', schema: employeeSchema, headers: ['ETag', 'Location'] },
      problems: ['UNIQUENESS_CONFLICT'],
    },
    getEmployee: {
      method: 'GET',
      path: '/employees/{employeeId}',
      scopes: ['employees:read'],
      summary: 'Get one employee',
      description: `One employee with its ETag and, at most, the masked IBAN of its bank account. ${SENSITIVE}`,
      success: { status: 200, description: 'The employee.', schema: employeeSchema, headers: ['ETag'] },
      problems: [],
    },
    updateEmployee: {
      method: 'PATCH',
      path: '/employees/{employeeId}',
      scopes: ['employees:write'],
      summary: 'Update an employee',
      description:
        'Changes any subset of the fields (null clears an optional one; emails and personalAddress are replaced as a whole); `active: true` reactivates (422 for an employee deprovisioned over SCIM). A new version, atomically with its audit entry (field names only).',
      body: updateBodySchema,
      idempotencyKey: 'required',
      ifMatch: 'required',
      success: { status: 200, description: 'The changed employee.', schema: employeeSchema, headers: ['ETag'] },
      problems: ['UNIQUENESS_CONFLICT'],
    },
    deactivateEmployee: {
      method: 'POST',
      path: '/employees/{employeeId}/deactivate',
      scopes: ['employees:write'],
      summary: 'Deactivate an employee',
      description: 'Ends organization access (active false). The employee, its work events, time entries, reports, audit history and bank account stay; the reason goes to the audit entry.',
      body: deactivateBodySchema,
      idempotencyKey: 'required',
      ifMatch: 'required',
      success: { status: 200, description: 'The deactivated employee.', schema: employeeSchema, headers: ['ETag'] },
      problems: [],
    },
    getBankAccount: {
      method: 'GET',
      path: '/employees/{employeeId}/bank-account',
      scopes: ['employees:read_financial'],
      summary: "Get an employee's bank account",
      description: 'The full bank account (IBAN in print format, BIC, account holder): the only place it is returned. An employee without one answers nulls with ETag version 0, for the first PUT.',
      success: { status: 200, description: 'The bank account.', schema: bankAccountSchema, headers: ['ETag'] },
      problems: [],
    },
    putBankAccount: {
      method: 'PUT',
      path: '/employees/{employeeId}/bank-account',
      scopes: ['employees:write', 'employees:write_financial'],
      summary: "Set or clear an employee's bank account",
      description:
        'Sets (IBAN validated: characters, country, length and format of that country, mod-97 and national check digits; BIC format and country) or clears (`iban: null`) the account, stored encrypted, atomically with an audit entry that holds no bank data. Answers a receipt with the masked IBAN, never the account.',
      body: bankAccountBodySchema,
      idempotencyKey: 'required',
      ifMatch: 'required',
      success: { status: 200, description: 'The receipt of the change.', schema: bankAccountReceiptSchema, headers: ['ETag'] },
      problems: [],
    },
  },
});
