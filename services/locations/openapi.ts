// TEMPORARY skeleton: replaced with the full descriptions of the locations operations.
import type { AreaDocs } from '../openapi/types';

export const locationsDocs: AreaDocs = {
  schemas: {},
  operations: {
    listLocations: { description: 'List or search locations', success: { status: 200, description: 'List or search locations' }, problems: ['VALIDATION_ERROR'] },
    createLocation: { description: 'Create a location', success: { status: 201, description: 'Create a location' }, problems: ['VALIDATION_ERROR'] },
    getLocation: { description: 'Get one location', success: { status: 200, description: 'Get one location' }, problems: ['VALIDATION_ERROR'] },
    updateLocation: { description: 'Update a location', success: { status: 200, description: 'Update a location' }, problems: ['VALIDATION_ERROR'] },
    archiveLocation: { description: 'Archive a location', success: { status: 204, description: 'Archive a location' }, problems: ['VALIDATION_ERROR'] },
    rotateLocationQr: { description: "Rotate a location's QR secret", success: { status: 200, description: "Rotate a location's QR secret" }, problems: ['VALIDATION_ERROR'] },
    linkLocationContact: { description: 'Link a contact to a location', success: { status: 200, description: 'Link a contact to a location' }, problems: ['VALIDATION_ERROR'] },
    unlinkLocationContact: { description: 'Unlink a contact from a location', success: { status: 204, description: 'Unlink a contact from a location' }, problems: ['VALIDATION_ERROR'] },
    listContacts: { description: 'List or search reusable contacts', success: { status: 200, description: 'List or search reusable contacts' }, problems: ['VALIDATION_ERROR'] },
    createContact: { description: 'Create a reusable contact', success: { status: 201, description: 'Create a reusable contact' }, problems: ['VALIDATION_ERROR'] },
    getContact: { description: 'Get one contact', success: { status: 200, description: 'Get one contact' }, problems: ['VALIDATION_ERROR'] },
    updateContact: { description: 'Update a contact', success: { status: 200, description: 'Update a contact' }, problems: ['VALIDATION_ERROR'] },
  },
};
