import * as z from 'zod';
import { archivableFields, versionedFields } from '../shared/schemas/stored';

/**
 * The entities of the quality area as stored (docs/areas/customers-quality.md):
 *   template          PK ORG#<org>#QTPL#<id>     SK TPL                 current revision + items
 *   template revision PK ORG#<org>#QTPL#<id>     SK REV#<revision, 6 digits>   immutable snapshot
 *   inspection        PK ORG#<org>#QINSP#<id>    SK INSP                items and scores inside
 *   GSI1 ORG#<org>#QTEMPLATES[#ARCHIVED] / <lower name>#<id>     templates by name
 *   GSI1 ORG#<org>#QINSPECTIONS / <createdAt>#<id>               inspections, oldest first
 *   GSI2 ORG#<org>#LOC#<loc>#QINSPECTIONS / <createdAt>#<id>     one location's inspections
 * Weights are kept as integer milli-units and scores as integers, so the weighted score is an
 * exact fraction (numerator and denominator as decimal strings of integers).
 */

const nullableText = z.string().nullable().default(null);

export const templateItemSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: nullableText,
    weightMilli: z.number().int(),
    /** Scores are whole numbers from 0 to scaleMax. */
    scaleMax: z.number().int(),
  })
  .readonly();
export type TemplateItem = z.output<typeof templateItemSchema>;

export const templateSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    description: nullableText,
    revision: z.number().int(),
    items: z.array(templateItemSchema),
    ...archivableFields,
  })
  .readonly();
export type Template = z.output<typeof templateSchema>;

export const revisionSchema = z
  .object({ templateId: z.string(), organizationId: z.string(), revision: z.number().int(), name: z.string(), description: nullableText, items: z.array(templateItemSchema), createdAt: z.string() })
  .readonly();
export type TemplateRevision = z.output<typeof revisionSchema>;

export const inspectionItemSchema = z
  .object({
    itemId: z.string(),
    title: z.string(),
    weightMilli: z.number().int(),
    scaleMax: z.number().int(),
    score: z.number().int().nullable().default(null),
    comment: nullableText,
  })
  .readonly();
export type InspectionItem = z.output<typeof inspectionItemSchema>;

export const INSPECTION_STATES = ['DRAFT', 'COMPLETED'] as const;

export const inspectionSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    templateId: z.string(),
    templateRevision: z.number().int(),
    locationId: z.string(),
    employeeId: z.string(),
    correctsInspectionId: nullableText,
    state: z.enum(INSPECTION_STATES),
    note: nullableText,
    items: z.array(inspectionItemSchema),
    scoreNumerator: nullableText,
    scoreDenominator: nullableText,
    completedAt: nullableText,
    ...versionedFields,
  })
  .readonly();
export type Inspection = z.output<typeof inspectionSchema>;

const templatePartition = (org: string, id: string) => `ORG#${org}#QTPL#${id}`;

export const qualityKeys = {
  template: (org: string, id: string) => ({ PK: templatePartition(org, id), SK: 'TPL' }),
  revision: (org: string, id: string, revision: number) => ({ PK: templatePartition(org, id), SK: `REV#${String(revision).padStart(6, '0')}` }),
  templates: (org: string, archived: boolean) => (archived ? `ORG#${org}#QTEMPLATES#ARCHIVED` : `ORG#${org}#QTEMPLATES`),
  inspection: (org: string, id: string) => ({ PK: `ORG#${org}#QINSP#${id}`, SK: 'INSP' }),
  inspections: (org: string) => `ORG#${org}#QINSPECTIONS`,
  locationInspections: (org: string, locationId: string) => `ORG#${org}#LOC#${locationId}#QINSPECTIONS`,
};

export const templateToItem = (t: Template): Record<string, unknown> => ({
  ...qualityKeys.template(t.organizationId, t.id),
  GSI1PK: qualityKeys.templates(t.organizationId, t.archived),
  GSI1SK: `${t.name.toLowerCase()}#${t.id}`,
  itemType: 'QualityTemplate',
  ...t,
});

export const revisionToItem = (r: TemplateRevision): Record<string, unknown> => ({ ...qualityKeys.revision(r.organizationId, r.templateId, r.revision), itemType: 'QualityTemplateRevision', ...r });

export const inspectionToItem = (i: Inspection): Record<string, unknown> => ({
  ...qualityKeys.inspection(i.organizationId, i.id),
  GSI1PK: qualityKeys.inspections(i.organizationId),
  GSI1SK: `${i.createdAt}#${i.id}`,
  GSI2PK: qualityKeys.locationInspections(i.organizationId, i.locationId),
  GSI2SK: `${i.createdAt}#${i.id}`,
  itemType: 'QualityInspection',
  ...i,
});

export const templateFromItem = (item: Record<string, unknown>): Template => templateSchema.parse(item);
export const revisionFromItem = (item: Record<string, unknown>): TemplateRevision => revisionSchema.parse(item);
export const inspectionFromItem = (item: Record<string, unknown>): Inspection => inspectionSchema.parse(item);
