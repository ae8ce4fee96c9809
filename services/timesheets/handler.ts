// TEMPORARY skeleton: replaced by the timesheets implementation in this change series.
import { createHandler } from '../shared/http/handler';
import { AppError } from '../shared/errors';

const notYet = async () => {
  throw new AppError('INTERNAL_ERROR', 'not implemented yet');
};

export const handler = createHandler({
  area: 'timesheets',
  operations: {
    listTimeEntries: notYet,
    createTimeEntry: notYet,
    getTimeEntry: notYet,
    correctTimeEntry: notYet,
    voidTimeEntry: notYet,
  },
});
