// TEMPORARY skeleton: replaced by the materials implementation in this change series.
import { createHandler } from '../shared/http/handler';
import { AppError } from '../shared/errors';

const notYet = async () => {
  throw new AppError('INTERNAL_ERROR', 'not implemented yet');
};

export const handler = createHandler({
  area: 'materials',
  operations: {
    listMaterials: notYet,
    createMaterial: notYet,
    listStockAdjustments: notYet,
    createStockAdjustment: notYet,
    getMaterial: notYet,
    updateMaterial: notYet,
    archiveMaterial: notYet,
    listLocationMaterials: notYet,
    linkLocationMaterial: notYet,
    unlinkLocationMaterial: notYet,
  },
});
