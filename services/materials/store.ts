import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { auditItem, type AuditEntry } from '../audit/store';
import { getLocation, locationExistsCheck, locationKeys, LOCATION_LABEL } from '../locations/store';
import { getByIds, listPage, type ListQuery, type Page } from '../locations/pages';
import type { Db } from '../shared/ddb/client';
import { batchGet } from '../shared/ddb/read';
import { searchIndexItems, searchWords } from '../shared/ddb/search';
import { commit, TransactionCancelledError, type TxItem } from '../shared/ddb/transaction';
import { EtagMismatchError } from '../shared/errors';
import { StockMovedError, type AdjustmentChange, type LinkChange, type Material, type MaterialsStore, type StockAdjustment, type StockLink, type WriteContext } from './domain';

/**
 * DynamoDB adapter of materials, location stock links and stock adjustments
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
 * Query. Stock is held in milli-units (integers), so sums of decimal quantities stay exact.
 */
export const materialKeys = {
  material: (org: string, id: string) => ({ PK: `ORG#${org}#MAT#${id}`, SK: 'MAT' }),
  byOrganization: (org: string, archived: boolean, name?: string, id?: string) => ({
    GSI1PK: archived ? `ORG#${org}#MATERIALS#ARCHIVED` : `ORG#${org}#MATERIALS`,
    ...(name !== undefined && id ? { GSI1SK: `${name.toLowerCase()}#${id}` } : {}),
  }),
  link: (org: string, locationId: string, materialId: string) => ({ PK: stockPartition(org, locationId), SK: `MAT#${materialId}` }),
  adjustment: (a: Pick<StockAdjustment, 'organizationId' | 'locationId' | 'materialId' | 'recordedAt' | 'id'>) => ({
    PK: stockPartition(a.organizationId, a.locationId),
    SK: `ADJ#${a.materialId}#${a.recordedAt}#${a.id}`,
  }),
  ledger: (org: string) => `ORG#${org}#STOCKADJ`,
  locationLedger: (org: string, locationId: string) => `ORG#${org}#LOC#${locationId}#STOCKADJ`,
  materialLedger: (org: string, materialId: string) => `ORG#${org}#MAT#${materialId}#STOCKADJ`,
};

const stockPartition = (org: string, locationId: string) => `ORG#${org}#LOC#${locationId}#STOCK`;

export const MATERIAL_LABEL = 'material';
export const LINK_LABEL = 'stock-link';
const ADJUSTMENT_LABEL = 'stock-adjustment';

export const materialSearchScope = (archived: boolean): string => (archived ? 'material_archived' : 'material');

/** The words `q` finds a material by: name, article number and supplier. */
export const materialSearchWords = (m: Pick<Material, 'name' | 'article' | 'supplier'>): string[] => searchWords([m.name, m.article, m.supplier]);

const materialToItem = (m: Material): Record<string, unknown> => ({
  ...materialKeys.material(m.organizationId, m.id),
  ...materialKeys.byOrganization(m.organizationId, m.archived, m.name, m.id),
  itemType: 'Material',
  ...m,
});

const nullable = <T>(value: unknown): T | null => (value ?? null) as T | null;

export function materialFromItem(item: Record<string, unknown>): Material {
  return {
    id: item.id as string,
    organizationId: item.organizationId as string,
    name: item.name as string,
    article: nullable(item.article),
    supplier: nullable(item.supplier),
    website: nullable(item.website),
    orderLink: nullable(item.orderLink),
    unit: nullable(item.unit),
    preferredOrderQuantityMilli: nullable(item.preferredOrderQuantityMilli),
    reorderLevelMilli: nullable(item.reorderLevelMilli),
    archived: Boolean(item.archived),
    archivedAt: nullable(item.archivedAt),
    version: item.version as number,
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
  };
}

const linkToItem = (l: StockLink): Record<string, unknown> => ({ ...materialKeys.link(l.organizationId, l.locationId, l.materialId), itemType: 'StockLink', ...l });

