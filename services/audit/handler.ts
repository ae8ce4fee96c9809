// TEMPORARY skeleton: replaced by the audit implementation in this change series.
import { createHandler } from '../shared/http/handler';
import { AppError } from '../shared/errors';

const notYet = async () => {
  throw new AppError('INTERNAL_ERROR', 'not implemented yet');
};

export const handler = createHandler({
  area: 'audit',
  operations: {
    listAuditEntries: notYet,
  },
});
