import * as z from 'zod';
import { booleanParameter, cursorParameter, fromBeforeTo, hasAtMostDecimals, nothingToChange, nullableName, nullableUrl, reasonText, requiredName, searchParameter, sendsAField, utc } from '../shared/schemas/fields';
import { limitParameter } from '../shared/http/query';
import { instant, uuid } from '../shared/time';
import { responseOf } from '../shared/schemas/response';
import { fromMilli, type Material, type StockAdjustment, type StockLink } from './domain';

/** Request and response shapes of materials, location stock links and stock adjustments. */

const MAX_QUANTITY = 1_000_000_000;

/** A quantity: a finite number with at most 3 decimals, |x| up to 10^9. */
const quantity = (field: string) =>
  z
    .number({ error: `${field} must be a number.` })
    .refine(hasAtMostDecimals(3), { message: `${field} has at most 3 decimals (0.3, not 0.30000000000001).` })
    .refine((n) => Math.abs(n) <= MAX_QUANTITY, { message: `${field} is at most ${MAX_QUANTITY} in size.` });

const materialFields = {
  article: nullableName('article', 100).meta({ description: 'Article number.' }),
  supplier: nullableName('supplier', 200),
  website: nullableUrl('website'),
  orderLink: nullableUrl('orderLink').meta({ description: 'Where to order the material.' }),
  unit: nullableName('unit', 20).meta({ description: 'Unit of every quantity of this material (e.g. "pcs", "l", "kg").' }),
  preferredOrderQuantity: quantity('preferredOrderQuantity').refine((n) => n > 0, { message: 'preferredOrderQuantity must be greater than 0.' }).nullable().optional(),
  reorderLevel: quantity('reorderLevel').refine((n) => n >= 0, { message: 'reorderLevel must be at least 0.' }).nullable().optional().meta({ description: 'Reorder when a location holds less than this.' }),
};

export const createMaterialBody = z.object({ name: requiredName('name'), ...materialFields }).strict();

export const updateMaterialBody = z
  .object({
    name: requiredName('name').optional(),
    ...materialFields,
    archived: z.boolean({ error: 'archived must be true or false.' }).optional().meta({ description: '`false` restores an archived material; `true` archives it (as DELETE does).' }),
  })
  .strict()
  .refine(sendsAField, nothingToChange());

export const materialListQuery = z
  .object({
    q: searchParameter(),
    archived: booleanParameter('archived', '`true` lists archived materials instead of active ones; default `false`.'),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict();

export const linkListQuery = z.object({ limit: limitParameter(), cursor: cursorParameter() }).strict();

/** PUT of a link and DELETE take no input; an empty object is accepted for clients that always send one. */
export const emptyBody = z.object({}).strict();


export const createAdjustmentBody = z
  .object({
    locationId: uuid(),
    materialId: uuid(),
    quantityChange: quantity('quantityChange')
      .refine((n) => n !== 0, { message: 'quantityChange must not be 0: positive adds stock, negative takes it away.' })
      .meta({ description: 'Positive adds stock, negative takes it away; at most 3 decimals, in the material\'s unit.' }),
    reason: reasonText('reason').meta({ description: 'Why the stock changed (delivery, consumption, count...).' }),
    negativeStockReason: reasonText('negativeStockReason').optional().meta({ description: 'Required when a decrease leaves the stock below zero: why that is right.' }),
  })
  .strict();

export const adjustmentListQuery = z
  .object({
    locationId: uuid().optional(),
    materialId: uuid().optional(),
    from: instant().optional().meta({ description: 'Inclusive lower bound of recordedAt.' }),
    to: instant().optional().meta({ description: 'Exclusive upper bound of recordedAt.' }),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict()
  .superRefine(fromBeforeTo);

/** What every route answering a material says of it: appended to those routes' descriptions (area.ts). */
export const NULLABLE_NOTE = '`article`, `supplier`, `website` and `orderLink` are always present, `null` when empty.';

export const materialResponseSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    article: z.string().nullable().meta({ description: 'Article number; null when empty. Always present.' }),
    supplier: z.string().nullable().meta({ description: 'Null when empty. Always present.' }),
    website: z.string().nullable().meta({ description: 'Null when empty. Always present.' }),
    orderLink: z.string().nullable().meta({ description: 'Null when empty. Always present.' }),
    unit: z.string().nullable(),
    preferredOrderQuantity: z.number().nullable(),
    reorderLevel: z.number().nullable(),
    archived: z.boolean(),
    archivedAt: utc().nullable(),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Material' });

export const locationMaterialResponseSchema = z
  .object({
    locationId: z.uuid(),
    materialId: z.uuid(),
    stock: z.number().meta({ description: "Current stock in the material's unit: the sum of the pair's adjustments." }),
    linkedAt: utc(),
    lastAdjustedAt: utc().nullable(),
    updatedAt: utc(),
  })
  .meta({ id: 'LocationMaterial', description: 'A stock link: stock data only; article and preferred-ordering data are on the material.' });

export const stockAdjustmentResponseSchema = z
  .object({
    id: z.uuid(),
    locationId: z.uuid(),
    materialId: z.uuid(),
    type: z.enum(['ADJUSTMENT', 'UNLINK_WRITE_OFF']).meta({ description: 'UNLINK_WRITE_OFF: written by DELETE of a link that still held stock.' }),
    quantityChange: z.number(),
    stockBefore: z.number(),
    stockAfter: z.number(),
    reason: z.string(),
    negativeStockReason: z.string().nullable(),
    recordedAt: utc(),
  })
  .meta({ id: 'StockAdjustment' });

export function materialResponse(m: Material): z.infer<typeof materialResponseSchema> {
  return responseOf(materialResponseSchema, m, {
    preferredOrderQuantity: m.preferredOrderQuantityMilli === null ? null : fromMilli(m.preferredOrderQuantityMilli),
    reorderLevel: m.reorderLevelMilli === null ? null : fromMilli(m.reorderLevelMilli),
  });
}

export const locationMaterialResponse = (l: StockLink): z.infer<typeof locationMaterialResponseSchema> => responseOf(locationMaterialResponseSchema, l, {
  stock: fromMilli(l.stockMilli),
});

export const stockAdjustmentResponse = (a: StockAdjustment): z.infer<typeof stockAdjustmentResponseSchema> => responseOf(stockAdjustmentResponseSchema, a, {
  quantityChange: fromMilli(a.quantityChangeMilli),
  stockBefore: fromMilli(a.stockBeforeMilli),
  stockAfter: fromMilli(a.stockAfterMilli),
});
