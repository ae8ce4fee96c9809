import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConcurrentChangeError, retryOnConflict } from '../shared/domain/conflict';
import { conditionFailed, type Db } from '../shared/ddb/client';
import { newestFirstPage } from '../shared/ddb/paging';
import { batchGet, collectAll, getOne } from '../shared/ddb/read';
import { commit, MAX_TRANSACTION_ITEMS, TransactionCancelledError, type TxItem } from '../shared/ddb/transaction';
import { batchPut } from '../shared/ddb/write';
import type { TimeEntry } from '../timesheets/public';
import { changesExport, monthOf } from './domain';
import { fenceFromItem, fenceToItem, manifestEntryFromItem, manifestEntryToItem, manifestFromItem, manifestToItem, monthIndexFromItem, monthIndexToItem, outboxFromItem, outboxToItem, reportKeys, type ExportFence, type Manifest, type ManifestEntry, type MonthIndexEntry, type OutboxRecord, type Staleness } from './model';

/**
 * The DynamoDB side of export manifests: the export fence and the month index that make a
 * timesheet write see every manifest it changes (planStaleness, used inside timesheet
 * writes), opening, publishing and abandoning manifests, and the newest-first lists of
 * manifests and of the payroll outbox. Keys and item shapes: model.ts.
 */

export const FENCE_LABEL = 'exportFence';
export const MANIFEST_LABEL = 'manifest';
export const REPLACED_LABEL = 'replaced';
export { fenceFromItem, reportKeys, type ExportFence };

export const getManifest = (db: Db, org: string, id: string): Promise<Manifest | undefined> => getOne(db, reportKeys.manifest(org, id), manifestFromItem);

/** The exact revisions a manifest holds, in entry id order. */
export async function manifestEntries(db: Db, org: string, id: string): Promise<ManifestEntry[]> {
  const items = await collectAll(db, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :e)',
    ExpressionAttributeValues: { ':pk': reportKeys.manifest(org, id).PK, ':e': 'E#' },
  });
  return items.map(manifestEntryFromItem);
}

export interface PageQuery {
  readonly limit: number;
  readonly startKey?: Record<string, unknown>;
}

export interface Page<T> {
  readonly items: T[];
  readonly last?: Record<string, unknown>;
}

/** Published manifests, newest first: one Query on GSI1. */
export const listManifests = (db: Db, org: string, q: PageQuery): Promise<Page<Manifest>> => newestFirst(db, reportKeys.manifestsByOrganization(org), q, manifestFromItem);

/** Payroll outbox records, newest first: one Query on GSI1. */
export const listOutbox = (db: Db, org: string, q: PageQuery): Promise<Page<OutboxRecord>> => newestFirst(db, reportKeys.outboxByOrganization(org), q, outboxFromItem);

async function newestFirst<T>(db: Db, pk: string, q: PageQuery, map: (item: Record<string, unknown>) => T): Promise<Page<T>> {
  const page = await newestFirstPage(db, 'GSI1', pk, q.limit, q.startKey);
  return { items: page.items.map(map), ...(page.last ? { last: page.last } : {}) };
}

// ---- opening, publishing, abandoning

/**
 * Transaction items that open a PENDING manifest before any entry is read: the manifest, its
 * month-index items, and the next export-fence version. Any timesheet write checks the fence
 * it read, so once this commits, every later write sees this manifest in the month index
 * and marks it stale if it changes its content.
 */
