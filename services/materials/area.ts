import { defineArea } from '../shared/area';
import { createRoute, listRoute, readRoute, removeRoute, updateRoute } from '../shared/route-shapes';
import { READ_WRITE } from '../shared/permissions';
import { pageSchema } from '../shared/schemas/fields';
import { adjustmentListQuery, createAdjustmentBody, createMaterialBody, emptyBody, linkListQuery, locationMaterialResponseSchema, materialListQuery, materialResponseSchema, NULLABLE_NOTE, stockAdjustmentResponseSchema, updateMaterialBody } from './schemas';

/** Materials, the stock links of locations, and the append-only stock ledger. */
export const materialsArea = defineArea({
  name: 'materials',
  api: 'public',
  description: 'Materials, location stock links and stock adjustments.',
  // Materials, location stock links and the append-only adjustment ledger.
  permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false },
  auditEntityTypes: ['material', 'stock_adjustment'],
  schemas: {
    Material: materialResponseSchema,
    MaterialList: pageSchema(materialResponseSchema),
    LocationMaterial: locationMaterialResponseSchema,
    LocationMaterialList: pageSchema(locationMaterialResponseSchema),
    StockAdjustment: stockAdjustmentResponseSchema,
    StockAdjustmentList: pageSchema(stockAdjustmentResponseSchema),
  },
  routes: {
    listMaterials: listRoute({
      path: '/materials',
      scopes: ['materials:read'],
      summary: 'List or search materials',
      description: `Active materials by name (case-insensitive), or archived ones with \`archived=true\`. With \`q\`: materials whose name, article number or supplier has a word starting with every query word, in match order. ${NULLABLE_NOTE}`,
      query: materialListQuery,
      schema: pageSchema(materialResponseSchema),
      returns: 'A page of materials.',
    }),
    createMaterial: createRoute({
      path: '/materials',
      scopes: ['materials:write'],
      summary: 'Create a material',
      description: `Creates a material with its article and preferred-ordering data, atomically with its audit entry. \`""\` and \`null\` both leave a field empty. ${NULLABLE_NOTE}`,
      body: createMaterialBody,
      schema: materialResponseSchema,
      returns: 'The created material.',
    }),
    listStockAdjustments: listRoute({
      path: '/materials/stock-adjustments',
      scopes: ['materials:read'],
      summary: 'List stock adjustments',
      description: 'The stock ledger, oldest first (recordedAt, then id), optionally of one location, one material or one pair, within [from, to).',
      query: adjustmentListQuery,
      schema: pageSchema(stockAdjustmentResponseSchema),
      returns: 'A page of stock adjustments.',
    }),
    createStockAdjustment: createRoute({
      path: '/materials/stock-adjustments',
      scopes: ['materials:write'],
      summary: 'Append a stock adjustment',
      description:
        "Appends an adjustment to a linked pair and moves its stock in the same transaction. A decrease that leaves the stock below zero needs `negativeStockReason` (else 422 at /quantityChange, with `currentStock` and `resultingStock`); an increase is always accepted. Location and material must belong to this organization and be linked (422 at the field). `Location` is the pair's ledger, where the new line is the newest.",
      body: createAdjustmentBody,
      schema: stockAdjustmentResponseSchema,
      returns: 'The appended adjustment.',
    }),
    getMaterial: readRoute({
      path: '/materials/{materialId}',
      scopes: ['materials:read'],
      summary: 'Get one material',
      description: `One material, archived or not. ${NULLABLE_NOTE}`,
      schema: materialResponseSchema,
      returns: 'The material.',
    }),
    updateMaterial: updateRoute({
      path: '/materials/{materialId}',
      scopes: ['materials:write'],
      summary: 'Update a material',
      description: `Changes the fields sent (partial; \`null\` or \`""\` clears a nullable field; \`archived: false\` restores). A change to the current values changes nothing (same ETag). ${NULLABLE_NOTE}`,
      body: updateMaterialBody,
      idempotencyKey: 'optional',
      schema: materialResponseSchema,
      returns: 'The material after the change.',
    }),
    archiveMaterial: removeRoute({
      path: '/materials/{materialId}',
      scopes: ['materials:write'],
      summary: 'Archive a material',
      description:
        'Archives the material: it leaves the default list and search, stays readable by id, keeps its stock links and ledger (stock adjustments stay allowed, e.g. to write off what is left), cannot be linked to a location anew (422), and can be restored with PATCH `archived: false`. If-Match is optional and honoured when sent.',
      schema: materialResponseSchema,
      returns: 'The archived material.',
    }),
    listLocationMaterials: listRoute({
      path: '/locations/{locationId}/materials',
      scopes: ['materials:read'],
      summary: 'Stock of the materials linked to a location',
      description: 'The materials linked to a location with their current stock, by material id. Stock data only: article and preferred-ordering data are on the material.',
      query: linkListQuery,
      schema: pageSchema(locationMaterialResponseSchema),
      returns: 'A page of stock links.',
    }),
    linkLocationMaterial: {
      method: 'PUT',
      path: '/locations/{locationId}/materials/{materialId}',
      scopes: ['materials:write'],
      summary: 'Link a material to a location',
      description:
        "Links a material to a location with stock 0; linking a linked material changes nothing, also once the location or the material is archived. Both must belong to this organization (404); an archived location or material is not linked anew (422, parameter locationId / materialId; restore it with PATCH `archived: false`). If-Match (the link's ETag, as this route answers it) is optional and honoured when sent: a stale one, or any If-Match when the material is not linked yet, is 412 ETAG_MISMATCH and nothing is written. The body may be absent or `{}`.",
      body: emptyBody,
      bodyOptional: true,
      ifMatch: 'optional',
      idempotencyKey: 'optional',
      success: { status: 200, description: 'The stock link.', schema: locationMaterialResponseSchema, headers: ['ETag'] },
      problems: [],
    },
    unlinkLocationMaterial: {
      method: 'DELETE',
      path: '/locations/{locationId}/materials/{materialId}',
      scopes: ['materials:write'],
      summary: 'Unlink a material from a location',
      description:
        "Unlinks a material from a location. Stock is derived from the ledger and never dropped silently: remaining stock is written off to zero by an `UNLINK_WRITE_OFF` adjustment in the same transaction. If-Match (the link's ETag) is optional and honoured when sent.",
      ifMatch: 'optional',
      idempotencyKey: 'optional',
      success: { status: 204, description: 'Unlinked.' },
      problems: [],
    },
  },
});
