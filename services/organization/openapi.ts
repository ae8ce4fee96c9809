// TEMPORARY skeleton: replaced with the full descriptions of the organization operations.
import type { AreaDocs } from '../openapi/types';

export const organizationDocs: AreaDocs = {
  schemas: {},
  operations: {
    getOrganization: { description: 'Get the organization', success: { status: 200, description: 'Get the organization' }, problems: ['VALIDATION_ERROR'] },
    getSettings: { description: 'Get the organization settings', success: { status: 200, description: 'Get the organization settings' }, problems: ['VALIDATION_ERROR'] },
    updateSettings: { description: 'Update the organization settings', success: { status: 200, description: 'Update the organization settings' }, problems: ['VALIDATION_ERROR'] },
  },
};
