import type { Db } from '../shared/ddb/client';
import { batchGet, collect, collectAll, positionRange, projectionOf } from '../shared/ddb/read';
import { ENTRY_ATTRIBUTES, entryFromItem, entryKeys, statsMaxDurationMs, timelineFromItem, type EntryState, type TimeEntry } from './model';

/** A page reads the entry's own attributes only: no keys or index attributes to transfer and parse. */
const ENTRY_PROJECTION = projectionOf(ENTRY_ATTRIBUTES);

/**
 * The list and range reads of time entries: pages of the organization's or an employee's
 * entries overlapping [from, to) (GSI Queries, never a Scan), and the consistent range read
 * exports use. Keys and item shapes: model.ts.
 */

const iso = (ms: number) => new Date(Math.max(ms, 0)).toISOString();

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
 * One page of entries overlapping [from, to), by startedAt then id; never a Scan.
 * - Without `from`: ONE Query. GSI1 (GSI2 for an employee) holds every entry, OPEN ones
 *   included, by start, so the page is the index's next `limit + 1` items before `to`
 *   (state=OPEN: the sparse GSI3 alone, which holds only those).
 * - With `from`: two sorted streams are merged: entries with an end (by start, from
 *   `from - longest interval`, GSI1 or GSI2) and OPEN entries (sparse GSI3), each a bounded
 *   Query. An OPEN entry reaches to +infinity, so no start window can bound it: it may have
 *   started long before `from - longest interval`.
 */
export async function listEntries(db: Db, filter: ListFilter, limit: number, maxDurationMs: number): Promise<{ items: TimeEntry[]; hasMore: boolean }> {
  if (filter.state === 'OPEN') return page(await openStream(db, filter, limit + 1), limit);
  if (filter.from === undefined) return page(await endedStream(db, filter, limit + 1, maxDurationMs, true), limit);
  const [ended, open] = await Promise.all([
    endedStream(db, filter, limit + 1, maxDurationMs),
    filter.state === undefined ? openStream(db, filter, limit + 1) : Promise.resolve([]),
  ]);
  return page([...ended, ...open].sort((a, b) => (entryKeys.position(a) < entryKeys.position(b) ? -1 : 1)), limit);
}

const page = (sorted: TimeEntry[], limit: number) => ({ items: sorted.slice(0, limit), hasMore: sorted.length > limit });

/** `after` + '~': every position has the same width, so this is the first position after it. */
const lowerBound = (candidates: (string | undefined)[]) => candidates.filter((c): c is string => c !== undefined).sort().pop();

/** Entries of GSI1/GSI2 by start: those with an end, or (withOpen, no `from`) every entry. */
async function endedStream(db: Db, f: ListFilter, max: number, maxDurationMs: number, withOpen = false): Promise<TimeEntry[]> {
  const byEmployee = f.employeeId !== undefined;
  const index = byEmployee ? 'GSI2' : 'GSI1';
  const pk = byEmployee ? entryKeys.byEmployee(f.organizationId, f.employeeId!) : entryKeys.byOrganization(f.organizationId);
  const lo = lowerBound([f.from ? iso(Date.parse(f.from) - maxDurationMs) : undefined, f.after ? `${f.after}~` : undefined]);
  const names: Record<string, string> = { '#state': 'state' };
  const values: Record<string, unknown> = withOpen ? {} : { ':open': 'OPEN' };
  const filters = withOpen ? [] : ['#state <> :open'];
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
    {
      IndexName: index,
      KeyConditionExpression: range.key,
      ExpressionAttributeValues: values,
      ProjectionExpression: ENTRY_PROJECTION.ProjectionExpression,
      ExpressionAttributeNames: { ...ENTRY_PROJECTION.ExpressionAttributeNames, ...(filters.length > 0 ? names : {}) },
      ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
    },
    max,
    // `max` is already the page's limit + 1: that item tells whether more follow.
    { probe: false },
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
      ...ENTRY_PROJECTION,
      ...(f.employeeId ? { FilterExpression: 'employeeId = :employee', ExpressionAttributeValues: { ...values, ':employee': f.employeeId } } : { ExpressionAttributeValues: values }),
    },
    max,
    // `max` is already the page's limit + 1: that item tells whether more follow.
    { probe: false },
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
  const ids = timeline.map((t) => timelineFromItem(t).id);
  for (let i = 0; i < ids.length; i += 100) {
    const items = await batchGet(db, ids.slice(i, i + 100).map((id) => entryKeys.entry(org, id)));
    for (const item of items) if (item) entries.push(entryFromItem(item));
  }
  return entries.filter((e) => e.startedAt >= from && e.startedAt < to);
}

/**
 * The effective (not VOIDED) entries of one employee that overlap [from, to), OPEN ones
 * included: what planning compares shifts with. The organization's longest interval bounds
 * the window (one GetItem), then the same two bounded Queries as a list.
 */
export async function effectiveEntriesOverlapping(db: Db, org: string, employeeId: string, from: string, to: string): Promise<TimeEntry[]> {
  const [stats] = await batchGet(db, [entryKeys.stats(org)], false);
  const { items } = await listEntries(db, { organizationId: org, employeeId, from, to }, 1000, statsMaxDurationMs(stats));
  return items.filter((e) => e.state !== 'VOIDED');
}
