import { auditFor, type AuditEntry } from '../audit/model';
import type { Actor } from '../shared/domain/actor';
import { archiveState, givenAttributes, newArchivable, orNull, patched, revised } from '../shared/domain/lifecycle';
import { AppError, NotFoundError, ValidationError, type FieldError } from '../shared/errors';
import { assertSentEtag, entityEtag, versionedEtag } from '../shared/domain/etag';
import type { Material, StockAdjustment, StockLink } from './model';
import type { UseCasePorts } from '../shared/domain/ports';

export type { AdjustmentType, Material, StockAdjustment, StockLink } from './model';

/** The location, material and link of a pair, read together before a link or an adjustment. */
export interface WriteContext {
  /** The location of this organization (`archived` as stored), or undefined. */
  readonly location?: { readonly archived: boolean };
  readonly material?: Material;
  readonly link?: StockLink;
}

export type LinkChange =
  | { readonly kind: 'link'; readonly link: StockLink; readonly audit: AuditEntry }
  | { readonly kind: 'unlink'; readonly link: StockLink; readonly closing?: StockAdjustment; readonly audit: AuditEntry };

export interface AdjustmentChange {
  readonly before: StockLink;
  readonly after: StockLink;
  readonly adjustment: StockAdjustment;
  readonly audit: AuditEntry;
}

export interface MaterialChange {
  /** The stored state the change was decided on; absent for a new material. */
  readonly before?: Material;
  readonly after: Material;
  readonly audit: AuditEntry;
}

/**
 * The materials store port: reads, and `save*` that stage a change in the request's unit of
 * work (committed once the use case returns, with the idempotency record). The DynamoDB
 * adapter is store.ts. A change whose reads went stale meanwhile makes the whole use case
 * run again from its reads (the shared handler layer does that).
 */
export interface MaterialsStore {
  getMaterial(organizationId: string, id: string): Promise<Material | undefined>;
  locationExists(organizationId: string, id: string): Promise<boolean>;
  readWriteContext(organizationId: string, locationId: string, materialId: string): Promise<WriteContext>;
  saveMaterial(change: MaterialChange): void;
  saveLink(change: LinkChange): void;
  saveAdjustment(change: AdjustmentChange): void;
}

export type MaterialPorts = UseCasePorts<MaterialsStore>;

const audit = auditFor;

export const materialEtag = versionedEtag<Material>('material');
/** A link's ETag names the link by its pair and when it was made: a link made again after an unlink is another resource, never matched by the old one's tag. */
export const linkEtag = (l: StockLink): string => entityEtag('location-material', `${l.locationId}:${l.materialId}:${Date.parse(l.linkedAt)}`, l.version);
export const adjustmentEtag = (a: StockAdjustment): string => entityEtag('stock-adjustment', a.id, 1);

/** Quantities travel as numbers with at most 3 decimals and are kept as integer milli-units. */
export const toMilli = (quantity: number): number => Math.round(quantity * 1000);
export const fromMilli = (milli: number): number => milli / 1000;

export interface MaterialInput {
  readonly name: string;
  readonly article?: string | null;
  readonly supplier?: string | null;
  readonly website?: string | null;
  readonly orderLink?: string | null;
  readonly unit?: string | null;
  readonly preferredOrderQuantity?: number | null;
  readonly reorderLevel?: number | null;
}

export type MaterialPatch = Partial<MaterialInput> & { readonly archived?: boolean };

/** A patch field: absent keeps the current value, `null` clears it. */

const milliOrNull = (quantity: number | null | undefined): number | null => (quantity === null || quantity === undefined ? null : toMilli(quantity));

/**
 * Creates a material. Output: the material, every nullable field present.
 * 1. Build version 1 (active).  2. Stage it with its search words (name, article number,
 * supplier) and an audit entry naming the attributes given (never their values).
 */
