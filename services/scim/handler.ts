// TEMPORARY skeleton: replaced by the scim implementation in this change series.
import { createHandler } from '../shared/http/handler';
import { AppError } from '../shared/errors';

const notYet = async () => {
  throw new AppError('INTERNAL_ERROR', 'not implemented yet');
};

export const handler = createHandler({
  area: 'scim',
  operations: {
    getServiceProviderConfig: notYet,
    listResourceTypes: notYet,
    getResourceType: notYet,
    listSchemas: notYet,
    getSchema: notYet,
    listUsers: notYet,
    createUser: notYet,
    getUser: notYet,
    replaceUser: notYet,
    patchUser: notYet,
    deleteUser: notYet,
  },
});
