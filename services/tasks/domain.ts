import { auditEntry, type AuditEntry } from '../audit/model';
import type { Actor } from '../shared/domain/actor';
import { assertSentEtag, versionedEtag } from '../shared/domain/etag';
import { archiveState, changedAttributes, givenAttributes, newArchivable, orNull, patched, revised } from '../shared/domain/lifecycle';
import { NotFoundError, ValidationError } from '../shared/errors';
import type { Task } from './model';
import type { UseCasePorts } from '../shared/domain/ports';

export type { Schedule, Task, Weekday } from './model';

/**
 * The use cases of location tasks (create, change, archive) on the TasksStore port; the
 * DynamoDB adapter is store.ts. A task is the recurring work at one location; shifts and work
 * events reference it by id. Nothing is hard-deleted: DELETE archives.
 */

export interface TaskChange {
  /** The stored state the change was decided on; absent for a new task. */
  readonly before?: Task;
  readonly after: Task;
  readonly audit: AuditEntry;
}

export interface TasksStore {
  getTask(organizationId: string, id: string): Promise<Task | undefined>;
  /** The location of this organization, or undefined; `archived` as stored. */
  getLocation(organizationId: string, id: string): Promise<{ readonly archived: boolean } | undefined>;
  /** Stages the task with the location's existence check and the audit entry. */
  saveTask(change: TaskChange): void;
}

export type TaskPorts = UseCasePorts<TasksStore>;

export const taskEtag = versionedEtag<Task>('task');

/** A new task: its title, and its optional fields named as the task has them. */
export type TaskInput = Pick<Task, 'title'> & Partial<Pick<Task, 'instructions' | 'schedule' | 'estimatedMinutes'>>;

export type TaskPatch = Partial<TaskInput> & { readonly archived?: boolean };

/** A task of this location, or 404 (a task of another location is not found there). */
export async function taskAt(store: TasksStore, org: string, locationId: string, id: string): Promise<Task> {
  const task = await store.getTask(org, id);
  if (!task || task.locationId !== locationId) throw new NotFoundError(`Task ${id}`);
  return task;
}

/**
 * Creates a task at a location.
 * 1. The location must be of this organization (404: it is the path) and not archived (422).
 * 2. Stage version 1 with the location's existence check and an audit entry naming the
 *    attributes given (never their values: instructions may name people).
 */
export async function createTask(ports: TaskPorts, actor: Actor, locationId: string, input: TaskInput): Promise<Task> {
  const org = actor.principal.organizationId;
  const location = await ports.store.getLocation(org, locationId);
  if (!location) throw new NotFoundError(`Location ${locationId}`);
  if (location.archived) throw new ValidationError([{ pointer: '', detail: `Location ${locationId} is archived: restore it before adding tasks.` }]);
  const now = ports.now().toISOString();
  const task: Task = { ...newArchivable(ports.newId(), org, now), locationId, title: input.title, ...orNull(input, ['instructions', 'schedule', 'estimatedMinutes']) };
  const given = givenAttributes(input);
  ports.store.saveTask({ after: task, audit: auditEntry({ id: ports.newId(), actor, occurredAt: now, action: 'task.created', entity: { type: 'task', id: task.id }, references: { locationId }, changedAttributes: given }) });
  return task;
}

const ATTRIBUTES = ['title', 'instructions', 'schedule', 'estimatedMinutes', 'archived'] as const;

/**
 * Changes a task (partial; `archived: false` restores it).
 * 1. Read (404, also for a task of another location); If-Match must be its ETag (412).
 * 2. Nothing changed: answer it as it is (same ETag).
 * 3. A restore needs its location active (422 at `/archived`): nothing active points at an
 *    archived location, as for a new task.
 * 4. Stage the next version at the version read: of two changes from one ETag exactly one
 *    commits, the other runs again and answers 412; a restore also holds only while its
 *    location is still active.
 */
export async function updateTask(ports: TaskPorts, actor: Actor, locationId: string, id: string, ifMatch: string | undefined, patch: TaskPatch, action = 'task.updated'): Promise<Task> {
  const current = await taskAt(ports.store, actor.principal.organizationId, locationId, id);
  assertSentEtag(ifMatch, taskEtag(current));
  const now = ports.now().toISOString();
  const candidate: Task = { ...patched(current, patch, ['title', 'instructions', 'schedule', 'estimatedMinutes']), ...archiveState(current, patch.archived ?? current.archived, now) };
  const changed = changedAttributes(current, candidate, ATTRIBUTES);
  if (changed.length === 0) return current;
  if (current.archived && !candidate.archived && (await ports.store.getLocation(current.organizationId, locationId))?.archived) {
    throw new ValidationError([{ pointer: '/archived', detail: `Location ${locationId} is archived: restore it before restoring its tasks.` }]);
  }
  const next: Task = revised(current, now, candidate);
  ports.store.saveTask({
    before: current,
    after: next,
    audit: auditEntry({ id: ports.newId(), actor, occurredAt: now, action, entity: { type: 'task', id }, references: { locationId }, changedAttributes: [...changed] }),
  });
  return next;
}

/** Archives a task (DELETE): it leaves the default list, stays readable by id and referenced, and can be restored. */
export const archiveTask = (ports: TaskPorts, actor: Actor, locationId: string, id: string, ifMatch: string | undefined): Promise<Task> =>
  updateTask(ports, actor, locationId, id, ifMatch, { archived: true }, 'task.archived');
