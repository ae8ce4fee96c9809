import { defineArea } from '../shared/area';
import { actionRoute, createRoute, listRoute, readRoute, updateRoute } from '../shared/route-shapes';
import { READ_WRITE } from '../shared/permissions';
import { bankAccountBodySchema, bankAccountReceiptSchema, bankAccountSchema, createBodySchema, deactivateBodySchema, employeeListSchema, employeeSchema, employeeSummarySchema, listQuerySchema, SENSITIVE_NOTE, updateBodySchema } from './schemas';

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
    listEmployees: listRoute({
      path: '/employees',
      scopes: ['employees:read'],
      summary: 'List or search employees',
      description: `Employees in creation order, or, with \`q\`, those whose names, userName, externalId or e-mail addresses start with every word of \`q\` (search order). Deactivated employees are included unless \`active\` says otherwise. Never bank data. ${SENSITIVE_NOTE}`,
      query: listQuerySchema,
      schema: employeeListSchema,
      returns: 'A page of employees.',
    }),
    createEmployee: createRoute({
      path: '/employees',
      scopes: ['employees:write'],
      summary: 'Create an employee',
      description: `Creates an active employee (the same record SCIM provisions), atomically with its audit entry. userName (case-insensitive) and externalId are unique in the organization: 409 UNIQUENESS_CONFLICT. Read-only members (id, createdAt, updatedAt, active, bank data) are 422 each. ${SENSITIVE_NOTE}`,
      body: createBodySchema,
      schema: employeeSchema,
      returns: 'The created employee.',
      problems: ['UNIQUENESS_CONFLICT'],
    }),
    getEmployee: readRoute({
      path: '/employees/{employeeId}',
      scopes: ['employees:read'],
      summary: 'Get one employee',
      description: `One employee with its ETag and, at most, the masked IBAN of its bank account. ${SENSITIVE_NOTE}`,
      schema: employeeSchema,
      returns: 'The employee.',
    }),
    updateEmployee: updateRoute({
      path: '/employees/{employeeId}',
      scopes: ['employees:write'],
      summary: 'Update an employee',
      description:
        'Changes any subset of the fields (null clears an optional one; emails and personalAddress are replaced as a whole); `active: true` reactivates (422 for an employee deprovisioned over SCIM). A new version, atomically with its audit entry (field names only).',
      body: updateBodySchema,
      idempotencyKey: 'required',
      schema: employeeSchema,
      returns: 'The changed employee.',
      problems: ['UNIQUENESS_CONFLICT'],
    }),
    deactivateEmployee: actionRoute({
      path: '/employees/{employeeId}/deactivate',
      scopes: ['employees:write'],
      summary: 'Deactivate an employee',
      description: 'Ends organization access (active false). The employee, its work events, time entries, reports, audit history and bank account stay; the reason goes to the audit entry.',
      body: deactivateBodySchema,
      schema: employeeSchema,
      returns: 'The deactivated employee.',
    }),
    getBankAccount: readRoute({
      path: '/employees/{employeeId}/bank-account',
      scopes: ['employees:read_financial'],
      summary: "Get an employee's bank account",
      description: 'The full bank account (IBAN in print format, BIC, account holder): the only place it is returned. An employee without one answers nulls with ETag version 0, for the first PUT.',
      schema: bankAccountSchema,
      returns: 'The bank account.',
    }),
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
