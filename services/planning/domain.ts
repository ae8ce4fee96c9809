import { auditEntry, type AuditEntry } from '../audit/model';
import type { Actor } from '../shared/domain/actor';
import { changedAttributes, newRecord, patched, revised } from '../shared/domain/lifecycle';
import { eachLimited } from '../shared/domain/limited';
import { assertEtag, assertSentEtag, versionedEtag } from '../shared/domain/etag';
import { AppError, NotFoundError, ValidationError, type FieldError } from '../shared/errors';
import { assertMove, assertNotCancelled, overlappingShifts, resolveShiftOverlap, shiftIntervalErrors, shiftSnapshot, type OverlapDecision, type ShiftInterval } from './domain-rules';
import type { PlanGuard, PlannedShift, Shift } from './model';
import { PROBLEMS } from './problems';
import type { UseCasePorts } from '../shared/domain/ports';

export * from './domain-rules';
export type { PlanGuard, PlannedShift, Shift, ShiftState, VisitConfirmation } from './model';

/**
 * The use cases of shifts (create, change, publish one or a range, cancel) on the
 * PlanningStore port; the pure rules are in domain-rules.ts, the DynamoDB adapter is
 * store.ts. Two PUBLISHED shifts of one employee never overlap unless a publish overrides it
 * with a reason: every write that adds to or moves an employee's published shifts also writes
 * the employee's plan guard at the next version, so of two such writes decided on the same
 * plan exactly one commits and the other runs again from its reads (and sees the first).
 */

/** The ids of employees, locations and tasks to read together. */
export interface ReferenceIds {
  readonly employeeIds?: readonly string[];
  readonly locationIds?: readonly string[];
  readonly taskIds?: readonly string[];
}

/** References read together, by id: existence (an id read but not found is absent), active or archive state, and the location of each task. */
export interface References {
  readonly employees: ReadonlyMap<string, { readonly active: boolean }>;
  readonly locations: ReadonlyMap<string, { readonly archived: boolean }>;
  readonly tasks: ReadonlyMap<string, { readonly locationId: string; readonly archived: boolean }>;
}

/**
 * A draft and its references, read before its publish: a bulk publish reads its drafts with
 * one query and the references of all of them at once. The publish decides on them and
 * commits only while the shift is still at that version (every change of a shift moves its
 * version, so the same version names the same employee, location and tasks); otherwise it
 * runs again from fresh reads.
 */
export interface ReadAhead {
  readonly shift: Shift;
  readonly references: References;
}

export interface ShiftChange {
  readonly before?: Shift;
  readonly after: Shift;
  /** The guards read for the employees whose published shifts this change adds, moves or removes. */
  readonly guards: readonly PlanGuard[];
  /** References that must still exist and be active (employee not deactivated, location and tasks not archived) when the change commits. */
  readonly requires: { readonly employeeId?: string; readonly locationId?: string; readonly taskIds: readonly string[] };
  readonly audit: AuditEntry;
}

export interface RangeFilter {
  readonly from: string;
  readonly to: string;
  readonly employeeId?: string;
  readonly locationId?: string;
}

export interface PlanningStore {
  getShift(organizationId: string, id: string): Promise<Shift | undefined>;
  /** Employees, locations and tasks of these ids in one read (existence, active or archive state, each task's location). */
  readReferences(organizationId: string, ids: ReferenceIds): Promise<References>;
  readGuard(organizationId: string, employeeId: string): Promise<PlanGuard>;
  /** The employee's PUBLISHED shifts that may overlap the interval (consistent read of the plan). */
  publishedNear(guard: PlanGuard, interval: ShiftInterval): Promise<PlannedShift[]>;
  /** DRAFT shifts starting in [from, to), by start; at most `max`. */
  draftsStartingIn(organizationId: string, filter: RangeFilter, max: number): Promise<Shift[]>;
  saveShift(change: ShiftChange): void;
}

export interface PlanningPorts extends UseCasePorts<PlanningStore> {
  /** Runs `work` in a unit of work of its own, committed on return (a bulk publish commits per shift). */
  readonly separately: <T>(work: (ports: PlanningPorts) => Promise<T>) => Promise<T>;
}

export const shiftEtag = versionedEtag<Shift>('shift');

/** At most this many shifts are published by one bulk publish. */
export const BULK_PUBLISH_MAX = 200;

export interface ShiftInput {
  readonly employeeId?: string | null;
  readonly locationId: string;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly breakMinutes?: number;
  readonly taskIds?: readonly string[];
  readonly notes?: string | null;
}

