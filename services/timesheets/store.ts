import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SealedValue } from '../shared/crypto/restricted';
import type { Db } from '../shared/ddb/client';
import { batchGet, collect, collectAll, positionRange, type Key } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import type { EntryState, OverlapCandidate, TimeEntry } from './domain';

/**
 * DynamoDB adapter of time entries. Keys (docs/data-model.md):
 *   entry        PK ORG#<org>#TE#<id>            SK TE
 *   evidence     PK ORG#<org>#TE#<id>            SK EVIDENCE#r<revision>   (restricted, no index keys)
 *   guard        PK ORG#<org>#EMP#<employee>     SK TE_GUARD               (overlap guard of one employee)
 *   timeline     PK ORG#<org>#EMP#<employee>     SK TE#<startedAt>#<id>    (the employee's entries: id, interval, state)
 *   stats        PK ORG#<org>                    SK TE_STATS               (longest closed entry)
 *   GSI1 ORG#<org>#TE                 / <startedAt>#<id>   entries of the organization by start
 *   GSI2 ORG#<org>#EMP#<employee>#TE  / <startedAt>#<id>   entries of one employee by start
 *   GSI3 ORG#<org>#TE#OPEN            / <startedAt>#<id>   OPEN entries only (sparse)
 */
export const entryKeys = {
  entry: (org: string, id: string): Key => ({ PK: `ORG#${org}#TE#${id}`, SK: 'TE' }),
  evidence: (org: string, id: string, revision: number): Key => ({ PK: `ORG#${org}#TE#${id}`, SK: `EVIDENCE#r${String(revision).padStart(6, '0')}` }),
  guard: (org: string, employeeId: string): Key => ({ PK: `ORG#${org}#EMP#${employeeId}`, SK: 'TE_GUARD' }),
  timeline: (e: Pick<TimeEntry, 'organizationId' | 'employeeId' | 'startedAt' | 'id'>): Key => ({ PK: `ORG#${e.organizationId}#EMP#${e.employeeId}`, SK: `TE#${e.startedAt}#${e.id}` }),
  stats: (org: string): Key => ({ PK: `ORG#${org}`, SK: 'TE_STATS' }),
  byOrganization: (org: string) => `ORG#${org}#TE`,
  byEmployee: (org: string, employeeId: string) => `ORG#${org}#EMP#${employeeId}#TE`,
  open: (org: string) => `ORG#${org}#TE#OPEN`,
  position: (e: Pick<TimeEntry, 'startedAt' | 'id'>) => `${e.startedAt}#${e.id}`,
};

export const ENTRY_LABEL = 'entry';
export const GUARD_LABEL = 'guard';
export const STATS_LABEL = 'stats';

export function entryToItem(e: TimeEntry): Record<string, unknown> {
  const position = entryKeys.position(e);
  return {
    ...entryKeys.entry(e.organizationId, e.id),
    GSI1PK: entryKeys.byOrganization(e.organizationId),
    GSI1SK: position,
    GSI2PK: entryKeys.byEmployee(e.organizationId, e.employeeId),
    GSI2SK: position,
    ...(e.state === 'OPEN' ? { GSI3PK: entryKeys.open(e.organizationId), GSI3SK: position } : {}),
    itemType: 'TimeEntry',
    ...e,
  };
}

export function entryFromItem(item: Record<string, unknown>): TimeEntry {
  return {
    id: item.id as string,
    organizationId: item.organizationId as string,
    employeeId: item.employeeId as string,
    context: item.context as TimeEntry['context'],
    startedAt: item.startedAt as string,
    endedAt: (item.endedAt as string | null | undefined) ?? null,
    breakMinutes: item.breakMinutes as number,
    origin: item.origin as TimeEntry['origin'],
    state: item.state as EntryState,
    adjusted: Boolean(item.adjusted),
    revision: item.revision as number,
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
    ...(item.source ? { source: item.source as TimeEntry['source'] } : {}),
  };
}

export async function getEntry(db: Db, org: string, id: string): Promise<TimeEntry | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: entryKeys.entry(org, id), ConsistentRead: true }));
  return out.Item ? entryFromItem(out.Item) : undefined;
}

/** Transaction item: the first revision of an entry. */
export const putNewEntry = (e: TimeEntry): TxItem => ({
  label: ENTRY_LABEL,
  op: { Put: { Item: entryToItem(e), ConditionExpression: 'attribute_not_exists(PK)' } },
});

/**
 * Transaction item: the next revision replaces the current one, only if the current one is
 * still the revision the change was computed from (optimistic concurrency: the loser of two
 * corrections with the same ETag fails here and answers 412).
 */
export const putNextRevision = (next: TimeEntry, expectedRevision: number): TxItem => ({
  label: ENTRY_LABEL,
  op: {
    Put: {
      Item: entryToItem(next),
      ConditionExpression: 'revision = :expected',
      ExpressionAttributeValues: { ':expected': expectedRevision },
    },
  },
});

export const EVIDENCE_LABEL = 'evidence';