function linkFromItem(item: Record<string, unknown>): StockLink {
  return {
    organizationId: item.organizationId as string,
    locationId: item.locationId as string,
    materialId: item.materialId as string,
    stockMilli: item.stockMilli as number,
    version: item.version as number,
    linkedAt: item.linkedAt as string,
    lastAdjustedAt: nullable(item.lastAdjustedAt),
    updatedAt: item.updatedAt as string,
  };
}

function adjustmentToItem(a: StockAdjustment): Record<string, unknown> {
  const position = `${a.recordedAt}#${a.id}`;
  return {
    ...materialKeys.adjustment(a),
    GSI1PK: materialKeys.ledger(a.organizationId),
    GSI1SK: position,
    GSI2PK: materialKeys.locationLedger(a.organizationId, a.locationId),
    GSI2SK: position,
    GSI3PK: materialKeys.materialLedger(a.organizationId, a.materialId),
    GSI3SK: position,
    itemType: 'StockAdjustment',
    ...a,
  };
}

function adjustmentFromItem(item: Record<string, unknown>): StockAdjustment {
  return {
    id: item.id as string,
    organizationId: item.organizationId as string,
    locationId: item.locationId as string,
    materialId: item.materialId as string,
    type: item.type as StockAdjustment['type'],
    quantityChangeMilli: item.quantityChangeMilli as number,
    stockBeforeMilli: item.stockBeforeMilli as number,
    stockAfterMilli: item.stockAfterMilli as number,
    reason: item.reason as string,
    negativeStockReason: nullable(item.negativeStockReason),
    recordedAt: item.recordedAt as string,
  };
}

export async function getMaterial(db: Db, org: string, id: string): Promise<Material | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: materialKeys.material(org, id), ConsistentRead: true }));
  return out.Item ? materialFromItem(out.Item) : undefined;
}

export const getMaterials = (db: Db, org: string, ids: readonly string[]): Promise<Map<string, Material>> =>
  getByIds(db, ids, (id) => materialKeys.material(org, id), materialFromItem);

/**
 * What a link or adjustment needs to know, in one BatchGetItem: whether the location and the
 * material exist in the organization, and the current link of the pair.
 */
export async function readWriteContext(db: Db, org: string, locationId: string, materialId: string): Promise<WriteContext> {
  const [location, material, link] = await batchGet(db, [locationKeys.location(org, locationId), materialKeys.material(org, materialId), materialKeys.link(org, locationId, materialId)]);
  return { locationExists: location !== undefined, material: material ? materialFromItem(material) : undefined, link: link ? linkFromItem(link) : undefined };
}

export async function getLink(db: Db, org: string, locationId: string, materialId: string): Promise<StockLink | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: materialKeys.link(org, locationId, materialId), ConsistentRead: true }));
  return out.Item ? linkFromItem(out.Item) : undefined;
}

