import { auditFor, type AuditEntry } from '../audit/model';
import type { Actor } from '../shared/domain/actor';
import { assertEtag, assertSentEtag, versionedEtag } from '../shared/domain/etag';
import { newArchivable, newRecord, revised } from '../shared/domain/lifecycle';
import { AppError, NotFoundError, ValidationError, fieldError, type FieldError } from '../shared/errors';
import { weightedScore } from './domain-score';
import type { Inspection, InspectionItem, Template, TemplateItem, TemplateRevision } from './model';
import { PROBLEMS } from './problems';
import type { UseCasePorts } from '../shared/domain/ports';

export type { Inspection, InspectionItem, Template, TemplateItem, TemplateRevision } from './model';

export interface TemplateChange {
  readonly before?: Template;
  readonly after: Template;
  /** The snapshot of a new revision; absent when only `archived` changed. */
  readonly revision?: TemplateRevision;
  readonly audit: AuditEntry;
}

export interface InspectionChange {
  readonly before?: Inspection;
  readonly after: Inspection;
  /** New inspections: the template at the version whose revision they copied. */
  readonly template?: Template;
  readonly audit: AuditEntry;
}

/** The quality store port (DynamoDB adapter: store.ts). */
export interface QualityStore {
  getTemplate(organizationId: string, id: string): Promise<Template | undefined>;
  getInspection(organizationId: string, id: string): Promise<Inspection | undefined>;
  /** The location's archive state, or undefined when it is not of this organization. */
  readLocation(organizationId: string, id: string): Promise<{ readonly archived: boolean } | undefined>;
  /** Whether the employee is active, or undefined when it is not of this organization. */
  readEmployee(organizationId: string, id: string): Promise<{ readonly active: boolean } | undefined>;
  saveTemplate(change: TemplateChange): void;
  saveInspection(change: InspectionChange): void;
}

export type QualityPorts = UseCasePorts<QualityStore>;

const audit = auditFor;

export const templateEtag = versionedEtag<Template>('quality-template');
export const inspectionEtag = versionedEtag<Inspection>('inspection');

/** Weights travel as numbers with at most 3 decimals and are kept as integer milli-units. */
export const toMilli = (weight: number): number => Math.round(weight * 1000);
export const fromMilli = (milli: number): number => milli / 1000;

export interface TemplateItemInput {
  readonly title: string;
  readonly description?: string | null;
  readonly weight: number;
  readonly scaleMax: number;
}

export interface TemplateInput {
  readonly name: string;
  readonly description?: string | null;
  readonly items: readonly TemplateItemInput[];
}

export const MAX_TEMPLATE_ITEMS = 50;

const newItem = (ports: QualityPorts, input: TemplateItemInput): TemplateItem => ({
  id: ports.newId(),
  title: input.title,
  description: input.description ?? null,
  weightMilli: toMilli(input.weight),
  scaleMax: input.scaleMax,
});

const snapshot = (t: Template): TemplateRevision => ({ templateId: t.id, organizationId: t.organizationId, revision: t.revision, name: t.name, description: t.description, items: t.items, createdAt: t.updatedAt });

/** Creates a checklist template at revision 1 with its items (a snapshot of the revision is kept). */
export async function createTemplate(ports: QualityPorts, actor: Actor, input: TemplateInput): Promise<Template> {
  const now = ports.now().toISOString();
  const template: Template = {
    ...newArchivable(ports.newId(), actor.principal.organizationId, now),
    name: input.name,
    description: input.description ?? null,
    revision: 1,
    items: input.items.map((i) => newItem(ports, i)),
  };
  ports.store.saveTemplate({
    after: template,
    revision: snapshot(template),
    audit: audit(ports, actor, now, { action: 'quality_template.created', entity: { type: 'quality_template', id: template.id }, after: { revision: 1, items: template.items.length } }),
  });
  return template;
}

async function readTemplate(ports: QualityPorts, actor: Actor, id: string, ifMatch: string | undefined): Promise<Template> {
  const template = await ports.store.getTemplate(actor.principal.organizationId, id);
  if (!template) throw new NotFoundError(`Quality template ${id}`);
  assertSentEtag(ifMatch, templateEtag(template));
  return template;
}

