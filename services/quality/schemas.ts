import * as z from 'zod';
import { limitParameter } from '../shared/http/query';
import { booleanParameter, cursorParameter, hasAtMostDecimals, nothingToChange, nullableText, requiredName, sendsAField, utc } from '../shared/schemas/fields';
import { uuid } from '../shared/time';
import { responseOf } from '../shared/schemas/response';
import { fromMilli, MAX_TEMPLATE_ITEMS, type Inspection, type InspectionItem, type Template, type TemplateItem, type TemplateRevision } from './domain';
import { percentOf } from './domain-score';
import { INSPECTION_STATES } from './model';

/** Request and response shapes of quality templates, their items and inspections. */

const weight = () =>
  z
    .number({ error: 'weight must be a number.' })
    .refine((n) => n > 0 && n <= 1000, { message: 'weight is greater than 0 and at most 1000.' })
    .refine(hasAtMostDecimals(3), { message: 'weight has at most 3 decimals (0.3, not 0.30000000000001).' })
    .meta({ description: 'Relative weight of the item in the score: > 0, at most 1000, at most 3 decimals.' });

const scaleMax = () =>
  z
    .number({ error: 'scaleMax must be a whole number from 1 to 100.' })
    .int({ message: 'scaleMax must be a whole number from 1 to 100.' })
    .min(1, { message: 'scaleMax must be from 1 to 100.' })
    .max(100, { message: 'scaleMax must be from 1 to 100.' })
    .meta({ description: 'Scores of this item are whole numbers from 0 to scaleMax.' });

const itemFields = {
  title: requiredName('title', 200),
  description: nullableText('description', 1000),
  weight: weight(),
  scaleMax: scaleMax(),
};

export const templateItemBody = z.object(itemFields).strict();

export const updateTemplateItemBody = z
  .object({ title: itemFields.title.optional(), description: itemFields.description, weight: weight().optional(), scaleMax: scaleMax().optional() })
  .strict()
  .refine(sendsAField, nothingToChange());

export const createTemplateBody = z
  .object({
    name: requiredName('name'),
    description: nullableText('description', 1000),
    items: z.array(templateItemBody).min(1, { message: 'items needs at least one item.' }).max(MAX_TEMPLATE_ITEMS, { message: `A template holds at most ${MAX_TEMPLATE_ITEMS} items.` }),
  })
  .strict();

export const updateTemplateBody = z
  .object({
    name: requiredName('name').optional(),
    description: nullableText('description', 1000),
    archived: z.boolean({ error: 'archived must be true or false.' }).optional().meta({ description: '`true` archives (no new inspections), `false` restores; the revision stays.' }),
  })
  .strict()
  .refine(sendsAField, nothingToChange());

export const templateListQuery = z
  .object({ archived: booleanParameter('archived', '`true` lists archived templates instead of active ones; default `false`.'), limit: limitParameter(), cursor: cursorParameter() })
  .strict();

export const templateItemsQuery = z
  .object({
    revision: z
      .string()
      .regex(/^[1-9]\d{0,5}$/, { message: 'revision must be a whole number from 1.' })
      .transform(Number)
      .optional()
      .meta({ description: 'A revision of the template; default the current one. A cursor continues in the revision its first page read.' }),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict();

export const emptyBody = z.object({}).strict();

export const createInspectionBody = z
  .object({
    templateId: uuid().optional().meta({ description: 'Required unless correctsInspectionId is given (a correction uses the corrected inspection\'s template revision).' }),
    locationId: uuid().optional().meta({ description: 'Required unless correctsInspectionId is given.' }),
    employeeId: uuid().optional().meta({ description: 'The inspecting employee; required unless correctsInspectionId is given (then defaults to its employee).' }),
    note: nullableText('note', 2000),
    correctsInspectionId: uuid().optional().meta({ description: 'A COMPLETED inspection this one corrects; it stays as it is.' }),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.correctsInspectionId) return;
    for (const field of ['templateId', 'locationId', 'employeeId'] as const) {
      if (b[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `${field} is required (unless correctsInspectionId is given).` });
    }
  });

export const scoreItemBody = z
  .object({
    score: z
      .number({ error: 'score must be a whole number or null.' })
      .int({ message: 'score must be a whole number.' })
      .min(0, { message: 'score is at least 0.' })
      .nullable()
      .meta({ description: "From 0 to the item's scaleMax; null clears it." }),
    comment: nullableText('comment', 1000),
  })
  .strict();

export const inspectionListQuery = z.object({ locationId: uuid().optional(), limit: limitParameter(), cursor: cursorParameter() }).strict();

export const templateItemResponseSchema = z
  .object({ id: z.uuid(), title: z.string(), description: z.string().nullable(), weight: z.number(), scaleMax: z.number().int() })
  .meta({ description: 'An item of a template revision.' });

export const templateResponseSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    revision: z.number().int().meta({ description: 'Increases with every change of name, description or items.' }),
    items: z.array(templateItemResponseSchema),
    archived: z.boolean(),
    archivedAt: utc().nullable(),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'QualityTemplate' });