/** Transaction item: restricted evidence (sealed coordinates) of one revision's context. */
export const putRestrictedEvidence = (org: string, entryId: string, revision: number, sealed: SealedValue, capturedAt: string): TxItem => ({
  label: EVIDENCE_LABEL,
  op: {
    Put: {
      Item: { ...entryKeys.evidence(org, entryId, revision), itemType: 'RestrictedEvidence', kind: 'AD_HOC_POSITION', sealed, capturedAt },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  },
});

/** The per-employee overlap guard: its version makes "check, then write" one atomic step. */
export interface OverlapGuard {
  readonly organizationId: string;
  readonly employeeId: string;
  /** 0 when the guard item does not exist yet. */
  readonly version: number;
  /** OPEN entries of the employee: id -> startedAt (they reach to +infinity). */
  readonly openEntries: Readonly<Record<string, string>>;
  /** Longest CLOSED/VOIDED interval the employee ever had: bounds the overlap window. */
  readonly maxClosedDurationMs: number;
}

export function guardFromItem(org: string, employeeId: string, item: Record<string, unknown> | undefined): OverlapGuard {
  return {
    organizationId: org,
    employeeId,
    version: (item?.version as number | undefined) ?? 0,
    openEntries: (item?.openEntries as Record<string, string> | undefined) ?? {},
    maxClosedDurationMs: (item?.maxClosedDurationMs as number | undefined) ?? 0,
  };
}

/**
 * Transaction item: the guard's next version. Two concurrent writes for one employee both
 * read version N; only one can write N+1, the other is cancelled and re-checks overlaps.
 */
export function putNextGuard(guard: OverlapGuard, next: Pick<OverlapGuard, 'openEntries' | 'maxClosedDurationMs'>): TxItem {
  return {
    label: GUARD_LABEL,
    op: {
      Put: {
        Item: {
          ...entryKeys.guard(guard.organizationId, guard.employeeId),
          itemType: 'OverlapGuard',
          version: guard.version + 1,
          openEntries: next.openEntries,
          maxClosedDurationMs: next.maxClosedDurationMs,
        },
        ...(guard.version === 0
          ? { ConditionExpression: 'attribute_not_exists(PK)' }
          : { ConditionExpression: 'version = :read', ExpressionAttributeValues: { ':read': guard.version } }),
      },
    },
  };
}

/** The organization's longest closed interval: bounds range queries of lists. */
export async function readOrgMaxDurationMs(db: Db, org: string): Promise<number> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: entryKeys.stats(org) }));
  return (out.Item?.maxClosedDurationMs as number | undefined) ?? 0;
}

/** Transaction item: raises the organization's longest interval (never lowers it). */
export const raiseOrgMaxDuration = (org: string, durationMs: number): TxItem => ({
  label: STATS_LABEL,
  op: {
    Put: {
      Item: { ...entryKeys.stats(org), itemType: 'TimeEntryStats', maxClosedDurationMs: durationMs },
      ConditionExpression: 'attribute_not_exists(PK) OR maxClosedDurationMs <= :new',
      ExpressionAttributeValues: { ':new': durationMs },
    },
  },
});

export { batchGet };

const iso = (ms: number) => new Date(Math.max(ms, 0)).toISOString();

export const TIMELINE_LABEL = 'timeline';

/**
 * Transaction items: the employee's timeline item of an entry after a write (and, when the
 * start moved, the removal of the old one). Overlap checks read the timeline, not a GSI:
 * GSI Queries are eventually consistent, so an entry committed a moment ago may be missing
 * there; a Query on the table with ConsistentRead sees every committed write.
 */
export function timelineItems(before: TimeEntry | undefined, after: TimeEntry): TxItem[] {
  const put: TxItem = {
    label: TIMELINE_LABEL,
    op: {
      Put: {
        Item: { ...entryKeys.timeline(after), itemType: 'TimelineEntry', id: after.id, startedAt: after.startedAt, endedAt: after.endedAt, state: after.state },
      },
    },
  };
  const moved = before !== undefined && before.startedAt !== after.startedAt;
  return moved ? [put, { label: TIMELINE_LABEL, op: { Delete: { Key: entryKeys.timeline(before) } } }] : [put];
}

/**
 * CLOSED entries of one employee that may overlap [start, end): those starting in
 * [start - longest closed interval, end). VOIDED entries are skipped; OPEN ones come from
 * the guard. One bounded, strongly consistent Query on the employee's timeline.
 */
export async function closedEntriesNear(db: Db, guard: OverlapGuard, startedAt: string, endedAt: string | null): Promise<OverlapCandidate[]> {
  const lo = iso(Date.parse(startedAt) - guard.maxClosedDurationMs);
  const items = await collectAll(db, {
    ConsistentRead: true,
    // `~` sorts after every position, so an open end stays inside the TE# items.
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
    FilterExpression: '#state = :closed AND endedAt > :start',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: {
      ':pk': entryKeys.guard(guard.organizationId, guard.employeeId).PK,
      ':lo': `TE#${lo}`,
      ':hi': `TE#${endedAt ?? '~'}`,
      ':closed': 'CLOSED',
      ':start': startedAt,
    },
  });
  return items.map((i) => ({ id: i.id as string, state: i.state as EntryState, startedAt: i.startedAt as string, endedAt: (i.endedAt as string | null | undefined) ?? null }));
}

