import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { employeeExistsCheck, employeeKeys, EMPLOYEE_LABEL } from '../employees/public';
import { locationExistsCheck, locationKeys, LOCATION_LABEL } from '../locations/public';
import { CAPABILITY_LABEL, organizationFromItem, organizationKeys, timesheetCapabilityCheck, timesheetWritesEnabled } from '../organization/public';
import type { SealedValue } from '../shared/crypto/restricted';
import type { Db } from '../shared/ddb/client';
import { movedOn, stillAtVersion } from '../shared/ddb/entity';
import { batchGet, collectAll, getOne, type Key } from '../shared/ddb/read';
import type { TransactionCancelledError, TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import { FeatureNotEnabledError, ValidationError } from '../shared/errors';
import type { EntryRevisionContext, ExportFence, Interval, OverlapCandidate, RevisionChange, RevisionContext, StalePlan, TimesheetStore } from './domain';
import { dayAttribute, dayEntriesFromItem, dayVersionOf, DAY_ITEM_TYPE, durationMs, entryFromItem, entryKeys, entryToItem, evidenceToItem, GUARD_ITEM_TYPE, guardFromItem, guardToItem, indexedDaysOf, intervalValue, MAX_INDEXED_DAYS, nextGuard, utcDaysOf, statsMaxDurationMs, statsToItem, timelineFromItem, timelineToItem, type GuardChange, type OverlapGuard, type TimeEntry } from './model';

/**
 * The DynamoDB adapter of time entries: the only place with their expressions and
 * conditions (keys and item shapes: model.ts; list and range reads: store-lists.ts). A
 * revision is staged in the unit of work with every item it keeps in step (entry, timeline,
 * guard, stats, export fence and stale marks); a condition on something read that failed is a
 * concurrent change, and the use case runs again from its reads.
 */

/**
 * What a revision needs of the reports area: the export fence (read with the revision's
 * context, checked at its commit) and the stale marks of the exports it alters. Wired in by
 * the composition (store-exports.ts for the handler; the evidence channel) from
 * reports/public.ts: reports reads entries through timesheets/public.ts, so an import of
 * reports from here would be a cycle.
 */
export interface ExportsPort {
  /** The label of the fence check among the transaction's items. */
  readonly fenceLabel: string;
  fenceKey(organizationId: string): Key;
  fenceFromItem(organizationId: string, item: Record<string, unknown> | undefined): ExportFence;
  planStaleness(db: Db, fence: ExportFence, before: TimeEntry | undefined, after: TimeEntry, change: { readonly at: string; readonly requestId: string }): Promise<StalePlan>;
}

export const ENTRY_LABEL = 'entry';
export const GUARD_LABEL = 'guard';
export const STATS_LABEL = 'stats';
export const TIMELINE_LABEL = 'timeline';
export const DAY_LABEL = 'overlap-day';
export const EVIDENCE_LABEL = 'evidence';

export const getEntry = (db: Db, org: string, id: string): Promise<TimeEntry | undefined> => getOne(db, entryKeys.entry(org, id), entryFromItem);

/** The organization's timesheet capability from its item (read raw in a batch, parsed by the organization's port). */
const capabilityOf = (item: Record<string, unknown> | undefined): boolean => item !== undefined && timesheetWritesEnabled(organizationFromItem(item));

/**
 * A batch read with the request's idempotency record along (unit.readAlong, routes without
 * the lock): a replay answers from `settle` before the use case decides anything.
 */
async function batchGetWithRecord(db: Db, unit: UnitOfWork, keys: readonly Key[]): Promise<(Record<string, unknown> | undefined)[]> {
  const along = unit.readAlong;
  const items = await batchGet(db, along ? [...keys, along.key] : keys);
  if (along) along.settle(items.pop());
  return items;
}

/**
 * One BatchGetItem: organization (capability), employee, guard, stats, export fence, the
 * location of a registered context, the idempotency record when read along, and, for a new
 * interval on at most MAX_INDEXED_DAYS UTC days, the employee's day items of those days
 * (`closedNear`: the CLOSED entries on them). Existence only for employee and location: their
 * items stay theirs.
 */
export async function readRevisionContext(db: Db, unit: UnitOfWork, exportsPort: ExportsPort, org: string, employeeId: string, locationId?: string, interval?: Interval): Promise<RevisionContext & { readonly guard: OverlapGuard; readonly closedNear?: OverlapCandidate[] }> {
  const days = interval?.endedAt ? utcDaysOf({ startedAt: interval.startedAt, endedAt: interval.endedAt }) : [];
  const dayKeys = days.length > 0 && days.length <= MAX_INDEXED_DAYS ? days.map((day) => entryKeys.day(org, employeeId, day)) : [];
  const [organization, employee, guard, stats, fence, ...rest] = await batchGetWithRecord(db, unit, [
    organizationKeys.organization(org),
    employeeKeys.employee(org, employeeId),
    entryKeys.guard(org, employeeId),
    entryKeys.stats(org),
    exportsPort.fenceKey(org),
    ...dayKeys,
    ...(locationId ? [locationKeys.location(org, locationId)] : []),
  ]);
  const dayItemsRead = rest.slice(0, dayKeys.length);
  const location = rest[dayKeys.length];
  const closedNear = dayKeys.length > 0 ? [...new Map(dayItemsRead.flatMap(dayEntriesFromItem).map((c) => [c.id, c])).values()] : undefined;
  return {
    writesEnabled: capabilityOf(organization),
    employeeExists: employee !== undefined,
    locationExists: locationId === undefined || location !== undefined,
    guard: guardFromItem(org, employeeId, guard),
    orgMaxDurationMs: statsMaxDurationMs(stats),
    fence: exportsPort.fenceFromItem(org, fence),
    ...(closedNear ? { closedNear, dayVersions: Object.fromEntries(dayKeys.map((_, i) => [days[i], dayVersionOf(dayItemsRead[i])])) } : {}),
  };
}

/** The overlap guard of one employee (a void of an entry the guard lists as long). */
export async function readGuard(db: Db, org: string, employeeId: string): Promise<OverlapGuard> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: entryKeys.guard(org, employeeId), ConsistentRead: true }));
  return guardFromItem(org, employeeId, out.Item);
}