export type ShiftPatch = Partial<ShiftInput> & OverlapDecision;

async function existingShift(ports: PlanningPorts, org: string, id: string): Promise<Shift> {
  const shift = await ports.store.getShift(org, id);
  if (!shift) throw new NotFoundError(`Shift ${id}`);
  return shift;
}

/** 422 at the field for a reference that is not of this organization, deactivated or archived, or (tasks) of another location. */
async function checkReferences(ports: PlanningPorts, org: string, shift: Pick<Shift, 'employeeId' | 'locationId' | 'taskIds'>, which: { employee: boolean; location: boolean; tasks: boolean }): Promise<void> {
  const refs = await ports.store.readReferences(org, {
    employeeIds: which.employee && shift.employeeId ? [shift.employeeId] : [],
    locationIds: which.location ? [shift.locationId] : [],
    taskIds: which.tasks ? shift.taskIds : [],
  });
  const employee = shift.employeeId ? refs.employees.get(shift.employeeId) : undefined;
  const location = refs.locations.get(shift.locationId);
  const errors: FieldError[] = [];
  if (which.employee && shift.employeeId && !employee) errors.push({ pointer: '/employeeId', detail: `Employee ${shift.employeeId} does not exist in this organization.` });
  else if (which.employee && shift.employeeId && !employee?.active) errors.push({ pointer: '/employeeId', detail: `Employee ${shift.employeeId} is deactivated.` });
  if (which.location && !location) errors.push({ pointer: '/locationId', detail: `Location ${shift.locationId} does not exist in this organization.` });
  else if (which.location && location?.archived) errors.push({ pointer: '/locationId', detail: `Location ${shift.locationId} is archived.` });
  if (which.tasks) {
    shift.taskIds.forEach((id, i) => {
      const task = refs.tasks.get(id);
      if (!task || task.locationId !== shift.locationId) errors.push({ pointer: `/taskIds/${i}`, detail: `Task ${id} is not a task of location ${shift.locationId}.` });
      else if (task.archived) errors.push({ pointer: `/taskIds/${i}`, detail: `Task ${id} is archived.` });
    });
  }
  if (errors.length > 0) throw new ValidationError(errors);
}

const audit = (ports: PlanningPorts, actor: Actor, at: string, action: string, before: Shift | undefined, after: Shift, extra: { reason?: string; overriddenIds?: readonly string[]; overlapReason?: string; changed?: string[] } = {}): AuditEntry =>
  auditEntry({
    id: ports.newId(),
    actor,
    occurredAt: at,
    action,
    entity: { type: 'shift', id: after.id },
    references: { locationId: after.locationId, ...(after.employeeId ? { employeeId: after.employeeId } : {}) },
    reason: extra.reason,
    before: before ? shiftSnapshot(before) : undefined,
    after: shiftSnapshot(after),
    changedAttributes: extra.changed,
    overlap: extra.overriddenIds && extra.overriddenIds.length > 0 ? { override: true, reason: extra.overlapReason ?? '', overlappedEntryIds: [...extra.overriddenIds] } : undefined,
  });

/**
 * Creates a DRAFT shift (drafts never collide: only published shifts must not overlap).
 * 1. Interval: end after start, at most 24 hours, break shorter than the shift (422).
 * 2. Employee (if any), location and tasks in one read: of this organization, active (employee
 *    not deactivated, location and tasks not archived), tasks of the shift's location (422 at
 *    the field).
 * 3. Stage version 1 with the same checks for the transaction and the audit entry (allowlisted snapshot).
 */
export async function createShift(ports: PlanningPorts, actor: Actor, input: ShiftInput): Promise<Shift> {
  const org = actor.principal.organizationId;
  const breakMinutes = input.breakMinutes ?? 0;
  const errors = shiftIntervalErrors(input.startsAt, input.endsAt, breakMinutes);
  if (errors.length > 0) throw new ValidationError(errors);
  const now = ports.now().toISOString();
  const shift: Shift = {
    ...newRecord(ports.newId(), org, now),
    employeeId: input.employeeId ?? null,
    locationId: input.locationId,
    startsAt: input.startsAt,
    endsAt: input.endsAt,
    breakMinutes,
    taskIds: [...(input.taskIds ?? [])],
    notes: input.notes ?? null,
    state: 'DRAFT',
    publishedAt: null,
    cancelledAt: null,
    cancelReason: null,
  };
  await checkReferences(ports, org, shift, { employee: true, location: true, tasks: true });
  ports.store.saveShift({ after: shift, guards: [], requires: { employeeId: shift.employeeId ?? undefined, locationId: shift.locationId, taskIds: shift.taskIds }, audit: audit(ports, actor, now, 'shift.created', undefined, shift) });
  return shift;
}

