import { BatchWriteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../shared/ddb/client';
import { collectAll, type Key } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import type { TimeEntry } from '../timesheets/public';
import { changesExport, monthOf, type Period, type ReportKind, type ReportScope } from './domain';

/**
 * DynamoDB adapter of report jobs, export manifests and the payroll outbox (docs/data-model.md):
 *   job             PK ORG#<org>#RJOB#<id>        SK RJOB
 *   manifest        PK ORG#<org>#MAN#<id>         SK MAN         GSI1 ORG#<org>#MANIFESTS / <createdAt>#<id> once published
 *   manifest entry  PK ORG#<org>#MAN#<id>         SK E#<entryId> (the exact revision exported)
 *   month index     PK ORG#<org>#MANIDX#<YYYY-MM> SK MAN#<id>    (period, scope, status: the key lookup of staleness)
 *   export fence    PK ORG#<org>                  SK EXPORTS     (version + months that have manifests)
 *   outbox          PK ORG#<org>#OUTBOX#<id>      SK OUTBOX      GSI1 ORG#<org>#OUTBOX / <createdAt>#<id>
 */
export type JobStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';
export type ManifestStatus = 'PENDING' | 'PUBLISHED' | 'ABANDONED';

export interface Requester {
  readonly keyId: string;
  readonly label: string;
}

export interface ReportJob {
  readonly id: string;
  readonly organizationId: string;
  readonly kind: ReportKind;
  readonly period: Period;
  readonly scope: ReportScope;
  readonly replacesManifestId: string | null;
  readonly status: JobStatus;
  readonly progress: { readonly processedEmployees: number; readonly totalEmployees: number | null };
  readonly manifestId: string | null;
  readonly failureReason: string | null;
  readonly requestedBy: Requester;
  readonly requestId: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface Staleness {
  readonly at: string;
  readonly entryId: string;
  readonly revision: number;
  readonly requestId: string;
}

export interface Manifest {
  readonly id: string;
  readonly organizationId: string;
  readonly kind: ReportKind;
  readonly period: Period;
  readonly scope: ReportScope;
  readonly status: ManifestStatus;
  readonly jobId: string;
  readonly entryCount: number;
  readonly contentHash: string | null;
  readonly contentType: string | null;
  readonly byteSize: number | null;
  readonly fileKey: string | null;
  readonly requestedBy: Requester;
  readonly createdAt: string;
  readonly publishedAt: string | null;
  /** The first change that made the content stale; later ones keep it. */
  readonly stale: Staleness | null;
  readonly replacesManifestId: string | null;
  readonly replacedByManifestId: string | null;
}

export interface ExportFence {
  readonly organizationId: string;
  readonly version: number;
  readonly months: readonly string[];
}

export const reportKeys = {
  job: (org: string, id: string): Key => ({ PK: `ORG#${org}#RJOB#${id}`, SK: 'RJOB' }),
  manifest: (org: string, id: string): Key => ({ PK: `ORG#${org}#MAN#${id}`, SK: 'MAN' }),
  manifestEntry: (org: string, id: string, entryId: string): Key => ({ PK: `ORG#${org}#MAN#${id}`, SK: `E#${entryId}` }),
  monthIndex: (org: string, month: string, manifestId: string): Key => ({ PK: `ORG#${org}#MANIDX#${month}`, SK: `MAN#${manifestId}` }),
  fence: (org: string): Key => ({ PK: `ORG#${org}`, SK: 'EXPORTS' }),
  outbox: (org: string, id: string): Key => ({ PK: `ORG#${org}#OUTBOX#${id}`, SK: 'OUTBOX' }),
  manifestsByOrganization: (org: string) => `ORG#${org}#MANIFESTS`,
  outboxByOrganization: (org: string) => `ORG#${org}#OUTBOX`,
};

const strip = (item: Record<string, unknown>) => {
  const { PK: _a, SK: _b, GSI1PK: _c, GSI1SK: _d, itemType: _e, ...rest } = item;
  return rest;
};

// ---- jobs

export const putNewJob = (job: ReportJob): TxItem => ({
  label: 'job',
  op: { Put: { Item: { ...reportKeys.job(job.organizationId, job.id), itemType: 'ReportJob', ...job }, ConditionExpression: 'attribute_not_exists(PK)' } },
});

export async function getJob(db: Db, org: string, id: string): Promise<ReportJob | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: reportKeys.job(org, id), ConsistentRead: true }));
  return out.Item ? (strip(out.Item) as unknown as ReportJob) : undefined;
}

/** Moves a job on; `from` guards against a stale worker overwriting a finished job. */
export async function updateJob(db: Db, org: string, id: string, from: readonly JobStatus[], change: Partial<Pick<ReportJob, 'status' | 'progress' | 'manifestId' | 'failureReason'>>, now: string): Promise<boolean> {
  const entries = Object.entries({ ...change, updatedAt: now });
  try {
    await db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: reportKeys.job(org, id),
        UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ConditionExpression: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
        ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k])) },
        ExpressionAttributeValues: { ...Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])), ...Object.fromEntries(from.map((s, i) => [`:from${i}`, s])) },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