/** Commits a material change: the material (create: new; change: at the version read), its search words, audit, extras. */
export async function saveMaterial(db: Db, change: { before?: Material; after: Material; audit: AuditEntry }, extra: readonly TxItem[]): Promise<void> {
  const { before, after } = change;
  const org = after.organizationId;
  const put: TxItem = {
    label: MATERIAL_LABEL,
    op: {
      Put: {
        Item: materialToItem(after),
        ...(before ? { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': before.version } } : { ConditionExpression: 'attribute_not_exists(PK)' }),
      },
    },
  };
  const beforeWords = before ? materialSearchWords(before) : [];
  const search =
    !before || before.archived === after.archived
      ? searchIndexItems(org, materialSearchScope(after.archived), after.id, beforeWords, materialSearchWords(after))
      : [...searchIndexItems(org, materialSearchScope(before.archived), after.id, beforeWords, []), ...searchIndexItems(org, materialSearchScope(after.archived), after.id, [], materialSearchWords(after))];
  try {
    await commit(db, [put, ...search, auditItem(change.audit), ...extra]);
  } catch (error) {
    if (error instanceof TransactionCancelledError && error.failed(MATERIAL_LABEL)) throw new EtagMismatchError();
    throw error;
  }
}

/**
 * Commits a link change. Link: the new link (not there yet) with existence checks of the
 * location and the material. Unlink: the link is deleted only at the version read, with the
 * closing adjustment that brings the stock to zero when there is stock left.
 */
export async function saveLink(db: Db, change: LinkChange, extra: readonly TxItem[]): Promise<void> {
  const org = change.audit.organizationId;
  const items: TxItem[] =
    change.kind === 'link'
      ? [
          { label: LINK_LABEL, op: { Put: { Item: linkToItem(change.link), ConditionExpression: 'attribute_not_exists(PK)' } } },
          locationExistsCheck(org, change.link.locationId),
          { label: MATERIAL_LABEL, op: { ConditionCheck: { Key: materialKeys.material(org, change.link.materialId), ConditionExpression: 'attribute_exists(PK)' } } },
        ]
      : [
          {
            label: LINK_LABEL,
            op: {
              Delete: {
                Key: materialKeys.link(org, change.link.locationId, change.link.materialId),
                ConditionExpression: 'version = :expected',
                ExpressionAttributeValues: { ':expected': change.link.version },
              },
            },
          },
          ...(change.closing ? [putAdjustment(change.closing)] : []),
        ];
  await commitStock(db, [...items, auditItem(change.audit), ...extra]);
}

/** Commits an adjustment with the link's next stock, only if the link is still at the version read. */
export async function saveAdjustment(db: Db, change: AdjustmentChange, extra: readonly TxItem[]): Promise<void> {
  const { before, after } = change;
  const link: TxItem = {
    label: LINK_LABEL,
    op: {
      Put: {
        Item: linkToItem(after),
        ConditionExpression: 'version = :expected',
        ExpressionAttributeValues: { ':expected': before.version },
      },
    },
  };
  await commitStock(db, [link, putAdjustment(change.adjustment), auditItem(change.audit), ...extra]);
}

const putAdjustment = (a: StockAdjustment): TxItem => ({
  label: ADJUSTMENT_LABEL,
  op: { Put: { Item: adjustmentToItem(a), ConditionExpression: 'attribute_not_exists(PK)' } },
});

/** A link that moved since it was read (a concurrent adjustment, link or unlink) is StockMovedError: the use case reads again. */
async function commitStock(db: Db, items: readonly TxItem[]): Promise<void> {
  try {
    await commit(db, items);
  } catch (error) {
    if (error instanceof TransactionCancelledError && (error.failed(LINK_LABEL) || error.failed(LOCATION_LABEL) || error.failed(MATERIAL_LABEL))) throw new StockMovedError({ cause: error });
    throw error;
  }
}

export async function commitItems(db: Db, items: readonly TxItem[]): Promise<void> {
  if (items.length > 0) await commit(db, items);
}

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
  const out = await db.doc.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': stockPartition(org, locationId), ':prefix': 'MAT#' },
      ExclusiveStartKey: afterMaterialId ? materialKeys.link(org, locationId, afterMaterialId) : undefined,
      ConsistentRead: true,
      Limit: limit + 1,
    }),
  );
  const raw = out.Items ?? [];
  const items = raw.slice(0, limit).map(linkFromItem);
  return { items, ...(raw.length > limit ? { after: items.at(-1)!.materialId } : {}) };
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
      ? { KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi', ExpressionAttributeValues: { ':pk': stockPartition(org, q.locationId), ...range(`ADJ#${q.materialId}#`) }, ConsistentRead: true }
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

/** The DynamoDB adapter of the materials use cases' store port. */
export const dynamoMaterialsStore = (db: Db): MaterialsStore => ({
  getMaterial: (org, id) => getMaterial(db, org, id),
  locationExists: async (org, id) => (await getLocation(db, org, id)) !== undefined,
  readWriteContext: (org, locationId, materialId) => readWriteContext(db, org, locationId, materialId),
  saveMaterial: (change, extra) => saveMaterial(db, change, extra),
  saveLink: (change, extra) => saveLink(db, change, extra),
  saveAdjustment: (change, extra) => saveAdjustment(db, change, extra),
  commitItems: (items) => commitItems(db, items),
});