export async function createMaterial(ports: MaterialPorts, actor: Actor, input: MaterialInput): Promise<Material> {
  const now = ports.now().toISOString();
  const material: Material = {
    ...newArchivable(ports.newId(), actor.principal.organizationId, now),
    name: input.name,
    ...orNull(input, ['article', 'supplier', 'website', 'orderLink', 'unit']),
    preferredOrderQuantityMilli: milliOrNull(input.preferredOrderQuantity),
    reorderLevelMilli: milliOrNull(input.reorderLevel),
  };
  const given = givenAttributes(input);
  ports.store.saveMaterial({ after: material, audit: audit(ports, actor, now, { action: 'material.created', entity: { type: 'material', id: material.id }, changedAttributes: given }) });
  return material;
}

/** The stored fields a change compares, with the attribute name the API and the audit use. */
const MATERIAL_ATTRIBUTES: readonly (readonly [keyof Material, string])[] = [
  ['name', 'name'],
  ['article', 'article'],
  ['supplier', 'supplier'],
  ['website', 'website'],
  ['orderLink', 'orderLink'],
  ['unit', 'unit'],
  ['preferredOrderQuantityMilli', 'preferredOrderQuantity'],
  ['reorderLevelMilli', 'reorderLevel'],
  ['archived', 'archived'],
];

/**
 * Changes a material (partial; `archived: false` restores it).
 * 1. Read (404); If-Match must be its ETag (412).  2. Nothing changed: answer it as it is.
 * 3. Stage the next version; of two changes from one ETag exactly one commits, the other
 *    runs again and answers 412.
 */
export async function updateMaterial(ports: MaterialPorts, actor: Actor, id: string, ifMatch: string | undefined, patch: MaterialPatch, action = 'material.updated'): Promise<Material> {
  const current = await ports.store.getMaterial(actor.principal.organizationId, id);
  if (!current) throw new NotFoundError(`Material ${id}`);
  assertSentEtag(ifMatch, materialEtag(current));
  const now = ports.now().toISOString();
  const archived = patch.archived ?? current.archived;
  const candidate: Material = {
    ...current,
    ...patched(current, patch, ['name', 'article', 'supplier', 'website', 'orderLink', 'unit']),
    preferredOrderQuantityMilli: patch.preferredOrderQuantity === undefined ? current.preferredOrderQuantityMilli : milliOrNull(patch.preferredOrderQuantity),
    reorderLevelMilli: patch.reorderLevel === undefined ? current.reorderLevelMilli : milliOrNull(patch.reorderLevel),
    ...archiveState(current, archived, now),
  };
  const changed = MATERIAL_ATTRIBUTES.filter(([field]) => candidate[field] !== current[field]).map(([, name]) => name);
  if (changed.length === 0) return current;
  const next: Material = revised(current, now, candidate);
  ports.store.saveMaterial({ before: current, after: next, audit: audit(ports, actor, now, { action, entity: { type: 'material', id }, changedAttributes: changed }) });
  return next;
}

/**
 * Archives a material (DELETE): it leaves the default list and search, stays readable by id,
 * keeps its stock links and ledger, and can be restored with PATCH `archived: false`.
 */
export const archiveMaterial = (ports: MaterialPorts, actor: Actor, id: string, ifMatch: string | undefined): Promise<Material> =>
  updateMaterial(ports, actor, id, ifMatch, { archived: true }, 'material.archived');

/**
 * Links a material to a location (PUT): the location keeps its stock of that material.
 * 1. Location and material must exist in the organization (404 for either path id).
 * 2. If-Match, when sent, must be the link's ETag (412): a link that is not there has none,
 *    so a conditional PUT never creates one (RFC 9110 13.1.1).
 * 3. Already linked: answer the link as it is (also once the location or the material is
 *    archived: existing links stay).
 * 4. A new link needs a location and a material that are not archived (422, parameter
 *    locationId / materialId, each one that is): nothing new points at an archived record.
 * 5. Stage the new link (stock 0) with checks that both still exist and are not archived, and
 *    an audit entry; a link that appeared, or a location or material archived meanwhile, runs
 *    the use case again from 1 (answering the link, or 422).
 */
