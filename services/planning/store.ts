import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { activeEmployeeCheck, employeeKeys, EMPLOYEE_LABEL } from '../employees/public';
import { activeLocationCheck, locationKeys, LOCATION_LABEL } from '../locations/public';
import type { Db } from '../shared/ddb/client';
import { movedOn, stillAtVersion, versionedPut } from '../shared/ddb/entity';
import { batchGet, collect, collectAll, getOne, positionRange } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import { inUnitOfWork, type UnitOfWork } from '../shared/ddb/unit-of-work';
import { activeTaskCheck, TASK_LABEL, taskFromItem, taskKeys } from '../tasks/public';
import { effectiveEntriesOverlapping } from '../timesheets/public';
import type { PlanningPorts, PlanningStore, RangeFilter, ReferenceIds, References, ShiftChange, ShiftInterval, WorkedInterval } from './domain';
import { guardFromItem, guardToItem, MAX_SHIFT_MS, plannedFromItem, plannedToItem, shiftFromItem, shiftKeys, shiftToItem, type PlanGuard, type PlannedShift, type Shift, type ShiftState } from './model';

/**
 * The DynamoDB adapter of shifts: the only place with their expressions and conditions (keys
 * and item shapes: model.ts). A change is staged with its employee's plan (the PUBLISHED
 * shifts, read consistently for overlap checks) and the plan guard's next version; a guard or
 * shift version that moved is a concurrent change, and the use case runs again from its reads.
 */

export const SHIFT_LABEL = 'shift';
const GUARD_LABEL = 'plan-guard';
const PLANNED_LABEL = 'planned-shift';

const iso = (ms: number) => new Date(Math.max(ms, 0)).toISOString();

export const getShift = (db: Db, org: string, id: string): Promise<Shift | undefined> => getOne(db, shiftKeys.shift(org, id), shiftFromItem);

/** BatchGetItem reads at most this many keys a call. */
const BATCH_GET_KEYS = 100;

/**
 * Employees, locations and tasks of these ids (each once) in one BatchGetItem, one more for
 * every further 100 keys; no call for no id. Existence, active and archive state, and each
 * task's location only.
 */
export async function readReferences(db: Db, org: string, ids: ReferenceIds): Promise<References> {
  const once = (list: readonly string[] | undefined) => [...new Set(list ?? [])];
  const wanted = [
    ...once(ids.employeeIds).map((id) => ({ kind: 'employee', id, key: employeeKeys.employee(org, id) }) as const),
    ...once(ids.locationIds).map((id) => ({ kind: 'location', id, key: locationKeys.location(org, id) }) as const),
    ...once(ids.taskIds).map((id) => ({ kind: 'task', id, key: taskKeys.task(org, id) }) as const),
  ];
  const employees = new Map<string, { active: boolean }>();
  const locations = new Map<string, { archived: boolean }>();
  const tasks = new Map<string, { locationId: string; archived: boolean }>();
  for (let i = 0; i < wanted.length; i += BATCH_GET_KEYS) {
    const chunk = wanted.slice(i, i + BATCH_GET_KEYS);
    const items = await batchGet(db, chunk.map((w) => w.key));
    chunk.forEach((w, j) => {
      const item = items[j];
      if (!item) return;
      if (w.kind === 'employee') employees.set(w.id, { active: item.active === true });
      else if (w.kind === 'location') locations.set(w.id, { archived: item.archived === true });
      else {
        const task = taskFromItem(item);
        tasks.set(w.id, { locationId: task.locationId, archived: task.archived });
      }
    });
  }
  return { employees, locations, tasks };
}

export async function readGuard(db: Db, org: string, employeeId: string): Promise<PlanGuard> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: shiftKeys.guard(org, employeeId), ConsistentRead: true }));
  return guardFromItem(org, employeeId, out.Item);
}