/**
 * One BatchGetItem for a change of an existing entry: the entry, organization (capability),
 * stats, export fence, a new context's location, and the idempotency record when read along.
 * The guard is not among them: the entry names its employee.
 */
export async function readEntryContext(db: Db, unit: UnitOfWork, exportsPort: ExportsPort, org: string, entryId: string, locationId?: string): Promise<EntryRevisionContext> {
  const [entry, organization, stats, fence, location] = await batchGetWithRecord(db, unit, [
    entryKeys.entry(org, entryId),
    organizationKeys.organization(org),
    entryKeys.stats(org),
    exportsPort.fenceKey(org),
    ...(locationId ? [locationKeys.location(org, locationId)] : []),
  ]);
  return {
    entry: entry ? entryFromItem(entry) : undefined,
    writesEnabled: capabilityOf(organization),
    employeeExists: entry !== undefined,
    locationExists: locationId === undefined || location !== undefined,
    orgMaxDurationMs: statsMaxDurationMs(stats),
    fence: exportsPort.fenceFromItem(org, fence),
  };
}

/** The organization's longest closed interval: bounds range queries of lists. */
export async function readOrgMaxDurationMs(db: Db, org: string): Promise<number> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: entryKeys.stats(org) }));
  return statsMaxDurationMs(out.Item);
}

const iso = (ms: number) => new Date(Math.max(ms, 0)).toISOString();

/**
 * CLOSED entries of one employee that may overlap [start, end): those starting in
 * [start - maxDurationMs, end), where maxDurationMs is at least the employee's longest closed
 * interval (the guard's, or the organization's). VOIDED entries are skipped; OPEN ones come
 * from the guard. One bounded, strongly consistent Query on the employee's timeline (a GSI
 * could miss an entry committed a moment ago).
 */
export async function closedEntriesNear(db: Db, org: string, employeeId: string, { startedAt, endedAt }: Interval, maxDurationMs: number): Promise<OverlapCandidate[]> {
  const lo = iso(Date.parse(startedAt) - maxDurationMs);
  const items = await collectAll(db, {
    ConsistentRead: true,
    // `~` sorts after every position, so an open end stays inside the TE# items.
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
    FilterExpression: '#state = :closed AND endedAt > :start',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: {
      ':pk': entryKeys.guard(org, employeeId).PK,
      ':lo': `TE#${lo}`,
      ':hi': `TE#${endedAt ?? '~'}`,
      ':closed': 'CLOSED',
      ':start': startedAt,
    },
  });
  return items.map(timelineFromItem);
}

