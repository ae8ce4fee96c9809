import * as z from 'zod';
import { onIndexes } from '../shared/ddb/table-spec';
import { archivableFields } from '../shared/schemas/stored';

/**
 * The entities of the materials area as stored: each type is the output of its item schema,
 * and items are parsed with it on read (unknown attributes such as keys are dropped, a
 * malformed item fails loudly instead of flowing on as a cast). Keys live here too
 * (docs/areas/locations-materials.md lists the access patterns):
 *   material     PK ORG#<org>#MAT#<id>          SK MAT
 *   stock link   PK ORG#<org>#LOC#<loc>#STOCK   SK MAT#<materialId>      (current stock, version)
 *   adjustment   PK ORG#<org>#LOC#<loc>#STOCK   SK ADJ#<materialId>#<recordedAt>#<id>
 *   GSI1 ORG#<org>#MATERIALS          / <lower name>#<id>     active materials by name
 *   GSI1 ORG#<org>#MATERIALS#ARCHIVED / <lower name>#<id>     archived materials by name
 *   GSI1 ORG#<org>#STOCKADJ           / <recordedAt>#<id>     the organization's ledger by time
 *   GSI2 ORG#<org>#LOC#<loc>#STOCKADJ / <recordedAt>#<id>     one location's ledger by time
 *   GSI3 ORG#<org>#MAT#<mat>#STOCKADJ / <recordedAt>#<id>     one material's ledger by time
 *   search index scopes `material` and `material_archived`: name, article number, supplier
 * A link and the ledger of its pair share one partition, so the pair's ledger is a consistent
 * Query. Quantities are milli-units (integers), so sums of decimal quantities stay exact.
 */

const nullableText = z.string().nullable().default(null);
const nullableMilli = z.number().int().nullable().default(null);

/**
 * A material of the organization's catalogue. Article data (article number, supplier,
 * website, order link) and preferred-ordering data (unit, preferred order quantity, reorder
 * level) live here and never on a location's stock link.
 */
export const materialSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    article: nullableText,
    supplier: nullableText,
    website: nullableText,
    orderLink: nullableText,
    unit: nullableText,
    preferredOrderQuantityMilli: nullableMilli,
    reorderLevelMilli: nullableMilli,
    ...archivableFields,
  })
  .readonly();
export type Material = z.output<typeof materialSchema>;

/** A material kept at a location, with its current stock: the sum of the pair's adjustments. */
export const stockLinkSchema = z
  .object({
    organizationId: z.string(),
    locationId: z.string(),
    materialId: z.string(),
    stockMilli: z.number().int(),
    /** Increases with every adjustment: concurrent adjustments commit one after the other. */
    version: z.number().int(),
    linkedAt: z.string(),
    lastAdjustedAt: nullableText,
    updatedAt: z.string(),
  })
  .readonly();
export type StockLink = z.output<typeof stockLinkSchema>;

/** `ADJUSTMENT`: posted by a client; `UNLINK_WRITE_OFF`: brings the stock to zero when a link is removed. */
export type AdjustmentType = 'ADJUSTMENT' | 'UNLINK_WRITE_OFF';

/** One line of the append-only stock ledger. */
export const stockAdjustmentSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    locationId: z.string(),
    materialId: z.string(),
    type: z.enum(['ADJUSTMENT', 'UNLINK_WRITE_OFF']),
    quantityChangeMilli: z.number().int(),
    stockBeforeMilli: z.number().int(),
    stockAfterMilli: z.number().int(),
    reason: z.string(),
    negativeStockReason: nullableText,
    recordedAt: z.string(),
  })
  .readonly();
export type StockAdjustment = z.output<typeof stockAdjustmentSchema>;

const stockPartition = (org: string, locationId: string) => `ORG#${org}#LOC#${locationId}#STOCK`;

export const materialKeys = {
  material: (org: string, id: string) => ({ PK: `ORG#${org}#MAT#${id}`, SK: 'MAT' }),
  byOrganization: (org: string, archived: boolean, name?: string, id?: string) => ({
    GSI1PK: archived ? `ORG#${org}#MATERIALS#ARCHIVED` : `ORG#${org}#MATERIALS`,
    ...(name !== undefined && id ? { GSI1SK: `${name.toLowerCase()}#${id}` } : {}),
  }),
  stockPartition,
  link: (org: string, locationId: string, materialId: string) => ({ PK: stockPartition(org, locationId), SK: `MAT#${materialId}` }),
  adjustment: (a: Pick<StockAdjustment, 'organizationId' | 'locationId' | 'materialId' | 'recordedAt' | 'id'>) => ({
    PK: stockPartition(a.organizationId, a.locationId),
    SK: `ADJ#${a.materialId}#${a.recordedAt}#${a.id}`,
  }),
  ledger: (org: string) => `ORG#${org}#STOCKADJ`,
  locationLedger: (org: string, locationId: string) => `ORG#${org}#LOC#${locationId}#STOCKADJ`,
  materialLedger: (org: string, materialId: string) => `ORG#${org}#MAT#${materialId}#STOCKADJ`,
};

export const materialSearchScope = (archived: boolean): string => (archived ? 'material_archived' : 'material');

export const materialToItem = (m: Material): Record<string, unknown> => ({
  ...materialKeys.material(m.organizationId, m.id),
  ...materialKeys.byOrganization(m.organizationId, m.archived, m.name, m.id),
  itemType: 'Material',
  ...m,
});

export const linkToItem = (l: StockLink): Record<string, unknown> => ({ ...materialKeys.link(l.organizationId, l.locationId, l.materialId), itemType: 'StockLink', ...l });

export function adjustmentToItem(a: StockAdjustment): Record<string, unknown> {
  const position = `${a.recordedAt}#${a.id}`;
  return {
    ...materialKeys.adjustment(a),
    ...onIndexes(position, { GSI1: materialKeys.ledger(a.organizationId), GSI2: materialKeys.locationLedger(a.organizationId, a.locationId), GSI3: materialKeys.materialLedger(a.organizationId, a.materialId) }),
    itemType: 'StockAdjustment',
    ...a,
  };
}

export const materialFromItem = (item: Record<string, unknown>): Material => materialSchema.parse(item);
export const linkFromItem = (item: Record<string, unknown>): StockLink => stockLinkSchema.parse(item);
export const adjustmentFromItem = (item: Record<string, unknown>): StockAdjustment => stockAdjustmentSchema.parse(item);