const ATTRIBUTES = ['employeeId', 'locationId', 'startsAt', 'endsAt', 'breakMinutes', 'taskIds', 'notes'] as const;

/**
 * The overlap check of a shift that will be PUBLISHED after a write: the plan guards of every
 * employee whose published shifts change (the shift's employee before and after), and a 409
 * unless the shift overlaps nothing or the write overrides with a reason.
 */
async function planChange(ports: PlanningPorts, org: string, before: Shift | undefined, after: Shift, decision: OverlapDecision): Promise<{ guards: PlanGuard[]; overriddenIds: readonly string[] }> {
  const employees = new Set<string>();
  if (before?.state === 'PUBLISHED' && before.employeeId) employees.add(before.employeeId);
  if (after.state === 'PUBLISHED' && after.employeeId) employees.add(after.employeeId);
  const guards = await Promise.all([...employees].map((e) => ports.store.readGuard(org, e)));
  // A published shift that keeps its employee and interval (notes, break, tasks, location)
  // stays where the plan had it, overlaps it was published with included: nothing to decide.
  const unmoved = before?.state === 'PUBLISHED' && before.employeeId === after.employeeId && before.startsAt === after.startsAt && before.endsAt === after.endsAt;
  if (after.state !== 'PUBLISHED' || !after.employeeId || unmoved) return { guards, overriddenIds: [] };
  const guard = guards.find((g) => g.employeeId === after.employeeId)!;
  const planned = await ports.store.publishedNear(guard, after);
  return { guards, ...resolveShiftOverlap(overlappingShifts(after, planned), decision) };
}

/**
 * Changes a DRAFT or PUBLISHED shift (partial).
 * 1. Read (404); CANCELLED is final (409); If-Match must be its ETag (412).
 * 2. The new interval (422), and the references that changed (422 at the field: of this
 *    organization and active, as on create).
 * 3. Nothing changed: answer it as it is (same ETag).
 * 4. A PUBLISHED shift stays published: moved to another employee or interval, its
 *    employee's plan is checked for overlaps (409 SHIFT_OVERLAP unless overridden with a
 *    reason); its plan item follows every change. A change that keeps employee and interval
 *    decides no overlap again (one published by override stays so).
 * 5. Stage the next version at the version read, with the guards and the audit entry.
 */
export async function updateShift(ports: PlanningPorts, actor: Actor, id: string, ifMatch: string, patch: ShiftPatch): Promise<Shift> {
  const org = actor.principal.organizationId;
  const current = await existingShift(ports, org, id);
  assertNotCancelled(current);
  assertEtag(ifMatch, shiftEtag(current));
  const candidate: Shift = {
    ...current,
    ...patched(current, patch, ['employeeId', 'locationId', 'startsAt', 'endsAt', 'breakMinutes', 'notes']),
    taskIds: patch.taskIds ? [...patch.taskIds] : current.taskIds,
  };
  const errors = shiftIntervalErrors(candidate.startsAt, candidate.endsAt, candidate.breakMinutes);
  if (errors.length > 0) throw new ValidationError(errors);
  const changed = changedAttributes(current, candidate, ATTRIBUTES);
  if (changed.length === 0) return current;
  const employee = changed.includes('employeeId');
  const location = changed.includes('locationId');
  const tasks = changed.includes('taskIds') || location;
  await checkReferences(ports, org, candidate, { employee, location, tasks });
  const now = ports.now().toISOString();
  const next: Shift = revised(current, now, candidate);
  const { guards, overriddenIds } = await planChange(ports, org, current, next, patch);
  ports.store.saveShift({
    before: current,
    after: next,
    guards,
    requires: { employeeId: employee && next.employeeId ? next.employeeId : undefined, locationId: location ? next.locationId : undefined, taskIds: tasks ? next.taskIds : [] },
    audit: audit(ports, actor, now, 'shift.updated', current, next, { changed: [...changed], overriddenIds, overlapReason: patch.overlapReason }),
  });
  return next;
}