/** Timeline items a correction's one Query reads at most (guard, window and what follows the window). */
export const GUARD_SPAN_ITEMS = 100;

/**
 * The guard and the CLOSED entries near an interval, for a change of an existing entry (whose
 * employee is known only once the entry is read), in ONE strongly consistent Query when the
 * employee has few entries after the window: the employee's partition read backwards from the
 * guard (`TE_GUARD` sorts after every `TE#<position>`, and nothing else of the employee sorts
 * between them) down to the window's start, the filter keeping the guard and the candidates.
 * Backwards, so the guard is read BEFORE the window, as a create reads them: a write that
 * commits between the two reads has moved the version the transaction checks. (A guard read
 * after the window could already hold that write's version while the window missed its entry.)
 * Bounded: at most GUARD_SPAN_ITEMS items; an employee with more entries after the window
 * gets the window from a second Query (closedEntriesNear), still after the guard.
 */
export async function guardAndClosedEntriesNear(db: Db, org: string, employeeId: string, interval: Interval, maxDurationMs: number): Promise<{ guard: OverlapGuard; closed: OverlapCandidate[] }> {
  const { startedAt, endedAt } = interval;
  const guardKey = entryKeys.guard(org, employeeId);
  const out = await db.doc.send(
    new QueryCommand({
      TableName: db.tableName,
      ConsistentRead: true,
      ScanIndexForward: false,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :guard',
      // The window's own bounds (closedEntriesNear) as a filter: the key range reaches the guard.
      FilterExpression: `itemType = :guardType OR (#state = :closed AND endedAt > :start${endedAt ? ' AND startedAt < :end' : ''})`,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':pk': guardKey.PK,
        ':lo': `TE#${iso(Date.parse(startedAt) - maxDurationMs)}`,
        ':guard': guardKey.SK,
        ':guardType': GUARD_ITEM_TYPE,
        ':closed': 'CLOSED',
        ':start': startedAt,
        ...(endedAt ? { ':end': endedAt } : {}),
      },
      Limit: GUARD_SPAN_ITEMS,
    }),
  );
  const items = out.Items ?? [];
  const guard = guardFromItem(org, employeeId, items.find((i) => i.SK === guardKey.SK));
  if (out.LastEvaluatedKey) return { guard, closed: await closedEntriesNear(db, org, employeeId, interval, maxDurationMs) };
  return { guard, closed: items.filter((i) => i.SK !== guardKey.SK).map(timelineFromItem).reverse() };
}

/** Transaction item: the first revision of an entry. */
export const putNewEntry = (e: TimeEntry): TxItem => ({
  label: ENTRY_LABEL,
  op: { Put: { Item: entryToItem(e), ConditionExpression: 'attribute_not_exists(PK)' } },
});

/**
 * Transaction item: the next revision replaces the current one, only if the current one is
 * still the revision the change was computed from (the loser of two corrections with one
 * ETag fails here, runs again and answers 412).
 */
export const putNextRevision = (next: TimeEntry, expectedRevision: number): TxItem => ({
  label: ENTRY_LABEL,
  op: { Put: { Item: entryToItem(next), ConditionExpression: 'revision = :expected', ExpressionAttributeValues: { ':expected': expectedRevision } } },
});

/** Transaction item: restricted evidence (sealed coordinates) of one revision's context. */
export const putRestrictedEvidence = (org: string, entryId: string, revision: number, sealed: SealedValue, capturedAt: string): TxItem => ({
  label: EVIDENCE_LABEL,
  op: { Put: { Item: evidenceToItem(org, entryId, revision, { kind: 'AD_HOC_POSITION', sealed, capturedAt }), ConditionExpression: 'attribute_not_exists(PK)' } },
});

/**
 * Transaction item: the guard's next version. Two concurrent writes for one employee both
 * read version N; only one can write N+1, the other runs again and re-checks overlaps.
 */
export const putNextGuard = (guard: OverlapGuard, next: GuardChange): TxItem => ({
  label: GUARD_LABEL,
  op: {
    Put: {
      Item: guardToItem({ ...guard, ...next, version: guard.version + 1 }),
      ...stillAtVersion(guard.version),
    },
  },
});

