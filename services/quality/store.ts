import { activeEmployeeCheck, employeeKeys, EMPLOYEE_LABEL } from '../employees/public';
import { activeLocationCheck, locationState, LOCATION_LABEL } from '../locations/public';
import type { Db } from '../shared/ddb/client';
import { movedOn, versionedPut } from '../shared/ddb/entity';
import { indexPage, type Page, type PagePosition } from '../shared/ddb/paging';
import { batchGet, getOne } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import type { InspectionChange, QualityStore, TemplateChange } from './domain';
import { inspectionFromItem, inspectionToItem, qualityKeys, revisionFromItem, revisionToItem, templateFromItem, templateToItem, type Inspection, type Template, type TemplateRevision } from './model';

/**
 * The DynamoDB adapter of quality templates (with their revision snapshots) and inspections:
 * the only place with their expressions and conditions (keys and item shapes: model.ts).
 */

const TEMPLATE_LABEL = 'quality-template';
const REVISION_LABEL = 'quality-template-revision';
export const INSPECTION_LABEL = 'inspection';

/** Existence check of an inspection, for other areas' transactions (feedback). */
export const inspectionExistsCheck = (organizationId: string, id: string): TxItem => ({
  label: INSPECTION_LABEL,
  op: { ConditionCheck: { Key: qualityKeys.inspection(organizationId, id), ConditionExpression: 'attribute_exists(PK)' } },
});

export const getTemplate = (db: Db, org: string, id: string): Promise<Template | undefined> => getOne(db, qualityKeys.template(org, id), templateFromItem);
export const getRevision = (db: Db, org: string, id: string, revision: number): Promise<TemplateRevision | undefined> => getOne(db, qualityKeys.revision(org, id, revision), revisionFromItem);
export const getInspection = (db: Db, org: string, id: string): Promise<Inspection | undefined> => getOne(db, qualityKeys.inspection(org, id), inspectionFromItem);

/** One item of another area, raw (its state only), or undefined. */
const readItem = async (db: Db, key: { PK: string; SK: string }): Promise<Record<string, unknown> | undefined> => (await batchGet(db, [key]))[0];

/** Stages a template change: the template (new or next version) and, for a new revision, its immutable snapshot. */
export function saveTemplate(unit: UnitOfWork, change: TemplateChange): void {
  const items: TxItem[] = [versionedPut(TEMPLATE_LABEL, templateToItem(change.after), change.before)];
  if (change.revision) items.push({ label: REVISION_LABEL, op: { Put: { Item: revisionToItem(change.revision), ConditionExpression: 'attribute_not_exists(PK)' } } });
  unit.stage({ items, audit: change.audit, explain: movedOn(TEMPLATE_LABEL, REVISION_LABEL) });
}

/**
 * Stages an inspection change. A new one carries checks that its location is not archived and
 * its employee active and, when it copied a template's revision, the template still at the
 * version read.
 */
export function saveInspection(unit: UnitOfWork, change: InspectionChange): void {
  const { after, before, template } = change;
  const org = after.organizationId;
  const checks: TxItem[] = before
    ? []
    : [
        activeLocationCheck(org, after.locationId),
        activeEmployeeCheck(org, after.employeeId),
        ...(template
          ? [{ label: TEMPLATE_LABEL, op: { ConditionCheck: { Key: qualityKeys.template(org, template.id), ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': template.version } } } }]
          : []),
      ];
  unit.stage({ items: [versionedPut(INSPECTION_LABEL, inspectionToItem(after), before), ...checks], audit: change.audit, explain: movedOn(INSPECTION_LABEL, TEMPLATE_LABEL, LOCATION_LABEL, EMPLOYEE_LABEL) });
}

/** One page of templates by name: active, or archived. */
export async function listTemplates(db: Db, org: string, q: { archived: boolean; limit: number; after?: PagePosition }): Promise<Page<Template>> {
  const page = await indexPage(db, 'GSI1', qualityKeys.templates(org, q.archived), q.limit, q.after);
  return { items: page.items.map(templateFromItem), ...(page.next ? { next: page.next } : {}) };
}

/** One page of inspections, oldest first: of one location (GSI2) or all (GSI1). */
export async function listInspections(db: Db, org: string, q: { locationId?: string; limit: number; after?: PagePosition }): Promise<Page<Inspection>> {
  const page = q.locationId ? await indexPage(db, 'GSI2', qualityKeys.locationInspections(org, q.locationId), q.limit, q.after) : await indexPage(db, 'GSI1', qualityKeys.inspections(org), q.limit, q.after);
  return { items: page.items.map(inspectionFromItem), ...(page.next ? { next: page.next } : {}) };
}

/** The quality store port on DynamoDB, staging writes in `unit`. */
export const qualityStore = (db: Db, unit: UnitOfWork): QualityStore => ({
  getTemplate: (org, id) => getTemplate(db, org, id),
  getInspection: (org, id) => getInspection(db, org, id),
  readLocation: (org, id) => locationState(db, org, id),
  readEmployee: async (org, id) => {
    const item = id === '' ? undefined : await readItem(db, employeeKeys.employee(org, id));
    return item ? { active: item.active === true } : undefined;
  },
  saveTemplate: (change) => saveTemplate(unit, change),
  saveInspection: (change) => saveInspection(unit, change),
});
