import type { AreaDocs } from '../openapi/types';
import type { ErrorCode } from '../shared/errors';
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

/** OpenAPI descriptions of the employees operations (services/openapi/document.ts). */
const WRITE_PROBLEMS: ErrorCode[] = ['IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_REQUEST_IN_PROGRESS', 'VALIDATION_ERROR', 'MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'TRANSACTION_CONFLICT'];
const CHANGE_PROBLEMS: ErrorCode[] = [...WRITE_PROBLEMS, 'RESOURCE_NOT_FOUND', 'ETAG_REQUIRED', 'ETAG_MISMATCH'];
const SENSITIVE = 'dateOfBirth, personalAddress and taxId are present only for keys with employees:read_sensitive (absent otherwise).';

export const employeesDocs: AreaDocs = {
  schemas: {
    Employee: employeeSchema,
    EmployeeSummary: employeeSummarySchema,
    EmployeeList: employeeListSchema,
    BankAccount: bankAccountSchema,
    BankAccountReceipt: bankAccountReceiptSchema,
  },
  operations: {
    listEmployees: {
      description: `Employees in creation order, or, with \`q\`, those whose names, userName, externalId or e-mail addresses start with every word of \`q\` (search order). Deactivated employees are included unless \`active\` says otherwise. Never bank data. ${SENSITIVE}`,
      query: listQuerySchema,
      success: { status: 200, description: 'A page of employees.', ref: 'EmployeeList' },
      problems: ['VALIDATION_ERROR'],
    },
    createEmployee: {
      description: `Creates an active employee (the same record SCIM provisions), atomically with its audit entry. userName (case-insensitive) and externalId are unique in the organization: 409 UNIQUENESS_CONFLICT. ${SENSITIVE}`,
      body: createBodySchema,
      headers: { 'Idempotency-Key': 'required' },
      success: { status: 201, description: 'The created employee.', ref: 'Employee', headers: ['ETag', 'Location', 'Idempotency-Replayed'] },
      problems: [...WRITE_PROBLEMS, 'UNIQUENESS_CONFLICT'],
    },
    getEmployee: {
      description: `One employee with its ETag and, at most, the masked IBAN of its bank account. ${SENSITIVE}`,
      success: { status: 200, description: 'The employee.', ref: 'Employee', headers: ['ETag'] },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    updateEmployee: {
      description: 'Changes any subset of the fields (null clears an optional one; emails and personalAddress are replaced as a whole); `active: true` reactivates. A new version, atomically with its audit entry (field names only).',
      body: updateBodySchema,
      headers: { 'Idempotency-Key': 'required', 'If-Match': 'required' },
      success: { status: 200, description: 'The changed employee.', ref: 'Employee', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: [...CHANGE_PROBLEMS, 'UNIQUENESS_CONFLICT'],
    },
    deactivateEmployee: {
      description: 'Ends organization access (active false). The employee, its work events, time entries, reports, audit history and bank account stay; the reason goes to the audit entry.',
      body: deactivateBodySchema,
      headers: { 'Idempotency-Key': 'required', 'If-Match': 'required' },
      success: { status: 200, description: 'The deactivated employee.', ref: 'Employee', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: CHANGE_PROBLEMS,
    },
    getBankAccount: {
      description: 'The full bank account (IBAN in print format, BIC, account holder): the only place it is returned. An employee without one answers nulls with ETag version 0, for the first PUT.',
      success: { status: 200, description: 'The bank account.', ref: 'BankAccount', headers: ['ETag'] },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    putBankAccount: {
      description:
        'Sets (IBAN validated: characters, country, length, mod-97 check digits; BIC format) or clears (`iban: null`) the account, stored encrypted, atomically with an audit entry that holds no bank data. Answers a receipt with the masked IBAN, never the account.',
      body: bankAccountBodySchema,
      headers: { 'Idempotency-Key': 'required', 'If-Match': 'required' },
      success: { status: 200, description: 'The receipt of the change.', ref: 'BankAccountReceipt', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: CHANGE_PROBLEMS,
    },
  },
};
