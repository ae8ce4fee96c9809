import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { activeLocationCheck, getLocation, locationKeys, LOCATION_LABEL } from '../locations/public';
import type { Db } from '../shared/ddb/client';
import { movedOn, searchUpkeep, versionedPut } from '../shared/ddb/entity';
import { getByIds, listPage, prefixPage, type ListQuery, type Page } from '../shared/ddb/paging';
import { batchGet, getOne } from '../shared/ddb/read';
import { searchWords } from '../shared/ddb/search';
import type { TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import type { AdjustmentChange, LinkChange, MaterialChange, MaterialsStore, WriteContext } from './domain';
import { adjustmentFromItem, adjustmentToItem, linkFromItem, linkToItem, materialFromItem, materialKeys, materialSearchScope, materialToItem, type Material, type StockAdjustment, type StockLink } from './model';

/**
 * The DynamoDB adapter of materials, location stock links and stock adjustments: the only
 * place with their expressions and conditions (keys and item shapes: model.ts). Writes are
 * staged in the request's unit of work; a condition on something read that failed is a
 * concurrent change, and the use case runs again from its reads.
 */

export const MATERIAL_LABEL = 'material';
export const LINK_LABEL = 'stock-link';
const ADJUSTMENT_LABEL = 'stock-adjustment';

/** The words `q` finds a material by: name, article number and supplier. */
export const materialSearchWords = (m: Pick<Material, 'name' | 'article' | 'supplier'>): string[] => searchWords([m.name, m.article, m.supplier]);

const searchState = (m: Material) => ({ scope: materialSearchScope(m.archived), words: materialSearchWords(m) });

export const getMaterial = (db: Db, org: string, id: string): Promise<Material | undefined> => getOne(db, materialKeys.material(org, id), materialFromItem);

export const getMaterials = (db: Db, org: string, ids: readonly string[]): Promise<Map<string, Material>> =>
  getByIds(db, ids, (id) => materialKeys.material(org, id), materialFromItem);

/**
 * What a link or adjustment needs to know, in one BatchGetItem: whether the location exists in
 * the organization and is archived (an item without `archived` is active), the material, and
 * the current link of the pair.
 */
export async function readWriteContext(db: Db, org: string, locationId: string, materialId: string): Promise<WriteContext> {
  const [location, material, link] = await batchGet(db, [locationKeys.location(org, locationId), materialKeys.material(org, materialId), materialKeys.link(org, locationId, materialId)]);
  return {
    location: location ? { archived: location.archived === true } : undefined,
    material: material ? materialFromItem(material) : undefined,
    link: link ? linkFromItem(link) : undefined,
  };
}

export const getLink = (db: Db, org: string, locationId: string, materialId: string): Promise<StockLink | undefined> => getOne(db, materialKeys.link(org, locationId, materialId), linkFromItem);

/** Stages a material change: the material (new, or the next version of the one read) and its search words. */
export function saveMaterial(unit: UnitOfWork, change: MaterialChange): void {
  const { before, after } = change;
  unit.stage({
    items: [versionedPut(MATERIAL_LABEL, materialToItem(after), before), ...searchUpkeep(after.organizationId, after.id, before && searchState(before), searchState(after))],
    audit: change.audit,
    explain: movedOn(MATERIAL_LABEL),
  });
}

/**
 * Stages a link change. Link: the new link (not there yet) with checks that the location and
 * the material exist and are not archived (the location's is the locations area's
 * `activeLocationCheck`). Unlink: the link is deleted only at the version read, with the
 * closing adjustment that brings the stock to zero when there is stock left.
 */
export function saveLink(unit: UnitOfWork, change: LinkChange): void {
  const org = change.audit.organizationId;
  const { locationId, materialId } = change.link;
  const items: TxItem[] =
    change.kind === 'link'
      ? [
          { label: LINK_LABEL, op: { Put: { Item: linkToItem(change.link), ConditionExpression: 'attribute_not_exists(PK)' } } },
          activeLocationCheck(org, locationId),
          {
            label: MATERIAL_LABEL,
            op: { ConditionCheck: { Key: materialKeys.material(org, materialId), ConditionExpression: 'attribute_exists(PK) AND archived = :no', ExpressionAttributeValues: { ':no': false } } },
          },
        ]
      : [
          {
            label: LINK_LABEL,
            op: { Delete: { Key: materialKeys.link(org, locationId, materialId), ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': change.link.version } } },
          },
          ...(change.closing ? [putAdjustment(change.closing)] : []),
        ];
  // A link that appeared or moved, or a location or material archived or gone since it was read: read again.
  unit.stage({ items, audit: change.audit, explain: movedOn(LINK_LABEL, LOCATION_LABEL, MATERIAL_LABEL) });
}

/** Stages an adjustment with the link's next stock, only if the link is still at the version read. */
export function saveAdjustment(unit: UnitOfWork, change: AdjustmentChange): void {
  unit.stage({
    items: [versionedPut(LINK_LABEL, linkToItem(change.after), change.before), putAdjustment(change.adjustment)],
    audit: change.audit,
    explain: movedOn(LINK_LABEL),
  });
}

const putAdjustment = (a: StockAdjustment): TxItem => ({
  label: ADJUSTMENT_LABEL,
  op: { Put: { Item: adjustmentToItem(a), ConditionExpression: 'attribute_not_exists(PK)' } },
});

/** One page of materials: by name, or with `q` (name, article number, supplier). */
export const listMaterials = (db: Db, org: string, query: ListQuery): Promise<Page<Material>> =>
  listPage(db, org, query, {
    partition: (archived) => materialKeys.byOrganization(org, archived).GSI1PK,
    searchScope: materialSearchScope,
    load: (ids) => getMaterials(db, org, ids),
    fromItem: materialFromItem,
  });

/** One page of a location's stock links, by material id (consistent Query of the location's stock partition). */
export async function listLinks(db: Db, org: string, locationId: string, limit: number, afterMaterialId?: string): Promise<{ items: StockLink[]; after?: string }> {
  const page = await prefixPage(db, materialKeys.stockPartition(org, locationId), 'MAT#', limit, afterMaterialId ? materialKeys.link(org, locationId, afterMaterialId) : undefined);
  const items = page.items.map(linkFromItem);
  return { items, ...(page.more ? { after: items.at(-1)!.materialId } : {}) };
}

export interface LedgerQuery {
  readonly locationId?: string;
  readonly materialId?: string;
  /** Inclusive lower and exclusive upper bound of recordedAt. */
  readonly from?: string;
  readonly to?: string;
  readonly limit: number;
  /** `<recordedAt>#<id>` of the last adjustment returned. */
  readonly after?: string;
}

/**
 * One page of the ledger, oldest first: the pair from its stock partition (consistent), one
 * location from GSI2, one material from GSI3, the organization from GSI1; always one Query
 * with `<recordedAt>#<id>` bounds.
 */
export async function listAdjustments(db: Db, org: string, q: LedgerQuery): Promise<{ items: StockAdjustment[]; after?: string }> {
  // Positions are `<recordedAt>#<id>`: `<from>` sorts before every position at `from` (inclusive),
  // `<to>` before every position at `to` (exclusive), and `<after> ` right after the last one returned.
  // Without `from`, '0' sorts before every timestamp (a key condition value cannot be empty).
  const lo = q.after ? `${q.after} ` : (q.from ?? '0');
  const hi = q.to ?? '\uffff';
  const range = (prefix: string) => ({ ':lo': `${prefix}${lo}`, ':hi': `${prefix}${hi}` });
  const input =
    q.locationId && q.materialId
      ? { KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi', ExpressionAttributeValues: { ':pk': materialKeys.stockPartition(org, q.locationId), ...range(`ADJ#${q.materialId}#`) }, ConsistentRead: true }
      : q.locationId
        ? { IndexName: 'GSI2', KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK BETWEEN :lo AND :hi', ExpressionAttributeValues: { ':pk': materialKeys.locationLedger(org, q.locationId), ...range('') } }
        : q.materialId
          ? { IndexName: 'GSI3', KeyConditionExpression: 'GSI3PK = :pk AND GSI3SK BETWEEN :lo AND :hi', ExpressionAttributeValues: { ':pk': materialKeys.materialLedger(org, q.materialId), ...range('') } }
          : { IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK BETWEEN :lo AND :hi', ExpressionAttributeValues: { ':pk': materialKeys.ledger(org), ...range('') } };
  const out = await db.doc.send(new QueryCommand({ TableName: db.tableName, ...input, Limit: q.limit + 1 }));
  const raw = (out.Items ?? []).map(adjustmentFromItem);
  const items = raw.slice(0, q.limit);
  return { items, ...(raw.length > q.limit ? { after: `${items.at(-1)!.recordedAt}#${items.at(-1)!.id}` } : {}) };
}

/** The materials store port on DynamoDB, staging writes in `unit`. */
export const materialsStore = (db: Db, unit: UnitOfWork): MaterialsStore => ({
  getMaterial: (org, id) => getMaterial(db, org, id),
  locationExists: async (org, id) => (await getLocation(db, org, id)) !== undefined,
  readWriteContext: (org, locationId, materialId) => readWriteContext(db, org, locationId, materialId),
  saveMaterial: (change) => saveMaterial(unit, change),
  saveLink: (change) => saveLink(unit, change),
  saveAdjustment: (change) => saveAdjustment(unit, change),
});
