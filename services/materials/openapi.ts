import { pageSchema } from '../locations/fields';
import type { AreaDocs } from '../openapi/types';
import type { ErrorCode } from '../shared/errors';
import {
  adjustmentListQuery,
  createAdjustmentBody,
  createMaterialBody,
  emptyBody,
  linkListQuery,
  locationMaterialResponseSchema,
  materialListQuery,
  materialResponseSchema,
  stockAdjustmentResponseSchema,
  updateMaterialBody,
} from './schemas';

/** The OpenAPI description of materials, location stock links and stock adjustments. */

const BODY: ErrorCode[] = ['VALIDATION_ERROR', 'MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'];
const IDEMPOTENCY: ErrorCode[] = ['IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_REQUEST_IN_PROGRESS'];
const WRITE: ErrorCode[] = [...BODY, ...IDEMPOTENCY, 'TRANSACTION_CONFLICT', 'SERVICE_UNAVAILABLE'];
const CHANGE: ErrorCode[] = [...WRITE, 'RESOURCE_NOT_FOUND', 'ETAG_MISMATCH'];

const NULLABLE = '`article`, `supplier`, `website` and `orderLink` are always present, `null` when empty.';

export const materialsDocs: AreaDocs = {
  schemas: {
    Material: materialResponseSchema,
    MaterialList: pageSchema(materialResponseSchema),
    LocationMaterial: locationMaterialResponseSchema,
    LocationMaterialList: pageSchema(locationMaterialResponseSchema),
    StockAdjustment: stockAdjustmentResponseSchema,
    StockAdjustmentList: pageSchema(stockAdjustmentResponseSchema),
  },
  operations: {
    listMaterials: {
      description: `Active materials by name (case-insensitive), or archived ones with \`archived=true\`. With \`q\`: materials whose name, article number or supplier has a word starting with every query word, in match order. ${NULLABLE}`,
      query: materialListQuery,
      success: { status: 200, description: 'A page of materials.', ref: 'MaterialList' },
      problems: ['VALIDATION_ERROR'],
    },
    createMaterial: {
      description: `Creates a material with its article and preferred-ordering data, atomically with its audit entry. \`""\` and \`null\` both leave a field empty. ${NULLABLE}`,
      body: createMaterialBody,
      headers: { 'Idempotency-Key': 'required' },
      success: { status: 201, description: 'The created material.', ref: 'Material', headers: ['ETag', 'Location', 'Idempotency-Replayed'] },
      problems: WRITE,
    },
    getMaterial: {
      description: `One material, archived or not. ${NULLABLE}`,
      success: { status: 200, description: 'The material.', ref: 'Material', headers: ['ETag'] },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    updateMaterial: {
      description: `Changes the fields sent (partial; \`null\` or \`""\` clears a nullable field; \`archived: false\` restores). A change to the current values changes nothing (same ETag). ${NULLABLE}`,
      body: updateMaterialBody,
      headers: { 'If-Match': 'required', 'Idempotency-Key': 'optional' },
      success: { status: 200, description: 'The material after the change.', ref: 'Material', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: [...CHANGE, 'ETAG_REQUIRED'],
    },
    archiveMaterial: {
      description: 'Archives the material: it leaves the default list and search, stays readable by id, keeps its stock links and ledger, and can be restored with PATCH `archived: false`. If-Match is optional and honoured when sent.',
      headers: { 'If-Match': 'optional', 'Idempotency-Key': 'optional' },
      success: { status: 200, description: 'The archived material.', ref: 'Material', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: CHANGE,
    },
    listLocationMaterials: {
      description: "The materials linked to a location with their current stock, by material id. Stock data only: article and preferred-ordering data are on the material.",
      query: linkListQuery,
      success: { status: 200, description: 'A page of stock links.', ref: 'LocationMaterialList' },
      problems: ['VALIDATION_ERROR', 'RESOURCE_NOT_FOUND'],
    },
    linkLocationMaterial: {
      description: 'Links a material to a location with stock 0; linking a linked material changes nothing. Both must belong to this organization (404). The body may be absent or `{}`.',
      body: emptyBody,
      headers: { 'Idempotency-Key': 'optional' },
      success: { status: 200, description: 'The stock link.', ref: 'LocationMaterial', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: [...WRITE, 'RESOURCE_NOT_FOUND'],
    },
    unlinkLocationMaterial: {
      description:
        'Unlinks a material from a location. Stock is derived from the ledger and never dropped silently: remaining stock is written off to zero by an `UNLINK_WRITE_OFF` adjustment in the same transaction. If-Match (the link\'s ETag) is optional and honoured when sent.',
      headers: { 'If-Match': 'optional', 'Idempotency-Key': 'optional' },
      success: { status: 204, description: 'Unlinked.', headers: ['Idempotency-Replayed'] },
      problems: CHANGE,
    },
    listStockAdjustments: {
      description: 'The stock ledger, oldest first (recordedAt, then id), optionally of one location, one material or one pair, within [from, to).',
      query: adjustmentListQuery,
      success: { status: 200, description: 'A page of stock adjustments.', ref: 'StockAdjustmentList' },
      problems: ['VALIDATION_ERROR'],
    },
    createStockAdjustment: {
      description:
        "Appends an adjustment to a linked pair and moves its stock in the same transaction. A decrease that leaves the stock below zero needs `negativeStockReason` (else 422 at /quantityChange, with `currentStock` and `resultingStock`); an increase is always accepted. Location and material must belong to this organization and be linked (422 at the field). `Location` is the pair's ledger, where the new line is the newest.",
      body: createAdjustmentBody,
      headers: { 'Idempotency-Key': 'required' },
      success: { status: 201, description: 'The appended adjustment.', ref: 'StockAdjustment', headers: ['ETag', 'Location', 'Idempotency-Replayed'] },
      problems: WRITE,
    },
  },
};