/** The employee's PUBLISHED shifts starting in [start - 24 h, end): every one that can overlap. One consistent Query. */
export async function publishedNear(db: Db, guard: PlanGuard, interval: ShiftInterval): Promise<PlannedShift[]> {
  const items = await collectAll(db, {
    ConsistentRead: true,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
    ExpressionAttributeValues: { ':pk': shiftKeys.planPartition(guard.organizationId, guard.employeeId), ':lo': `SHIFT#${iso(Date.parse(interval.startsAt) - MAX_SHIFT_MS)}`, ':hi': `SHIFT#${interval.endsAt}` },
  });
  return items.map(plannedFromItem);
}

export interface ShiftFilter {
  readonly organizationId: string;
  readonly from?: string;
  readonly to?: string;
  readonly employeeId?: string;
  readonly locationId?: string;
  readonly state?: ShiftState;
  /** Continue after this position (`<startsAt>#<id>`). */
  readonly after?: string;
}

/**
 * Shifts overlapping [from, to) by start, then id: one Query of GSI2 (an employee), GSI3 (a
 * location) or GSI1 (the organization) over starts in [from - 24 h, to), filtered by end,
 * state and the other reference. Never a Scan.
 */
export async function listShifts(db: Db, f: ShiftFilter, limit: number): Promise<{ items: Shift[]; hasMore: boolean }> {
  const [index, pk] = f.employeeId
    ? ['GSI2', shiftKeys.byEmployee(f.organizationId, f.employeeId)]
    : f.locationId
      ? ['GSI3', shiftKeys.byLocation(f.organizationId, f.locationId)]
      : ['GSI1', shiftKeys.byOrganization(f.organizationId)];
  const lo = [f.from ? iso(Date.parse(f.from) - MAX_SHIFT_MS) : undefined, f.after ? `${f.after}~` : undefined].filter((v): v is string => v !== undefined).sort().pop();
  const range = positionRange(index, pk, lo, f.to);
  if (!range) return { items: [], hasMore: false };
  const filters: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ...range.values };
  if (f.from) {
    filters.push('endsAt > :from');
    values[':from'] = f.from;
  }
  if (f.state) {
    filters.push('#state = :state');
    names['#state'] = 'state';
    values[':state'] = f.state;
  }
  if (f.employeeId && f.locationId) {
    filters.push('locationId = :location');
    values[':location'] = f.locationId;
  }
  const { items } = await collect(
    db,
    {
      IndexName: index,
      KeyConditionExpression: range.key,
      ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    },
    limit + 1,
  );
  const shifts = items.map(shiftFromItem);
  return { items: shifts.slice(0, limit), hasMore: shifts.length > limit };
}

/**
 * An employee's PUBLISHED shifts that start in [from, to): what the monthly report plans with
 * (reports' use through public.ts). One Query of GSI2 (eventually consistent: a shift
 * published a moment ago may be missed), at most `max` (a month holds far fewer).
 */
export async function publishedShiftsStartingIn(db: Db, org: string, employeeId: string, from: string, to: string, max = 1000): Promise<Shift[]> {
  const { items } = await listShifts(db, { organizationId: org, employeeId, from, to, state: 'PUBLISHED' }, max);
  return items.filter((s) => s.startsAt >= from && s.startsAt < to);
}

/** DRAFT shifts starting in [from, to) (strongly consistent on the organization's shifts is not possible on a GSI: a draft created a moment ago may be missed and stays a draft). */
export async function draftsStartingIn(db: Db, org: string, filter: RangeFilter, max: number): Promise<Shift[]> {
  const [index, pk] = filter.employeeId ? ['GSI2', shiftKeys.byEmployee(org, filter.employeeId)] : filter.locationId ? ['GSI3', shiftKeys.byLocation(org, filter.locationId)] : ['GSI1', shiftKeys.byOrganization(org)];
  const range = positionRange(index, pk, filter.from, filter.to)!;
  const values: Record<string, unknown> = { ...range.values, ':draft': 'DRAFT' };
  const filters = ['#state = :draft'];
  if (filter.employeeId && filter.locationId) {
    filters.push('locationId = :location');
    values[':location'] = filter.locationId;
  }
  const { items } = await collect(db, { IndexName: index, KeyConditionExpression: range.key, FilterExpression: filters.join(' AND '), ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: values }, max);
  return items.map(shiftFromItem);
}

