import { activeLocationCheck, locationExistsCheck, locationState, LOCATION_LABEL } from '../locations/public';
import type { Db } from '../shared/ddb/client';
import { movedOn, versionedPut } from '../shared/ddb/entity';
import { indexPage, type PagePosition, type Page } from '../shared/ddb/paging';
import { getOne } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import type { TaskChange, TasksStore } from './domain';
import { taskFromItem, taskKeys, taskToItem, type Task } from './model';

/**
 * The DynamoDB adapter of location tasks: the only place with their expressions and
 * conditions (keys: model.ts). A change holds only at the version read and while its
 * location exists.
 */

export const TASK_LABEL = 'task';

export const getTask = (db: Db, org: string, id: string): Promise<Task | undefined> => getOne(db, taskKeys.task(org, id), taskFromItem);

/** Transaction item: the task exists in the organization and is not archived (shifts reference tasks). */
export const activeTaskCheck = (org: string, id: string, label = TASK_LABEL): TxItem => ({
  label,
  op: { ConditionCheck: { Key: taskKeys.task(org, id), ConditionExpression: 'attribute_exists(PK) AND archived = :no', ExpressionAttributeValues: { ':no': false } } },
});

/**
 * The task at the version read; the location of a new or restored task must still be active
 * when it commits, a changed task's must still exist.
 */
export function saveTask(unit: UnitOfWork, change: TaskChange): void {
  const activates = !change.before || (change.before.archived && !change.after.archived);
  unit.stage({
    items: [versionedPut(TASK_LABEL, taskToItem(change.after), change.before), (activates ? activeLocationCheck : locationExistsCheck)(change.after.organizationId, change.after.locationId)],
    audit: change.audit,
    explain: movedOn(TASK_LABEL, LOCATION_LABEL),
  });
}

/** One page of a location's active (or archived) tasks by title, then id: one Query of GSI1. */
export async function listTasks(db: Db, org: string, locationId: string, archived: boolean, limit: number, after?: PagePosition): Promise<Page<Task>> {
  const page = await indexPage(db, 'GSI1', taskKeys.byLocation(org, locationId, archived), limit, after);
  return { items: page.items.map(taskFromItem), ...(page.next ? { next: page.next } : {}) };
}

export const tasksStore = (db: Db, unit: UnitOfWork): TasksStore => ({
  getTask: (org, id) => getTask(db, org, id),
  getLocation: (org, id) => locationState(db, org, id),
  saveTask: (change) => saveTask(unit, change),
});