/**
 * Transaction item: an entry that was OPEN leaves the guard without the guard being read
 * (a void): its id is removed and the version moves on, so a write that read the guard with
 * the entry still OPEN runs again. It can only lift an overlap, never make one, so no
 * condition is needed.
 */
export const removeFromGuard = (org: string, employeeId: string, entryId: string): TxItem => ({
  label: GUARD_LABEL,
  op: {
    Update: {
      Key: entryKeys.guard(org, employeeId),
      UpdateExpression: 'REMOVE openEntries.#entry SET version = if_not_exists(version, :zero) + :one',
      ExpressionAttributeNames: { '#entry': entryId },
      ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
    },
  },
});

/** Transaction item: raises the organization's longest interval (never lowers it). */
export const raiseOrgMaxDuration = (org: string, durationMs: number): TxItem => ({
  label: STATS_LABEL,
  op: {
    Put: {
      Item: statsToItem(org, durationMs),
      ConditionExpression: 'attribute_not_exists(PK) OR maxClosedDurationMs <= :new',
      ExpressionAttributeValues: { ':new': durationMs },
    },
  },
});

/**
 * Transaction items: the employee's timeline item of an entry after a write (and, when the
 * start moved, the removal of the old one). Overlap checks and exports read the timeline,
 * not a GSI: a Query on the table with ConsistentRead sees every committed write.
 */
export function timelineItems(before: TimeEntry | undefined, after: TimeEntry): TxItem[] {
  const put: TxItem = { label: TIMELINE_LABEL, op: { Put: { Item: timelineToItem(after) } } };
  const moved = before !== undefined && before.startedAt !== after.startedAt;
  return moved ? [put, { label: TIMELINE_LABEL, op: { Delete: { Key: entryKeys.timeline(before) } } }] : [put];
}

/**
 * Transaction items: the employee's day items after a write. A CLOSED entry is listed (its
 * interval under `e_<id>`) on each UTC day it touches, at most MAX_INDEXED_DAYS (a longer one
 * is in the guard); a day it left loses it. One Update per day, each moving the day's version
 * on. Conditioned only on the day items a create read with its guard (`readVersions`): the
 * guard's version orders the writes that add intervals, but a BatchGetItem may read the guard
 * after a concurrent write and a day item before it. A removal can only lift an overlap.
 */
export function dayItems(before: TimeEntry | undefined, after: TimeEntry, readVersions?: Readonly<Record<string, number>>): TxItem[] {
  const was = indexedDaysOf(before);
  const is = indexedDaysOf(after);
  if (before && before.startedAt === after.startedAt && before.endedAt === after.endedAt && was.length === is.length) return [];
  const bump = '#version = if_not_exists(#version, :zero) + :one';
  return [...new Set([...was, ...is])].sort().map((day) => {
    const read = readVersions?.[day];
    const condition = read === undefined ? {} : read === 0 ? { ConditionExpression: 'attribute_not_exists(#version)' } : { ConditionExpression: '#version = :read' };
    const listed = is.includes(day);
    return {
      label: DAY_LABEL,
      op: {
        Update: {
          Key: entryKeys.day(after.organizationId, after.employeeId, day),
          UpdateExpression: listed ? `SET #entry = :interval, #type = :type, ${bump}` : `REMOVE #entry SET ${bump}`,
          ExpressionAttributeNames: { '#entry': dayAttribute(after.id), '#version': 'version', ...(listed ? { '#type': 'itemType' } : {}) },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ...(listed ? { ':interval': intervalValue(after), ':type': DAY_ITEM_TYPE } : {}), ...(read ? { ':read': read } : {}) },
          ...condition,
        },
      },
    };
  });
}

/**
 * The items every new revision of an entry commits, whoever writes it (the API's use cases,
 * the evidence projection): the entry (new, or conditioned on the revision it was computed
 * from), the stale marks of the exports it alters with the fence check, its timeline item,
 * its day items, the guard's next version, and the organization's longest interval when it
 * grows.
 */