export async function linkMaterial(ports: MaterialPorts, actor: Actor, locationId: string, materialId: string, ifMatch?: string): Promise<StockLink> {
  const org = actor.principal.organizationId;
  const context = await ports.store.readWriteContext(org, locationId, materialId);
  if (!context.location) throw new NotFoundError(`Location ${locationId}`);
  if (!context.material) throw new NotFoundError(`Material ${materialId}`);
  assertSentEtag(ifMatch, context.link && linkEtag(context.link));
  if (context.link) return context.link;
  const archived: FieldError[] = [
    ...(context.location.archived ? [{ parameter: 'locationId', detail: `Location ${locationId} is archived: a material cannot be linked to an archived location; restore it first (PATCH archived: false).` }] : []),
    ...(context.material.archived ? [{ parameter: 'materialId', detail: `Material ${materialId} is archived: an archived material cannot be linked to a location; restore it first (PATCH archived: false).` }] : []),
  ];
  if (archived.length > 0) throw new ValidationError(archived);
  const now = ports.now().toISOString();
  const link: StockLink = { organizationId: org, locationId, materialId, stockMilli: 0, version: 1, linkedAt: now, lastAdjustedAt: null, updatedAt: now };
  ports.store.saveLink({ kind: 'link', link, audit: audit(ports, actor, now, { action: 'material.linked_to_location', entity: { type: 'material', id: materialId }, references: { locationId } }) });
  return link;
}

export interface Unlinked {
  readonly link: StockLink;
  /** The adjustment that wrote the remaining stock off; absent when the stock was zero. */
  readonly closing?: StockAdjustment;
}

/**
 * Unlinks a material from a location (DELETE). Stock is derived from the ledger, so it is
 * never dropped silently: a remaining stock (positive or negative) is written off to zero by
 * an `UNLINK_WRITE_OFF` adjustment in the same transaction, and the ledger keeps it.
 * 1. Read the link (404 when the location, the material or the link does not exist).
 * 2. If-Match, when sent, must be the link's ETag (412).
 * 3. Stage: delete the link at the version read, the closing adjustment, the audit entry;
 *    a concurrent adjustment moves the link and the use case runs again from 1.
 */
export async function unlinkMaterial(ports: MaterialPorts, actor: Actor, locationId: string, materialId: string, ifMatch: string | undefined): Promise<Unlinked> {
  const org = actor.principal.organizationId;
  const { link } = await ports.store.readWriteContext(org, locationId, materialId);
  if (!link) throw new NotFoundError(`Material ${materialId} at location ${locationId}`);
  assertSentEtag(ifMatch, linkEtag(link));
  const now = nextRecordedAt(ports, link);
  const closing: StockAdjustment | undefined =
    link.stockMilli === 0
      ? undefined
      : {
          id: ports.newId(),
          organizationId: org,
          locationId,
          materialId,
          type: 'UNLINK_WRITE_OFF',
          quantityChangeMilli: -link.stockMilli,
          stockBeforeMilli: link.stockMilli,
          stockAfterMilli: 0,
          reason: 'Material unlinked from the location: the remaining stock is written off.',
          negativeStockReason: null,
          recordedAt: now,
        };
  const unlinked = audit(ports, actor, now, {
    action: 'material.unlinked_from_location',
    entity: { type: 'material', id: materialId },
    references: { locationId, ...(closing ? { stockAdjustmentId: closing.id } : {}) },
    after: { writtenOffStock: fromMilli(link.stockMilli) },
  });
  const outcome: Unlinked = { link, ...(closing ? { closing } : {}) };
  ports.store.saveLink({ kind: 'unlink', link, ...(closing ? { closing } : {}), audit: unlinked });
  return outcome;
}

export interface AdjustmentInput {
  readonly locationId: string;
  readonly materialId: string;
  readonly quantityChange: number;
  readonly reason: string;
  readonly negativeStockReason?: string;
}

export interface Adjusted {
  readonly adjustment: StockAdjustment;
  readonly link: StockLink;
}

/**
 * Appends a stock adjustment; the link's stock is the sum of its pair's adjustments.
 * Input: location, material, a non-zero quantity change, a reason, and a negativeStockReason
 * when the change leaves the stock below zero. Output: the ledger line and the link after it.
 * 1. Read location, material and link in one BatchGetItem. A location or material outside
 *    the organization, or a pair that is not linked, is 422 at the field.
 * 2. A decrease that leaves the stock below zero without negativeStockReason is 422 at
 *    /quantityChange (with currentStock and resultingStock); an increase is always accepted.
 * 3. recordedAt is after the pair's previous adjustment, so the ledger's order by time is
 *    the order in which the stock changed.
 * 4. Stage the adjustment, the link with the new stock only at the version read, and the
 *    audit entry. If another adjustment committed first, the use case runs again from 1
 *    with the new stock (which may now make the change 422): the stock stays exact.
 */