export const jobTransition = (org: string, id: string, from: JobStatus, change: Partial<ReportJob>, now: string): TxItem => {
  const entries = Object.entries({ ...change, updatedAt: now });
  return {
    label: 'job',
    op: {
      Update: {
        Key: reportKeys.job(org, id),
        UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ConditionExpression: '#status = :from',
        ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k])) },
        ExpressionAttributeValues: { ':from': from, ...Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])) },
      },
    },
  };
};

// ---- manifests

/** `stale` and `replacedByManifestId` are absent until set, so conditions can test existence. */
const manifestFromItem = (item: Record<string, unknown>): Manifest =>
  ({ ...strip(item), stale: item.stale ?? null, replacedByManifestId: item.replacedByManifestId ?? null }) as unknown as Manifest;

export async function getManifest(db: Db, org: string, id: string): Promise<Manifest | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: reportKeys.manifest(org, id), ConsistentRead: true }));
  return out.Item ? manifestFromItem(out.Item) : undefined;
}

/** The exact revisions a manifest holds, in entry id order. */
export async function manifestEntries(db: Db, org: string, id: string): Promise<{ id: string; revision: number }[]> {
  const items = await collectAll(db, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :e)',
    ExpressionAttributeValues: { ':pk': reportKeys.manifest(org, id).PK, ':e': 'E#' },
  });
  return items.map((i) => ({ id: i.entryId as string, revision: i.revision as number }));
}

export interface ManifestQuery {
  readonly limit: number;
  readonly startKey?: Record<string, unknown>;
}

/** Published manifests, newest first: one Query on GSI1. */
export async function listManifests(db: Db, org: string, q: ManifestQuery): Promise<{ items: Manifest[]; last?: Record<string, unknown> }> {
  return newestFirst(db, reportKeys.manifestsByOrganization(org), q, manifestFromItem);
}

async function newestFirst<T>(db: Db, pk: string, q: ManifestQuery, map: (item: Record<string, unknown>) => T): Promise<{ items: T[]; last?: Record<string, unknown> }> {
  const out = await db.doc.send(
    new QueryCommand({
      TableName: db.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ScanIndexForward: false,
      Limit: q.limit + 1,
      ExclusiveStartKey: q.startKey,
    }),
  );
  const raw = out.Items ?? [];
  const page = raw.slice(0, q.limit);
  const lastItem = raw.length > q.limit ? page.at(-1) : undefined;
  return { items: page.map(map), ...(lastItem ? { last: { PK: lastItem.PK, SK: lastItem.SK, GSI1PK: lastItem.GSI1PK, GSI1SK: lastItem.GSI1SK } } : {}) };
}

/**
 * Transaction items that open a PENDING manifest before any entry is read: the manifest, its
 * month-index items, and the next export-fence version. Any timesheet write checks the fence
 * it read, so once this commits, every later write sees this manifest in the month index
 * and marks it stale if it changes its content.
 */
export function openManifestItems(m: Manifest, months: readonly string[], fence: ExportFence): TxItem[] {
  const { stale: _stale, replacedByManifestId: _replacedBy, ...fields } = m;
  return [
    { label: 'manifest', op: { Put: { Item: { ...reportKeys.manifest(m.organizationId, m.id), itemType: 'ExportManifest', ...fields }, ConditionExpression: 'attribute_not_exists(PK)' } } },
    ...months.map((month): TxItem => ({
      label: `index:${month}`,
      op: { Put: { Item: { ...reportKeys.monthIndex(m.organizationId, month, m.id), itemType: 'ManifestIndex', manifestId: m.id, kind: m.kind, period: m.period, scope: m.scope, status: 'PENDING' } } },
    })),
    {
      label: FENCE_LABEL,
      op: {
        Put: {
          Item: { ...reportKeys.fence(m.organizationId), itemType: 'ExportFence', version: fence.version + 1, months: [...new Set([...fence.months, ...months])].sort() },
          ...(fence.version === 0 ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': fence.version } }),
        },
      },
    },
  ];
}

/** Writes the manifest's entry items (25 per BatchWriteItem) while it is still PENDING. */
export async function putManifestEntries(db: Db, org: string, manifestId: string, entries: readonly Pick<TimeEntry, 'id' | 'revision'>[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 25) {
    let requests = entries.slice(i, i + 25).map((e) => ({
      PutRequest: { Item: { ...reportKeys.manifestEntry(org, manifestId, e.id), itemType: 'ManifestEntry', entryId: e.id, revision: e.revision } },
    }));
    for (let attempt = 0; requests.length > 0; attempt += 1) {
      if (attempt > 5) throw new Error('BatchWriteItem left items unprocessed after retries.');
      const out = await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: requests } }));
      requests = (out.UnprocessedItems?.[db.tableName] as typeof requests | undefined) ?? [];
      if (requests.length > 0) await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
    }
  }
}

export const MANIFEST_LABEL = 'manifest';

/**
 * Transaction items that publish a manifest: only if it is still PENDING and no change made
 * it stale meanwhile (then the worker starts over); its month-index items say PUBLISHED.
 */
