// TEMPORARY skeleton: replaced by the employees implementation in this change series.
import { createHandler } from '../shared/http/handler';
import { AppError } from '../shared/errors';

const notYet = async () => {
  throw new AppError('INTERNAL_ERROR', 'not implemented yet');
};

export const handler = createHandler({
  area: 'employees',
  operations: {
    listEmployees: notYet,
    createEmployee: notYet,
    getEmployee: notYet,
    updateEmployee: notYet,
    deactivateEmployee: notYet,
    getBankAccount: notYet,
    putBankAccount: notYet,
  },
});