/**
 * Stages the next version of a template. A change of content (name, description, items)
 * makes a new revision with its snapshot; inspections keep the revision they copied.
 */
function nextTemplate(ports: QualityPorts, actor: Actor, current: Template, content: Pick<Template, 'name' | 'description' | 'items'>, archived: boolean, action: string, changed: readonly string[]): Template {
  const now = ports.now().toISOString();
  const contentChanged = changed.some((c) => c !== 'archived');
  const next: Template = revised(current, now, {
    ...content,
    revision: contentChanged ? current.revision + 1 : current.revision,
    archived,
    archivedAt: archived === current.archived ? current.archivedAt : archived ? now : null,
  });
  ports.store.saveTemplate({
    before: current,
    after: next,
    ...(contentChanged ? { revision: snapshot(next) } : {}),
    audit: audit(ports, actor, now, { action, entity: { type: 'quality_template', id: current.id }, changedAttributes: changed, before: { revision: current.revision }, after: { revision: next.revision } }),
  });
  return next;
}

export interface TemplatePatch {
  readonly name?: string;
  readonly description?: string | null;
  readonly archived?: boolean;
}

/** Changes name or description (a new revision) or archives / restores (same revision); no change: as it is. */
export async function updateTemplate(ports: QualityPorts, actor: Actor, id: string, ifMatch: string, patch: TemplatePatch): Promise<Template> {
  const current = await readTemplate(ports, actor, id, ifMatch);
  const name = patch.name ?? current.name;
  const description = patch.description === undefined ? current.description : patch.description;
  const archived = patch.archived ?? current.archived;
  const changed = [...(name !== current.name ? ['name'] : []), ...(description !== current.description ? ['description'] : []), ...(archived !== current.archived ? ['archived'] : [])];
  if (changed.length === 0) return current;
  const action = changed.length === 1 && changed[0] === 'archived' ? (archived ? 'quality_template.archived' : 'quality_template.restored') : 'quality_template.revised';
  return nextTemplate(ports, actor, current, { name, description, items: current.items }, archived, action, changed);
}

/** Adds an item: a new revision. At most 50 items (422). */
export async function addTemplateItem(ports: QualityPorts, actor: Actor, id: string, ifMatch: string, input: TemplateItemInput): Promise<{ template: Template; item: TemplateItem }> {
  const current = await readTemplate(ports, actor, id, ifMatch);
  if (current.items.length >= MAX_TEMPLATE_ITEMS) throw fieldError('', `A template holds at most ${MAX_TEMPLATE_ITEMS} items.`);
  const item = newItem(ports, input);
  const template = nextTemplate(ports, actor, current, { name: current.name, description: current.description, items: [...current.items, item] }, current.archived, 'quality_template.revised', ['items']);
  return { template, item };
}

export type TemplateItemPatch = Partial<TemplateItemInput>;

/** Changes an item (title, description, weight, scale): a new revision; no change: as it is. */
export async function updateTemplateItem(ports: QualityPorts, actor: Actor, id: string, itemId: string, ifMatch: string, patch: TemplateItemPatch): Promise<Template> {
  const current = await readTemplate(ports, actor, id, ifMatch);
  const item = current.items.find((i) => i.id === itemId);
  if (!item) throw new NotFoundError(`Item ${itemId} of quality template ${id}`);
  const next: TemplateItem = {
    ...item,
    title: patch.title ?? item.title,
    description: patch.description === undefined ? item.description : patch.description,
    weightMilli: patch.weight === undefined ? item.weightMilli : toMilli(patch.weight),
    scaleMax: patch.scaleMax ?? item.scaleMax,
  };
  if ((['title', 'description', 'weightMilli', 'scaleMax'] as const).every((f) => next[f] === item[f])) return current;
  const items = current.items.map((i) => (i.id === itemId ? next : i));
  return nextTemplate(ports, actor, current, { name: current.name, description: current.description, items }, current.archived, 'quality_template.revised', ['items']);
}

