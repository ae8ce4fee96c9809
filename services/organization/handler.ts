// TEMPORARY skeleton: replaced by the organization implementation in this change series.
import { createHandler } from '../shared/http/handler';
import { AppError } from '../shared/errors';

const notYet = async () => {
  throw new AppError('INTERNAL_ERROR', 'not implemented yet');
};

export const handler = createHandler({
  area: 'organization',
  operations: {
    getOrganization: notYet,
    getSettings: notYet,
    updateSettings: notYet,
  },
});
