// TEMPORARY skeleton: replaced with the full descriptions of the employees operations.
import type { AreaDocs } from '../openapi/types';

export const employeesDocs: AreaDocs = {
  schemas: {},
  operations: {
    listEmployees: { description: 'List or search employees', success: { status: 200, description: 'List or search employees' }, problems: ['VALIDATION_ERROR'] },
    createEmployee: { description: 'Create an employee', success: { status: 201, description: 'Create an employee' }, problems: ['VALIDATION_ERROR'] },
    getEmployee: { description: 'Get one employee', success: { status: 200, description: 'Get one employee' }, problems: ['VALIDATION_ERROR'] },
    updateEmployee: { description: 'Update an employee', success: { status: 200, description: 'Update an employee' }, problems: ['VALIDATION_ERROR'] },
    deactivateEmployee: { description: 'Deactivate an employee', success: { status: 200, description: 'Deactivate an employee' }, problems: ['VALIDATION_ERROR'] },
    getBankAccount: { description: "Get an employee's bank account", success: { status: 200, description: "Get an employee's bank account" }, problems: ['VALIDATION_ERROR'] },
    putBankAccount: { description: "Set or clear an employee's bank account", success: { status: 200, description: "Set or clear an employee's bank account" }, problems: ['VALIDATION_ERROR'] },
  },
};