export function publishManifestItems(m: Manifest, months: readonly string[], published: Pick<Manifest, 'entryCount' | 'contentHash' | 'contentType' | 'byteSize' | 'fileKey' | 'publishedAt'>): TxItem[] {
  const fields = Object.entries({ ...published, status: 'PUBLISHED', GSI1PK: reportKeys.manifestsByOrganization(m.organizationId), GSI1SK: `${m.createdAt}#${m.id}` });
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
  label: 'replaced',
  op: {
    Update: {
      Key: reportKeys.manifest(org, staleId),
      UpdateExpression: 'SET replacedByManifestId = :by',
      ConditionExpression: 'attribute_exists(stale) AND attribute_not_exists(replacedByManifestId)',
      ExpressionAttributeValues: { ':by': replacementId },
    },
  },
});

/** A manifest given up (it went stale while being generated, or generation failed). */
export async function abandonManifest(db: Db, org: string, m: Pick<Manifest, 'id'>, months: readonly string[]): Promise<void> {
  await db.doc.send(
    new UpdateCommand({ TableName: db.tableName, Key: reportKeys.manifest(org, m.id), UpdateExpression: 'SET #status = :a', ConditionExpression: '#status = :p', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':a': 'ABANDONED', ':p': 'PENDING' } }),
  ).catch((error: Error) => {
    if (error.name !== 'ConditionalCheckFailedException') throw error;
  });
  for (const month of months) {
    await db.doc.send(new UpdateCommand({ TableName: db.tableName, Key: reportKeys.monthIndex(org, month, m.id), UpdateExpression: 'SET #status = :a', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':a': 'ABANDONED' } }));
  }
}

// ---- export fence and staleness (used inside timesheet writes)

export const FENCE_LABEL = 'exportFence';

export const fenceFromItem = (org: string, item: Record<string, unknown> | undefined): ExportFence => ({
  organizationId: org,
  version: (item?.version as number | undefined) ?? 0,
  months: (item?.months as string[] | undefined) ?? [],
});

interface MonthIndexItem {
  readonly manifestId: string;
  readonly period: Period;
  readonly scope: ReportScope;
  readonly status: ManifestStatus;
}

export interface StalePlan {
  /** Published manifests whose content the change alters (for the response and audit). */
  readonly staleExportManifestIds: string[];
  /** The fence check and a stale mark per affected manifest (pending ones too). */
  readonly items: TxItem[];
}

/**
 * The export manifests a change from `before` to `after` alters: a key lookup in the month
 * index of the months the entry started in (before and after), skipped when the fence
 * says no manifest covers those months. The fence check makes the lookup and the write one
 * step against a manifest being opened concurrently.
 */
export async function planStaleness(db: Db, fence: ExportFence, before: TimeEntry | undefined, after: TimeEntry, change: { readonly at: string; readonly requestId: string }): Promise<StalePlan> {
  const org = fence.organizationId;
  const months = [...new Set([before?.startedAt, after.startedAt].filter((s): s is string => s !== undefined).map(monthOf))].filter((m) => fence.months.includes(m));
  const affected = new Map<string, MonthIndexItem>();
  for (const month of months) {
    const items = await collectAll(db, {
      ConsistentRead: true,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': reportKeys.monthIndex(org, month, '').PK },
    });
    for (const item of items as unknown as MonthIndexItem[]) {
      if (item.status === 'ABANDONED') continue;
      if (changesExport(item.period, item.scope, before, after)) affected.set(item.manifestId, item);
    }
  }
  const staleness: Staleness = { at: change.at, entryId: after.id, revision: after.revision, requestId: change.requestId };
  const marks = [...affected.keys()].sort().map(
    (manifestId): TxItem => ({
      label: `stale:${manifestId}`,
      op: {
        Update: {
          Key: reportKeys.manifest(org, manifestId),
          // The first change that made the content stale is kept.
          UpdateExpression: 'SET stale = if_not_exists(stale, :s)',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':s': staleness },
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
  return {
    staleExportManifestIds: [...affected.values()].filter((m) => m.status === 'PUBLISHED').map((m) => m.manifestId).sort(),
    items: [fenceCheck, ...marks],
  };
}

// ---- payroll outbox

export interface OutboxRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly manifestId: string;
  readonly destination: 'PAYROLL_PROVIDER';
  readonly status: 'PENDING' | 'SENT';
  readonly replacesManifestId: string | null;
  readonly createdAt: string;
}

export const putOutboxRecord = (r: OutboxRecord): TxItem => ({
  label: 'outbox',
  op: {
    Put: {
      Item: { ...reportKeys.outbox(r.organizationId, r.id), GSI1PK: reportKeys.outboxByOrganization(r.organizationId), GSI1SK: `${r.createdAt}#${r.id}`, itemType: 'OutboxRecord', ...r },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  },
});

export async function listOutbox(db: Db, org: string, q: ManifestQuery): Promise<{ items: OutboxRecord[]; last?: Record<string, unknown> }> {
  return newestFirst(db, reportKeys.outboxByOrganization(org), q, (i) => strip(i) as unknown as OutboxRecord);
}