export function openManifestItems(m: Manifest, months: readonly string[], fence: ExportFence): TxItem[] {
  const next: ExportFence = { organizationId: m.organizationId, version: fence.version + 1, months: [...new Set([...fence.months, ...months])].sort() };
  return [
    { label: MANIFEST_LABEL, op: { Put: { Item: manifestToItem(m), ConditionExpression: 'attribute_not_exists(PK)' } } },
    ...months.map((month): TxItem => ({ label: `index:${month}`, op: { Put: { Item: monthIndexToItem(m, month) } } })),
    {
      label: FENCE_LABEL,
      op: {
        Put: {
          Item: fenceToItem(next),
          ...(fence.version === 0 ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': fence.version } }),
        },
      },
    },
  ];
}

/** Every manifest the month index lists for any of the months, each once (consistent Queries). */
export async function manifestsCovering(db: Db, org: string, months: readonly string[]): Promise<MonthIndexEntry[]> {
  const found = new Map<string, MonthIndexEntry>();
  for (const month of months) {
    const items = await collectAll(db, { ConsistentRead: true, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': reportKeys.monthIndex(org, month, '').PK } });
    for (const entry of items.map(monthIndexFromItem)) found.set(entry.manifestId, entry);
  }
  return [...found.values()];
}

/**
 * Opens the pending manifest behind the fence. A concurrent opener moves the fence: read it
 * again after a jittered wait (retryOnConflict), so that a burst of exports of one
 * organization spreads out instead of colliding again; only when they keep colliding past
 * its bound is it TRANSACTION_CONFLICT. `refuse` sees the manifests of those months as they
 * are at the fence version the opening commits against, and may answer an error instead.
 */
export function openManifest(db: Db, manifest: Manifest, months: readonly string[], refuse?: (covering: readonly MonthIndexEntry[]) => Error | undefined): Promise<void> {
  return retryOnConflict(async () => {
    const [fenceItem] = await batchGet(db, [reportKeys.fence(manifest.organizationId)]);
    const refusal = refuse?.(await manifestsCovering(db, manifest.organizationId, months));
    if (refusal) throw refusal;
    try {
      await commit(db, openManifestItems(manifest, months, fenceFromItem(manifest.organizationId, fenceItem)));
    } catch (error) {
      if (error instanceof TransactionCancelledError && error.failed(FENCE_LABEL)) throw new ConcurrentChangeError('The export fence', { cause: error });
      throw error;
    }
  });
}

/** Writes the manifest's entry items (batches of 25, at most 6 calls each) while it is still PENDING. */
export const putManifestEntries = (db: Db, org: string, manifestId: string, entries: readonly Pick<TimeEntry, 'id' | 'revision'>[]): Promise<void> =>
  batchPut(db, entries.map((e) => manifestEntryToItem(org, manifestId, e)), { attempts: 6 });

/**
 * Transaction items that publish a manifest: only if it is still PENDING and no change made
 * it stale meanwhile (then the worker starts over); its month-index items say PUBLISHED.
 */
export function publishManifestItems(m: Manifest, months: readonly string[], published: Pick<Manifest, 'entryCount' | 'contentHash' | 'fileHash' | 'contentType' | 'byteSize' | 'fileKey' | 'publishedAt'>): TxItem[] {
  const fields = Object.entries({ ...published, status: 'PUBLISHED', version: m.version + 1, GSI1PK: reportKeys.manifestsByOrganization(m.organizationId), GSI1SK: `${m.createdAt}#${m.id}` });
  return [
    {
      label: MANIFEST_LABEL,
      op: {
        Update: {
          Key: reportKeys.manifest(m.organizationId, m.id),
          UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
          ConditionExpression: '#status = :pending AND attribute_not_exists(stale)',
          ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(fields.map(([k], i) => [`#f${i}`, k])) },
          ExpressionAttributeValues: { ':pending': 'PENDING', ...Object.fromEntries(fields.map(([, v], i) => [`:v${i}`, v])) },
        },
      },
    },
    ...months.map((month): TxItem => ({
      label: `index:${month}`,
      op: { Update: { Key: reportKeys.monthIndex(m.organizationId, month, m.id), UpdateExpression: 'SET #status = :published', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':published': 'PUBLISHED' } } },
    })),
  ];
}

/** The stale manifest a replacement supersedes: it must still be stale and not replaced. */
export const supersedeItem = (org: string, staleId: string, replacementId: string): TxItem => ({
  label: REPLACED_LABEL,
  op: {
    Update: {
      Key: reportKeys.manifest(org, staleId),
      UpdateExpression: 'SET replacedByManifestId = :by, GSI2PK = :settled ADD version :one',
      ConditionExpression: 'attribute_exists(stale) AND attribute_not_exists(replacedByManifestId)',
      ExpressionAttributeValues: { ':by': replacementId, ':settled': reportKeys.settledManifests(org), ':one': 1 },
    },
  },
});

/** A new payroll outbox record. */
export const outboxItem = (r: OutboxRecord): TxItem => ({ label: 'outbox', op: { Put: { Item: outboxToItem(r), ConditionExpression: 'attribute_not_exists(PK)' } } });

/** A manifest given up (it went stale while being generated, or generation failed). */
export async function abandonManifest(db: Db, org: string, m: Pick<Manifest, 'id'>, months: readonly string[]): Promise<void> {
  await db.doc
    .send(
      new UpdateCommand({ TableName: db.tableName, Key: reportKeys.manifest(org, m.id), UpdateExpression: 'SET #status = :a, GSI2PK = :settled', ConditionExpression: '#status = :p', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':a': 'ABANDONED', ':p': 'PENDING', ':settled': reportKeys.settledManifests(org) } }),
    )
    .catch((error: unknown) => {
      if (!conditionFailed(error)) throw error;
    });
  for (const month of months) {
    await db.doc.send(new UpdateCommand({ TableName: db.tableName, Key: reportKeys.monthIndex(org, month, m.id), UpdateExpression: 'SET #status = :a', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':a': 'ABANDONED' } }));
  }
}