export interface ListFilter {
  readonly organizationId: string;
  readonly employeeId?: string;
  readonly state?: EntryState;
  readonly from?: string;
  readonly to?: string;
  /** Continue after this position (`<startedAt>#<id>`). */
  readonly after?: string;
}

/**
 * One page of entries overlapping [from, to), by startedAt then id. Two sorted streams are
 * merged: entries with an end (by start, from `from - longest interval`, GSI1 or GSI2) and
 * OPEN entries (sparse GSI3), each a bounded Query; never a Scan.
 */
export async function listEntries(db: Db, filter: ListFilter, limit: number, maxDurationMs: number): Promise<{ items: TimeEntry[]; hasMore: boolean }> {
  const wantOpen = filter.state === undefined || filter.state === 'OPEN';
  const wantEnded = filter.state !== 'OPEN';
  const [ended, open] = await Promise.all([
    wantEnded ? endedStream(db, filter, limit + 1, maxDurationMs) : Promise.resolve([]),
    wantOpen ? openStream(db, filter, limit + 1) : Promise.resolve([]),
  ]);
  const merged = [...ended, ...open].sort((a, b) => (entryKeys.position(a) < entryKeys.position(b) ? -1 : 1));
  return { items: merged.slice(0, limit), hasMore: merged.length > limit };
}

/** `after` + '~': every position has the same width, so this is the first position after it. */
const lowerBound = (candidates: (string | undefined)[]) => candidates.filter((c): c is string => c !== undefined).sort().pop();

async function endedStream(db: Db, f: ListFilter, max: number, maxDurationMs: number): Promise<TimeEntry[]> {
  const byEmployee = f.employeeId !== undefined;
  const index = byEmployee ? 'GSI2' : 'GSI1';
  const pk = byEmployee ? entryKeys.byEmployee(f.organizationId, f.employeeId!) : entryKeys.byOrganization(f.organizationId);
  const lo = lowerBound([f.from ? iso(Date.parse(f.from) - maxDurationMs) : undefined, f.after ? `${f.after}~` : undefined]);
  const names: Record<string, string> = { '#state': 'state' };
  const values: Record<string, unknown> = { ':open': 'OPEN' };
  const filters = ['#state <> :open'];
  if (f.state) {
    filters.push('#state = :state');
    values[':state'] = f.state;
  }
  if (f.from) {
    // Ends after `from`; a VOIDED entry that never had an end counts by its start.
    filters.push('(endedAt > :from OR (attribute_type(endedAt, :null) AND startedAt >= :from))');
    values[':from'] = f.from;
    values[':null'] = 'NULL';
  }
  const range = positionRange(index, pk, lo, f.to);
  if (!range) return [];
  Object.assign(values, range.values);
  const { items } = await collect(
    db,
    { IndexName: index, KeyConditionExpression: range.key, FilterExpression: filters.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values },
    max,
  );
  return items.map(entryFromItem);
}

async function openStream(db: Db, f: ListFilter, max: number): Promise<TimeEntry[]> {
  const range = positionRange('GSI3', entryKeys.open(f.organizationId), f.after ? `${f.after}~` : undefined, f.to);
  if (!range) return [];
  const { key, values } = range;
  const { items } = await collect(
    db,
    {
      IndexName: 'GSI3',
      KeyConditionExpression: key,
      ...(f.employeeId ? { FilterExpression: 'employeeId = :employee', ExpressionAttributeValues: { ...values, ':employee': f.employeeId } } : { ExpressionAttributeValues: values }),
    },
    max,
  );
  return items.map(entryFromItem);
}

/**
 * The entries of one employee that start in [from, to), as committed now: the employee's
 * timeline (Query with ConsistentRead) and then the entries (BatchGetItem, consistent). Exports
 * read this way so that no just-committed revision is missed, as a GSI read could.
 */
export async function entriesOfEmployeeStartingIn(db: Db, org: string, employeeId: string, from: string, to: string): Promise<TimeEntry[]> {
  const timeline = await collectAll(db, {
    ConsistentRead: true,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
    ExpressionAttributeValues: { ':pk': entryKeys.guard(org, employeeId).PK, ':lo': `TE#${from}`, ':hi': `TE#${to}` },
  });
  const entries: TimeEntry[] = [];
  const ids = timeline.map((t) => t.id as string);
  for (let i = 0; i < ids.length; i += 100) {
    const items = await batchGet(db, ids.slice(i, i + 100).map((id) => entryKeys.entry(org, id)));
    for (const item of items) if (item) entries.push(entryFromItem(item));
  }
  return entries.filter((e) => e.startedAt >= from && e.startedAt < to);
}