export async function adjustStock(ports: MaterialPorts, actor: Actor, input: AdjustmentInput): Promise<Adjusted> {
  const org = actor.principal.organizationId;
  const { location, material, link } = await ports.store.readWriteContext(org, input.locationId, input.materialId);
  const missing: FieldError[] = [
    ...(location ? [] : [{ pointer: '/locationId', detail: `Location ${input.locationId} does not exist in this organization.` }]),
    ...(material ? [] : [{ pointer: '/materialId', detail: `Material ${input.materialId} does not exist in this organization.` }]),
  ];
  if (missing.length > 0) throw new ValidationError(missing);
  if (!link) {
    throw new ValidationError([{ pointer: '/materialId', detail: `Material ${input.materialId} is not linked to location ${input.locationId}; link it first (PUT /locations/${input.locationId}/materials/${input.materialId}).` }]);
  }
  const change = toMilli(input.quantityChange);
  const stockAfter = link.stockMilli + change;
  assertStockRule(link.stockMilli, change, input.negativeStockReason);
  const recordedAt = nextRecordedAt(ports, link);
  const adjustment: StockAdjustment = {
    id: ports.newId(),
    organizationId: org,
    locationId: input.locationId,
    materialId: input.materialId,
    type: 'ADJUSTMENT',
    quantityChangeMilli: change,
    stockBeforeMilli: link.stockMilli,
    stockAfterMilli: stockAfter,
    reason: input.reason,
    negativeStockReason: input.negativeStockReason ?? null,
    recordedAt,
  };
  const next: StockLink = revised(link, recordedAt, { stockMilli: stockAfter, lastAdjustedAt: recordedAt });
  const adjusted = audit(ports, actor, recordedAt, {
    action: 'stock_adjustment.created',
    entity: { type: 'stock_adjustment', id: adjustment.id },
    references: { locationId: input.locationId, materialId: input.materialId },
    reason: input.reason,
    after: {
      quantityChange: fromMilli(change),
      stockBefore: fromMilli(link.stockMilli),
      stockAfter: fromMilli(stockAfter),
      negativeStockReason: adjustment.negativeStockReason,
    },
  });
  const outcome: Adjusted = { adjustment, link: next };
  ports.store.saveAdjustment({ before: link, after: next, adjustment, audit: adjusted });
  return outcome;
}

/**
 * Stock never goes below zero unless the adjustment says why: a decrease that ends below zero
 * needs `negativeStockReason`. An increase is always accepted, even if the stock stays negative
 * (a delivery must never be refused because of an earlier shortfall).
 */
export function assertStockRule(stockMilli: number, changeMilli: number, negativeStockReason: string | undefined): void {
  const after = stockMilli + changeMilli;
  if (changeMilli >= 0 || after >= 0 || negativeStockReason) return;
  throw new AppError('VALIDATION_ERROR', `This change would leave the stock at ${fromMilli(after)} (now ${fromMilli(stockMilli)}); stock never goes below zero unless negativeStockReason says why.`, {
    errors: [{ pointer: '/quantityChange', detail: `Would leave the stock at ${fromMilli(after)}, below zero (now ${fromMilli(stockMilli)}): send a smaller decrease, or negativeStockReason to record why the stock goes negative.` }],
    extensions: { currentStock: fromMilli(stockMilli), resultingStock: fromMilli(after) },
  });
}

/** A time after the pair's previous adjustment, even if this clock is behind the one that wrote it. */
function nextRecordedAt(ports: MaterialPorts, link: StockLink): string {
  const now = ports.now().getTime();
  const previous = link.lastAdjustedAt ? Date.parse(link.lastAdjustedAt) : -Infinity;
  return new Date(Math.max(now, previous + 1)).toISOString();
}