// ---- export fence and staleness (used inside timesheet writes)

export interface StalePlan {
  /** Published, not replaced manifests whose content the change alters (the audit entry and the response name them). */
  readonly staleExportManifestIds: string[];
  /** The fence check and a stale mark per affected manifest not stale yet (pending ones too), as many as STALE_MARKS_IN_TRANSACTION. */
  readonly items: TxItem[];
}

/**
 * How many stale marks ride in the change's own transaction: the rest of a revision's items
 * stay under 25 of the 100 a transaction holds.
 */
export const STALE_MARKS_IN_TRANSACTION = 60;

/**
 * The export manifests a change from `before` to `after` alters: a key lookup in the month
 * index of the months the entry started in (before and after), skipped when the fence
 * says no manifest covers those months, then the state of those manifests (one BatchGetItem
 * per 100). The fence check makes the lookup and the write one step against a manifest being
 * opened concurrently.
 * - A manifest already stale keeps its first mark: it is not marked again (staleness only
 *   grows), so each manifest costs one mark in its life.
 * - Marks beyond STALE_MARKS_IN_TRANSACTION are written here, before the change commits (in
 *   transactions of their own): if the change then fails, those manifests stay marked by a
 *   change that did not happen, a false alarm (a replacement has the same content), never a
 *   missed one. A change can therefore alter any number of exports.
 */