/** The employee's effective time entries over [from, to): what planned vs actual reads (timesheets' port). */
export const entriesOf = (db: Db, org: string, employeeId: string, from: string, to: string): Promise<WorkedInterval[]> => effectiveEntriesOverlapping(db, org, employeeId, from, to);

/** The items that keep an employee's plan in step with a shift change: its PUBLISHED shifts and the guards. */
function planItems(before: Shift | undefined, after: Shift, guards: readonly PlanGuard[]): TxItem[] {
  const org = after.organizationId;
  const wasPlanned = before?.state === 'PUBLISHED' && before.employeeId ? shiftKeys.planned(org, before.employeeId, before) : undefined;
  const isPlanned = after.state === 'PUBLISHED' && after.employeeId ? shiftKeys.planned(org, after.employeeId, after) : undefined;
  const items: TxItem[] = [];
  if (isPlanned) items.push({ label: PLANNED_LABEL, op: { Put: { Item: plannedToItem(after as Shift & { employeeId: string }) } } });
  if (wasPlanned && !(isPlanned && isPlanned.PK === wasPlanned.PK && isPlanned.SK === wasPlanned.SK)) items.push({ label: PLANNED_LABEL, op: { Delete: { Key: wasPlanned } } });
  for (const g of guards) {
    items.push({
      label: GUARD_LABEL,
      op: {
        Put: {
          Item: guardToItem({ ...g, version: g.version + 1 }),
          ...stillAtVersion(g.version),
        },
      },
    });
  }
  return items;
}

/**
 * Stages a shift change: the shift (new, or at the version read), its plan items and guards,
 * the checks of the references it requires (employee active, location and tasks not archived),
 * and the audit entry. Any failed condition means
 * something read moved on (a guard, the shift, a reference): the use case runs again and
 * answers in the contract's terms then (409, 412, 422).
 */
export function saveShift(unit: UnitOfWork, change: ShiftChange): void {
  const { before, after, requires } = change;
  const org = after.organizationId;
  unit.stage({
    items: [
      versionedPut(SHIFT_LABEL, shiftToItem(after), before),
      ...planItems(before, after, change.guards),
      ...(requires.employeeId ? [activeEmployeeCheck(org, requires.employeeId)] : []),
      ...(requires.locationId ? [activeLocationCheck(org, requires.locationId)] : []),
      ...requires.taskIds.map((id) => activeTaskCheck(org, id)),
    ],
    audit: change.audit,
    explain: movedOn(SHIFT_LABEL, GUARD_LABEL, EMPLOYEE_LABEL, LOCATION_LABEL, TASK_LABEL),
  });
}

/** The planning store port on DynamoDB, staging writes in `unit`. */
export const planningStore = (db: Db, unit: UnitOfWork): PlanningStore => ({
  getShift: (org, id) => getShift(db, org, id),
  readReferences: (org, ids) => readReferences(db, org, ids),
  readGuard: (org, employeeId) => readGuard(db, org, employeeId),
  publishedNear: (guard, interval) => publishedNear(db, guard, interval),
  draftsStartingIn: (org, filter, max) => draftsStartingIn(db, org, filter, max),
  saveShift: (change) => saveShift(unit, change),
});

/** The planning ports of one unit of work; `separately` opens a fresh one (a bulk publish commits per shift). */
export function planningPorts(db: Db, unit: UnitOfWork, now: () => Date, newId: () => string): PlanningPorts {
  return {
    store: planningStore(db, unit),
    now,
    newId,
    separately: (work) => inUnitOfWork(db, (own) => work(planningPorts(db, own, now, newId))),
  };
}
