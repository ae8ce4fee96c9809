// TEMPORARY skeleton: replaced with the full descriptions of the materials operations.
import type { AreaDocs } from '../openapi/types';

export const materialsDocs: AreaDocs = {
  schemas: {},
  operations: {
    listMaterials: { description: 'List or search materials', success: { status: 200, description: 'List or search materials' }, problems: ['VALIDATION_ERROR'] },
    createMaterial: { description: 'Create a material', success: { status: 201, description: 'Create a material' }, problems: ['VALIDATION_ERROR'] },
    listStockAdjustments: { description: 'List stock adjustments', success: { status: 200, description: 'List stock adjustments' }, problems: ['VALIDATION_ERROR'] },
    createStockAdjustment: { description: 'Append a stock adjustment', success: { status: 201, description: 'Append a stock adjustment' }, problems: ['VALIDATION_ERROR'] },
    getMaterial: { description: 'Get one material', success: { status: 200, description: 'Get one material' }, problems: ['VALIDATION_ERROR'] },
    updateMaterial: { description: 'Update a material', success: { status: 200, description: 'Update a material' }, problems: ['VALIDATION_ERROR'] },
    archiveMaterial: { description: 'Archive a material', success: { status: 204, description: 'Archive a material' }, problems: ['VALIDATION_ERROR'] },
    listLocationMaterials: { description: 'Stock of the materials linked to a location', success: { status: 200, description: 'Stock of the materials linked to a location' }, problems: ['VALIDATION_ERROR'] },
    linkLocationMaterial: { description: 'Link a material to a location', success: { status: 200, description: 'Link a material to a location' }, problems: ['VALIDATION_ERROR'] },
    unlinkLocationMaterial: { description: 'Unlink a material from a location', success: { status: 204, description: 'Unlink a material from a location' }, problems: ['VALIDATION_ERROR'] },
  },
};