/** Removes an item from the next revision (older revisions and inspections keep it); the last item stays (422). */
export async function removeTemplateItem(ports: QualityPorts, actor: Actor, id: string, itemId: string, ifMatch: string | undefined): Promise<Template> {
  const current = await readTemplate(ports, actor, id, ifMatch);
  if (!current.items.some((i) => i.id === itemId)) throw new NotFoundError(`Item ${itemId} of quality template ${id}`);
  if (current.items.length === 1) throw fieldError('', 'A template keeps at least one item: add another before removing this one.');
  const items = current.items.filter((i) => i.id !== itemId);
  return nextTemplate(ports, actor, current, { name: current.name, description: current.description, items }, current.archived, 'quality_template.revised', ['items']);
}

// ---- inspections -------------------------------------------------------------------------------

export interface InspectionInput {
  readonly templateId?: string;
  readonly locationId?: string;
  readonly employeeId?: string;
  readonly note?: string | null;
  readonly correctsInspectionId?: string;
}

/**
 * Starts an inspection (DRAFT) with the items of the template's current revision, unscored.
 * A correction (`correctsInspectionId`) references a COMPLETED inspection of this organization,
 * takes its template revision, location and items with their scores as the starting point,
 * and leaves the corrected inspection untouched.
 * 1. References exist in this organization and are active (422 at the field): the template and
 *    the location not archived, the employee not deactivated; a correction too, whose location
 *    and (unless it names another) employee are the corrected inspection's.
 * 2. Stage it with the checks that location and employee are still active, and the template at
 *    the version read.
 */
export async function createInspection(ports: QualityPorts, actor: Actor, input: InspectionInput): Promise<Inspection> {
  const org = actor.principal.organizationId;
  const corrected = input.correctsInspectionId ? await ports.store.getInspection(org, input.correctsInspectionId) : undefined;
  if (input.correctsInspectionId) {
    if (!corrected) throw fieldError('/correctsInspectionId', `Inspection ${input.correctsInspectionId} does not exist in this organization.`);
    if (corrected.state !== 'COMPLETED') throw fieldError('/correctsInspectionId', `Inspection ${corrected.id} is a DRAFT: change it instead of correcting it.`);
    if (input.templateId && input.templateId !== corrected.templateId) throw fieldError('/templateId', 'A correction uses the template of the inspection it corrects: leave templateId out.');
    if (input.locationId && input.locationId !== corrected.locationId) throw fieldError('/locationId', 'A correction is at the location of the inspection it corrects: leave locationId out.');
  }
  const templateId = corrected?.templateId ?? input.templateId!;
  const locationId = corrected?.locationId ?? input.locationId!;
  const employeeId = input.employeeId ?? corrected?.employeeId ?? '';
  const [template, location, employee] = await Promise.all([
    corrected ? Promise.resolve(undefined) : ports.store.getTemplate(org, templateId),
    ports.store.readLocation(org, locationId),
    ports.store.readEmployee(org, employeeId),
  ]);
  const errors: FieldError[] = [];
  if (!corrected && !template) errors.push({ pointer: '/templateId', detail: `Quality template ${templateId} does not exist in this organization.` });
  else if (template?.archived) errors.push({ pointer: '/templateId', detail: `Quality template ${templateId} is archived.` });
  if (!location) errors.push({ pointer: '/locationId', detail: `Location ${locationId} does not exist in this organization.` });
  else if (location.archived) errors.push({ pointer: '/locationId', detail: `Location ${locationId}${corrected && !input.locationId ? ' of the corrected inspection' : ''} is archived${corrected ? ': restore it to correct the inspection' : ''}.` });
  if (!employee) errors.push({ pointer: '/employeeId', detail: `Employee ${employeeId} does not exist in this organization.` });
  else if (!employee.active) errors.push({ pointer: '/employeeId', detail: `Employee ${employeeId}${corrected && !input.employeeId ? ' of the corrected inspection' : ''} is deactivated${corrected && !input.employeeId ? ': name the employee who makes the correction' : ''}.` });
  if (errors.length > 0) throw new ValidationError(errors);
  const now = ports.now().toISOString();
  const items: InspectionItem[] = corrected
    ? corrected.items.map((i) => ({ ...i }))
    : template!.items.map((i) => ({ itemId: i.id, title: i.title, weightMilli: i.weightMilli, scaleMax: i.scaleMax, score: null, comment: null }));
  const inspection: Inspection = {
    ...newRecord(ports.newId(), org, now),
    templateId,
    templateRevision: corrected?.templateRevision ?? template!.revision,
    locationId,
    employeeId,
    correctsInspectionId: corrected?.id ?? null,
    state: 'DRAFT',
    note: input.note ?? null,
    items,
    scoreNumerator: null,
    scoreDenominator: null,
    completedAt: null,
  };
  ports.store.saveInspection({
    after: inspection,
    ...(template ? { template } : {}),
    audit: audit(ports, actor, now, {
      action: corrected ? 'inspection.correction_created' : 'inspection.created',
      entity: { type: 'inspection', id: inspection.id },
      references: { templateId, locationId, employeeId, ...(corrected ? { correctsInspectionId: corrected.id } : {}) },
      after: { state: 'DRAFT', templateRevision: inspection.templateRevision },
    }),
  });
  return inspection;
}