/** The ids a publish checks of these shifts (employees, locations, tasks), each once. */
export const publishReferenceIds = (shifts: readonly Pick<Shift, 'employeeId' | 'locationId' | 'taskIds'>[]): ReferenceIds => ({
  employeeIds: [...new Set(shifts.flatMap((s) => (s.employeeId ? [s.employeeId] : [])))],
  locationIds: [...new Set(shifts.map((s) => s.locationId))],
  taskIds: [...new Set(shifts.flatMap((s) => s.taskIds))],
});

/**
 * 409 for a draft whose location was archived (SHIFT_LOCATION_ARCHIVED), a task of which was
 * archived (SHIFT_TASK_ARCHIVED) or whose employee was deactivated (SHIFT_EMPLOYEE_INACTIVE)
 * after it was drafted: a published plan never puts anyone at an archived location, never
 * points at an archived task, nor plans a deactivated employee. The location comes first, then
 * the tasks: reassigning the shift cures neither.
 */
function assertReferencesActive(shift: Shift, refs: References): void {
  const location = refs.locations.get(shift.locationId);
  if (!location || location.archived) {
    throw new AppError(PROBLEMS.SHIFT_LOCATION_ARCHIVED, `Location ${shift.locationId} of shift ${shift.id} is archived: restore the location, or cancel the shift.`);
  }
  const archived = shift.taskIds.filter((id) => refs.tasks.get(id)?.archived !== false);
  if (archived.length > 0) {
    const tasks = archived.length === 1 ? `Task ${archived[0]}` : `Tasks ${archived.join(', ')}`;
    throw new AppError(PROBLEMS.SHIFT_TASK_ARCHIVED, `${tasks} of shift ${shift.id} ${archived.length === 1 ? 'is' : 'are'} archived: restore ${archived.length === 1 ? 'the task' : 'them'}, remove ${archived.length === 1 ? 'it' : 'them'} from the shift's taskIds with PATCH, or cancel the shift.`);
  }
  if (shift.employeeId && !refs.employees.get(shift.employeeId)?.active) {
    throw new AppError(PROBLEMS.SHIFT_EMPLOYEE_INACTIVE, `Employee ${shift.employeeId} of shift ${shift.id} is deactivated: assign another employee (or none) with PATCH, or cancel the shift.`);
  }
}

/**
 * Publishes a DRAFT shift.
 * 1. Read (404), or take the draft a bulk publish read (`readAhead`); only a DRAFT can be
 *    published (409 SHIFT_PUBLISHED / SHIFT_CANCELLED); If-Match, when given, must be its ETag (412).
 * 2. Its location must not be archived (409 SHIFT_LOCATION_ARCHIVED), nor any of its tasks
 *    (409 SHIFT_TASK_ARCHIVED), nor its employee, if any, deactivated (409
 *    SHIFT_EMPLOYEE_INACTIVE) since it was drafted: one read of them all, or `readAhead`'s.
 * 3. An assigned shift must not overlap another PUBLISHED shift of its employee: the plan is
 *    read consistently with the guard's version (409 SHIFT_OVERLAP unless overridden with a
 *    reason; the override and the overlapped shifts are audited).
 * 4. Stage the PUBLISHED version, the plan item and the guard's next version, with the active
 *    checks of employee, location and tasks: of two publishes that would overlap, exactly one
 *    commits; the other runs again and answers 409. A reference that changed after it was read
 *    fails its check: the publish runs again from its reads and answers 409 then.
 */
export async function publishShift(ports: PlanningPorts, actor: Actor, id: string, ifMatch: string | undefined, decision: OverlapDecision = {}, readAhead?: ReadAhead): Promise<Shift> {
  const org = actor.principal.organizationId;
  const current = readAhead?.shift.id === id ? readAhead.shift : await existingShift(ports, org, id);
  assertMove(current, 'PUBLISHED');
  assertSentEtag(ifMatch, shiftEtag(current));
  const refs = readAhead?.shift === current ? readAhead.references : await ports.store.readReferences(org, publishReferenceIds([current]));
  assertReferencesActive(current, refs);
  const now = ports.now().toISOString();
  const next: Shift = revised(current, now, { state: 'PUBLISHED', publishedAt: now });
  const { guards, overriddenIds } = await planChange(ports, org, current, next, decision);
  ports.store.saveShift({
    before: current,
    after: next,
    guards,
    requires: { employeeId: next.employeeId ?? undefined, locationId: next.locationId, taskIds: next.taskIds },
    audit: audit(ports, actor, now, 'shift.published', current, next, { overriddenIds, overlapReason: decision.overlapReason }),
  });
  return next;
}