export const templateItemsResponseSchema = z
  .object({ templateId: z.uuid(), revision: z.number().int(), items: z.array(templateItemResponseSchema), nextCursor: z.string().nullable().meta({ description: 'A revision holds at most 50 items: null on the first page unless `limit` is smaller.' }) })
  .meta({ id: 'QualityTemplateItemList' });

export const scoreSchema = z
  .object({
    fraction: z.string().meta({ description: 'The exact weighted score as a reduced fraction of 1, e.g. "5/6".' }),
    percent: z.number().meta({ description: 'The fraction as a percentage, rounded half-up to 2 decimals.' }),
  })
  .meta({ description: 'The exact weighted score.' });

export const inspectionItemResponseSchema = z
  .object({ itemId: z.uuid(), title: z.string(), weight: z.number(), scaleMax: z.number().int(), score: z.number().int().nullable(), comment: z.string().nullable() })
  .meta({ description: 'An item of an inspection with its score.' });

export const inspectionResponseSchema = z
  .object({
    id: z.uuid(),
    templateId: z.uuid(),
    templateRevision: z.number().int(),
    locationId: z.uuid(),
    employeeId: z.uuid(),
    correctsInspectionId: z.uuid().nullable(),
    state: z.enum(INSPECTION_STATES),
    note: z.string().nullable(),
    items: z.array(inspectionItemResponseSchema),
    score: scoreSchema.nullable().meta({ description: 'Fixed when the inspection is completed; null for a draft.' }),
    completedAt: utc().nullable(),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Inspection' });

export const inspectionItemsResponseSchema = z
  .object({ items: z.array(inspectionItemResponseSchema), nextCursor: z.string().nullable().meta({ description: 'An inspection holds at most 50 items: null on the first page unless `limit` is smaller.' }) })
  .meta({ id: 'InspectionItemList' });

export const inspectionItemsQuery = z.object({ limit: limitParameter(), cursor: cursorParameter() }).strict();

export const templateItemResponse = (i: TemplateItem): z.infer<typeof templateItemResponseSchema> => responseOf(templateItemResponseSchema, i, { weight: fromMilli(i.weightMilli) });

export const templateResponse = (t: Template): z.infer<typeof templateResponseSchema> => responseOf(templateResponseSchema, t, {
  items: t.items.map(templateItemResponse),
});

export const templateItemsResponse = (r: Pick<TemplateRevision, 'templateId' | 'revision' | 'items'>, nextCursor: string | null): z.infer<typeof templateItemsResponseSchema> => ({
  templateId: r.templateId,
  revision: r.revision,
  items: r.items.map(templateItemResponse),
  nextCursor,
});

export const inspectionItemResponse = (i: InspectionItem): z.infer<typeof inspectionItemResponseSchema> => responseOf(inspectionItemResponseSchema, i, {
                                                                                                              weight: fromMilli(i.weightMilli),
                                                                                                            });

export function inspectionResponse(i: Inspection): z.infer<typeof inspectionResponseSchema> {
  const score =
    i.scoreNumerator !== null && i.scoreDenominator !== null
      ? { fraction: `${i.scoreNumerator}/${i.scoreDenominator}`, percent: percentOf({ numerator: BigInt(i.scoreNumerator), denominator: BigInt(i.scoreDenominator) }) }
      : null;
  return {
    id: i.id,
    templateId: i.templateId,
    templateRevision: i.templateRevision,
    locationId: i.locationId,
    employeeId: i.employeeId,
    correctsInspectionId: i.correctsInspectionId,
    state: i.state,
    note: i.note,
    items: i.items.map(inspectionItemResponse),
    score,
    completedAt: i.completedAt,
    version: i.version,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
  };
}