export function revisionItems(guard: OverlapGuard | undefined, orgMaxDurationMs: number, before: TimeEntry | undefined, after: TimeEntry, stale: StalePlan, dayVersions?: Readonly<Record<string, number>>): TxItem[] {
  const duration = durationMs(after);
  return [
    before ? putNextRevision(after, before.revision) : putNewEntry(after),
    ...stale.items,
    ...(guard || !before || before.startedAt !== after.startedAt || before.endedAt !== after.endedAt || before.state !== after.state ? timelineItems(before, after) : []),
    ...dayItems(before, after, dayVersions),
    ...guardItems(guard, before, after),
    ...(duration > orgMaxDurationMs ? [raiseOrgMaxDuration(after.organizationId, duration)] : []),
  ];
}

/**
 * The guard's part of a revision: its next version when it was read; without a read (a void)
 * only an OPEN entry leaving it changes it.
 */
function guardItems(guard: OverlapGuard | undefined, before: TimeEntry | undefined, after: TimeEntry): TxItem[] {
  if (guard) return [putNextGuard(guard, nextGuard(guard, before, after))];
  if (!before) throw new Error('A new entry needs the guard it was checked against.');
  if (after.startedAt !== before.startedAt || after.endedAt !== before.endedAt || (before.state !== after.state && after.state !== 'VOIDED')) {
    throw new Error('A revision that moves an interval needs the guard it was checked against.');
  }
  return before.state === 'OPEN' && after.state !== 'OPEN' ? [removeFromGuard(after.organizationId, after.employeeId, after.id)] : [];
}

/**
 * Stages a revision: its items, restricted evidence, the checks it requires, and its audit
 * entry. A failed check is the contract's error; a failed condition on anything read (the
 * entry's revision, the guard, the stats item, the export fence) means it moved on: the use
 * case runs again (and answers 412 then, if the client's If-Match no longer holds).
 */
export function saveRevision(unit: UnitOfWork, exportsPort: ExportsPort, change: RevisionChange): void {
  const { context, before, after, requires } = change;
  const org = after.organizationId;
  const items: TxItem[] = [
    ...revisionItems(context.guard, context.orgMaxDurationMs, before, after, change.stale, context.dayVersions),
    ...(change.evidence ? [putRestrictedEvidence(org, after.id, after.revision, change.evidence, after.updatedAt)] : []),
    ...(requires.capability ? [timesheetCapabilityCheck(org)] : []),
    ...(requires.employee ? [employeeExistsCheck(org, after.employeeId)] : []),
    ...(requires.locationId ? [locationExistsCheck(org, requires.locationId)] : []),
  ];
  unit.stage({ items, audit: change.audit, explain: (error) => explainRequirement(error, requires) ?? movedOn(ENTRY_LABEL, GUARD_LABEL, DAY_LABEL, STATS_LABEL, exportsPort.fenceLabel)(error) });
}

function explainRequirement(error: TransactionCancelledError, requires: RevisionChange['requires']): Error | undefined {
  if (requires.capability && error.failed(CAPABILITY_LABEL)) return new FeatureNotEnabledError('timesheet_corrections');
  if (requires.employee && error.failed(EMPLOYEE_LABEL)) return new ValidationError([{ pointer: '/employeeId', detail: 'The employee does not exist in this organization.' }]);
  if (requires.locationId && error.failed(LOCATION_LABEL)) return new ValidationError([{ pointer: '/context/locationId', detail: 'The location does not exist in this organization.' }]);
  return undefined;
}

/** The timesheets store port on DynamoDB, staging writes in `unit`; `exportsPort` is the reports area's side of a revision. */
export const timesheetsStore = (db: Db, unit: UnitOfWork, exportsPort: ExportsPort): TimesheetStore => ({
  getEntry: (org, id) => getEntry(db, org, id),
  readRevisionContext: (org, employeeId, locationId, interval) => readRevisionContext(db, unit, exportsPort, org, employeeId, locationId, interval),
  readGuard: (org, employeeId) => readGuard(db, org, employeeId),
  readEntryContext: (org, entryId, locationId) => readEntryContext(db, unit, exportsPort, org, entryId, locationId),
  guardAndClosedEntriesNear: (org, employeeId, interval, maxDurationMs) => guardAndClosedEntriesNear(db, org, employeeId, interval, maxDurationMs),
  closedEntriesNear: (org, employeeId, interval, maxDurationMs) => closedEntriesNear(db, org, employeeId, interval, maxDurationMs),
  staleExports: (context, before, after, change) => exportsPort.planStaleness(db, context.fence, before, after, change),
  saveRevision: (change) => saveRevision(unit, exportsPort, change),
});