/**
 * Cancels a DRAFT or PUBLISHED shift with a reason; it stays readable, final.
 * 1. Read (404); CANCELLED is final (409); If-Match must be its ETag (412).
 * 2. Stage the CANCELLED version; a published one leaves its employee's plan (guard moves on).
 */
export async function cancelShift(ports: PlanningPorts, actor: Actor, id: string, ifMatch: string, reason: string): Promise<Shift> {
  const org = actor.principal.organizationId;
  const current = await existingShift(ports, org, id);
  assertMove(current, 'CANCELLED');
  assertEtag(ifMatch, shiftEtag(current));
  const now = ports.now().toISOString();
  const next: Shift = revised(current, now, { state: 'CANCELLED', cancelledAt: now, cancelReason: reason });
  const { guards } = await planChange(ports, org, current, next, {});
  ports.store.saveShift({ before: current, after: next, guards, requires: { taskIds: [] }, audit: audit(ports, actor, now, 'shift.cancelled', current, next, { reason }) });
  return next;
}

export interface PublishRejection {
  readonly shiftId: string;
  readonly code: string;
  readonly detail: string;
  readonly overlappingShiftIds?: readonly string[];
}

export interface RangePublished {
  readonly publishedShiftIds: readonly string[];
  readonly rejected: readonly PublishRejection[];
}

/**
 * How many employees' drafts a bulk publish runs at once. Shifts of different employees (and
 * open shifts) never collide, so their publishes need no order; 200 shifts one after another
 * (4 calls each) took most of the function's 10 s on a slow day.
 */
export const BULK_PUBLISH_PARALLEL = 8;

/**
 * Publishes the DRAFT shifts starting in [from, to), optionally of one employee or location.
 * 1. Read the drafts by start; more than 200 is 422 (narrow the range).
 * 2. Read the references of all drafts at once (each employee, location and task once).
 * 3. Publish each in a transaction of its own (atomic per shift, as publishShift does, with
 *    the references read in 2 while the shift is still at the version read in 1, checked
 *    again in its transaction): a shift that would overlap, whose location or a task of which
 *    is archived or whose employee is deactivated, or that another request published or
 *    cancelled meanwhile, is reported in `rejected` with its code and the others still
 *    publish. Never overrides.
 *    One employee's drafts go one after another in start order (of two that overlap, the
 *    earlier publishes), up to BULK_PUBLISH_PARALLEL employees at once; both lists keep the
 *    drafts' order. A failure that is not a refusal stops starting more and is thrown.
 * 4. Repeating the call publishes nothing twice: published shifts are no longer drafts.
 */
export async function publishRange(ports: PlanningPorts, actor: Actor, filter: RangeFilter): Promise<RangePublished> {
  const drafts = await ports.store.draftsStartingIn(actor.principal.organizationId, filter, BULK_PUBLISH_MAX + 1);
  if (drafts.length > BULK_PUBLISH_MAX) {
    throw new ValidationError([{ pointer: '/to', detail: `More than ${BULK_PUBLISH_MAX} DRAFT shifts start in [from, to): narrow the range or filter by employee or location.` }]);
  }
  const lanes = new Map<string, Shift[]>();
  for (const draft of drafts) {
    const lane = draft.employeeId ?? `open:${draft.id}`;
    lanes.set(lane, [...(lanes.get(lane) ?? []), draft]);
  }
  const references = await ports.store.readReferences(actor.principal.organizationId, publishReferenceIds(drafts));
  const rejections = new Map<string, PublishRejection>();
  await eachLimited([...lanes.values()], BULK_PUBLISH_PARALLEL, async (lane) => {
    for (const draft of lane) {
      // For the first attempt only: a publish runs again because something it read moved on,
      // the shift or a reference, and then reads both afresh.
      let readAhead: ReadAhead | undefined = { shift: draft, references };
      try {
        await ports.separately((p) => {
          const given = readAhead;
          readAhead = undefined;
          return publishShift(p, actor, draft.id, undefined, {}, given);
        });
      } catch (error) {
        if (!(error instanceof AppError) || error.code === 'TRANSACTION_CONFLICT') throw error;
        const ids = error.extensions.overlappingShiftIds as string[] | undefined;
        rejections.set(draft.id, { shiftId: draft.id, code: error.code, detail: error.message, ...(ids ? { overlappingShiftIds: ids } : {}) });
      }
    }
  });
  return { publishedShiftIds: drafts.filter((d) => !rejections.has(d.id)).map((d) => d.id), rejected: drafts.flatMap((d) => rejections.get(d.id) ?? []) };
}
