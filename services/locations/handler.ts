// TEMPORARY skeleton: replaced by the locations implementation in this change series.
import { createHandler } from '../shared/http/handler';
import { AppError } from '../shared/errors';

const notYet = async () => {
  throw new AppError('INTERNAL_ERROR', 'not implemented yet');
};

export const handler = createHandler({
  area: 'locations',
  operations: {
    listLocations: notYet,
    createLocation: notYet,
    getLocation: notYet,
    updateLocation: notYet,
    archiveLocation: notYet,
    rotateLocationQr: notYet,
    linkLocationContact: notYet,
    unlinkLocationContact: notYet,
    listContacts: notYet,
    createContact: notYet,
    getContact: notYet,
    updateContact: notYet,
  },
});