async function readDraft(ports: QualityPorts, actor: Actor, id: string, ifMatch: string): Promise<Inspection> {
  const inspection = await ports.store.getInspection(actor.principal.organizationId, id);
  if (!inspection) throw new NotFoundError(`Inspection ${id}`);
  assertEtag(ifMatch, inspectionEtag(inspection));
  if (inspection.state === 'COMPLETED') throw new AppError(PROBLEMS.INSPECTION_COMPLETED, `Inspection ${id} is completed and cannot change; create a correction (POST /quality/inspections with correctsInspectionId).`);
  return inspection;
}

/** Scores one item of a DRAFT inspection: a whole number from 0 to the item's scaleMax, or null to clear it. */
export async function scoreItem(ports: QualityPorts, actor: Actor, id: string, itemId: string, ifMatch: string, input: { score: number | null; comment?: string | null }): Promise<Inspection> {
  const current = await readDraft(ports, actor, id, ifMatch);
  const item = current.items.find((i) => i.itemId === itemId);
  if (!item) throw new NotFoundError(`Item ${itemId} of inspection ${id}`);
  if (input.score !== null && input.score > item.scaleMax) throw fieldError('/score', `score is from 0 to ${item.scaleMax} for this item.`);
  const next: InspectionItem = { ...item, score: input.score, comment: input.comment === undefined ? item.comment : input.comment };
  if (next.score === item.score && next.comment === item.comment) return current;
  const now = ports.now().toISOString();
  const after: Inspection = revised(current, now, { items: current.items.map((i) => (i.itemId === itemId ? next : i)) });
  ports.store.saveInspection({
    before: current,
    after,
    audit: audit(ports, actor, now, { action: 'inspection.item_scored', entity: { type: 'inspection', id }, references: { itemId }, after: { score: next.score } }),
  });
  return after;
}

/** DRAFT -> COMPLETED once every item is scored (422 naming the unscored items); the exact score is fixed then. */
export async function completeInspection(ports: QualityPorts, actor: Actor, id: string, ifMatch: string): Promise<Inspection> {
  const current = await readDraft(ports, actor, id, ifMatch);
  const unscored = current.items.filter((i) => i.score === null);
  if (unscored.length > 0) {
    throw new AppError('VALIDATION_ERROR', `${unscored.length} item(s) have no score yet: score every item before completing.`, { extensions: { unscoredItemIds: unscored.map((i) => i.itemId) } });
  }
  const score = weightedScore(current.items.map((i) => ({ weightMilli: i.weightMilli, scaleMax: i.scaleMax, score: i.score! })));
  const now = ports.now().toISOString();
  const after: Inspection = revised(current, now, { state: 'COMPLETED', scoreNumerator: String(score.numerator), scoreDenominator: String(score.denominator), completedAt: now });
  ports.store.saveInspection({
    before: current,
    after,
    audit: audit(ports, actor, now, {
      action: 'inspection.completed',
      entity: { type: 'inspection', id },
      before: { state: 'DRAFT' },
      after: { state: 'COMPLETED', score: `${after.scoreNumerator}/${after.scoreDenominator}` },
    }),
  });
  return after;
}