export async function planStaleness(db: Db, fence: ExportFence, before: TimeEntry | undefined, after: TimeEntry, change: { readonly at: string; readonly requestId: string }): Promise<StalePlan> {
  const org = fence.organizationId;
  const months = [...new Set([before?.startedAt, after.startedAt].filter((s): s is string => s !== undefined).map(monthOf))].filter((m) => fence.months.includes(m));
  const affected = (await manifestsCovering(db, org, months)).filter((m) => m.status !== 'ABANDONED' && changesExport(m.period, m.scope, before, after)).map((m) => m.manifestId);
  const staleness: Staleness = { at: change.at, entryId: after.id, revision: after.revision, requestId: change.requestId };
  const states = await manifestStates(db, org, affected.sort());
  const marks = states.filter((m) => m.status !== 'ABANDONED' && !m.stale).map(
    ({ id: manifestId }): TxItem => ({
      label: `stale:${manifestId}`,
      op: {
        Update: {
          Key: reportKeys.manifest(org, manifestId),
          // The first change that made the content stale is kept; the version (ETag) moves on.
          // GSI2 (sparse): the first mark puts the manifest on the stale partition; a replaced
          // or abandoned one stays SETTLED whatever changes later.
          UpdateExpression: 'SET stale = if_not_exists(stale, :s), GSI2PK = if_not_exists(GSI2PK, :stalePk), GSI2SK = if_not_exists(GSI2SK, :position) ADD version :one',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':s': staleness, ':stalePk': reportKeys.staleManifests(org), ':position': `${change.at}#${manifestId}`, ':one': 1 },
        },
      },
    }),
  );
  const fenceCheck: TxItem = {
    label: FENCE_LABEL,
    op: {
      ConditionCheck: {
        Key: reportKeys.fence(org),
        ConditionExpression: fence.version === 0 ? 'attribute_not_exists(PK)' : 'version = :v',
        ...(fence.version === 0 ? {} : { ExpressionAttributeValues: { ':v': fence.version } }),
      },
    },
  };
  for (let i = STALE_MARKS_IN_TRANSACTION; i < marks.length; i += MAX_TRANSACTION_ITEMS) await commit(db, marks.slice(i, i + MAX_TRANSACTION_ITEMS));
  return {
    staleExportManifestIds: states.filter((m) => m.status === 'PUBLISHED' && !m.replacedByManifestId).map((m) => m.id),
    items: [fenceCheck, ...marks.slice(0, STALE_MARKS_IN_TRANSACTION)],
  };
}

type ManifestState = Pick<Manifest, 'id' | 'status' | 'stale' | 'replacedByManifestId'>;

/** What staleness needs of each manifest: its status, first stale mark and replacement, in the order of `ids` (consistent reads). */
async function manifestStates(db: Db, org: string, ids: readonly string[]): Promise<ManifestState[]> {
  const states: ManifestState[] = [];
  for (let i = 0; i < ids.length; i += 100) {
    const items = await batchGet(db, ids.slice(i, i + 100).map((id) => reportKeys.manifest(org, id)));
    states.push(...items.filter((item): item is Record<string, unknown> => item !== undefined).map(manifestFromItem));
  }
  return states;
}

// ---- the payroll outbox as the integrations area's dispatch job uses it (public.ts)

export const OUTBOX_LABEL = 'outbox';
export const MANIFEST_CURRENT_LABEL = 'manifestCurrent';

export const getOutboxRecord = (db: Db, org: string, id: string): Promise<OutboxRecord | undefined> => getOne(db, reportKeys.outbox(org, id), outboxFromItem);

/** Holds only while the outbox record is still PENDING (not yet sent). */
export const outboxPendingCheck = (org: string, id: string): TxItem => ({
  label: OUTBOX_LABEL,
  op: { ConditionCheck: { Key: reportKeys.outbox(org, id), ConditionExpression: '#status = :pending', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':pending': 'PENDING' } } },
});

/** Holds only while the manifest is published and no change made it stale. */
export const manifestCurrentCheck = (org: string, manifestId: string): TxItem => ({
  label: MANIFEST_CURRENT_LABEL,
  op: {
    ConditionCheck: {
      Key: reportKeys.manifest(org, manifestId),
      ConditionExpression: '#status = :published AND attribute_not_exists(stale)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':published': 'PUBLISHED' },
    },
  },
});

/** PENDING -> SENT with the job that delivered it, inside that job's success transaction. */
export const outboxSentItem = (org: string, id: string, sent: { readonly jobId: string; readonly at: string }): TxItem => ({
  label: OUTBOX_LABEL,
  op: {
    Update: {
      Key: reportKeys.outbox(org, id),
      UpdateExpression: 'SET #status = :sent, sentAt = :at, dispatchJobId = :job',
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':sent': 'SENT', ':pending': 'PENDING', ':at': sent.at, ':job': sent.jobId },
    },
  },
});
