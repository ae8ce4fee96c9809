import { auditEntry, type AuditEntry } from '../audit/model';
import type { SealedValue } from '../shared/crypto/restricted';
import type { TxItem } from '../shared/ddb/transaction';
import type { Actor } from '../shared/domain/actor';
import { FeatureNotEnabledError, NotFoundError, ValidationError } from '../shared/errors';
import { applyCorrection, applyVoid, assertIfMatch, assertNotVoided, auditSnapshot, changedAttributes, intervalErrors, overlappingEntries, resolveOverlap, storedContext, type ContextInput, type Correction, type Interval, type OverlapCandidate, type OverlapOutcome } from './domain-rules';
import { isLongEntry, longEntriesOf, type OverlapGuard, type TimeEntry } from './model';

export * from './domain-rules';
export type { OverlapGuard } from './model';

/**
 * The use cases of time entries (create, correct, void) on the TimesheetStore port; the pure
 * rules they apply are in domain-rules.ts, the DynamoDB adapter is store.ts. A use case reads,
 * decides and stages one revision with its audit entry; the caller (the area handler, or
 * inUnitOfWork) commits it with the idempotency record, and runs the use case again from its
 * reads when something it read moved on meanwhile (a guard, the stats item, the export fence,
 * the entry's revision).
 */

/** The exports' fence as read with a revision: the months that have manifests, at a version. */
export interface ExportFence {
  readonly organizationId: string;
  readonly version: number;
  readonly months: readonly string[];
}

/** The export manifests a revision alters: their ids (response, audit) and what marks them stale. */
export interface StalePlan {
  readonly staleExportManifestIds: readonly string[];
  /** The fence check and a stale mark per affected manifest, committed with the revision. */
  readonly items: readonly TxItem[];
}

/** What a new revision of an employee's entries is decided on, read together. */
export interface RevisionContext {
  /** The organization's timesheet capability (entitlement and rollout gate) is on. */
  readonly writesEnabled: boolean;
  readonly employeeExists: boolean;
  /** True when no location was asked for. */
  readonly locationExists: boolean;
  /**
   * The employee's overlap guard, as read. Undefined for a void, which cannot make an overlap
   * and so neither reads nor conditions on it (an OPEN entry's removal from the guard is an
   * update without a read).
   */
  readonly guard?: OverlapGuard;
  /** The organization's longest closed interval (raised in the same transaction when it grows). */
  readonly orgMaxDurationMs: number;
  /**
   * The versions of the employee's day items read with the guard (a create; 0: no item yet).
   * A BatchGetItem is not one snapshot: the guard may be read after a concurrent write and a
   * day item before it, so the write also holds only if each day item read is still as read.
   */
  readonly dayVersions?: Readonly<Record<string, number>>;
  /** Which months have export manifests; its version fences manifests being opened. */
  readonly fence: ExportFence;
}

/** An existing entry with the context of its next revision, read in one BatchGetItem (no guard). */
export interface EntryRevisionContext extends RevisionContext {
  readonly entry?: TimeEntry;
}

/** What a write requires to still hold when it commits (each is a condition of the transaction). */
export interface RevisionRequirements {
  /** The organization's timesheet capability is on (409 FEATURE_NOT_ENABLED). */
  readonly capability: boolean;
  /** The employee exists in the organization (422 at /employeeId). */
  readonly employee: boolean;
  /** This location exists in the organization (422 at /context/locationId). */
  readonly locationId?: string;
}

/** One revision of an entry: new (no `before`) or the next one of the revision read. */
export interface RevisionChange {
  readonly context: RevisionContext;
  readonly before?: TimeEntry;
  readonly after: TimeEntry;
  /** The export manifests the revision makes stale, with the fence check. */
  readonly stale: StalePlan;
  /** Sealed coordinates of an ad-hoc context given with this revision. */
  readonly evidence?: SealedValue;
  readonly requires: RevisionRequirements;
  readonly audit: AuditEntry;
}

/**
 * The timesheets store port: reads, and `saveRevision` that stages a revision in the unit of
 * work (committed once the use case returns). The DynamoDB adapter is store.ts.
 */
export interface TimesheetStore {
  getEntry(organizationId: string, id: string): Promise<TimeEntry | undefined>;
  /**
   * Capability, employee, location, guard, longest interval and export fence, read together;
   * given an interval on at most MAX_INDEXED_DAYS UTC days, also the CLOSED entries on the
   * employee's day items of those days (`closedNear`).
   */
  readRevisionContext(organizationId: string, employeeId: string, locationId?: string, interval?: Interval): Promise<RevisionContext & { readonly guard: OverlapGuard; readonly closedNear?: OverlapCandidate[] }>;
  /** The employee's overlap guard alone (consistent). */
  readGuard(organizationId: string, employeeId: string): Promise<OverlapGuard>;
  /** The entry, capability, location, longest interval and export fence, read together (no guard: its employee is not known yet). */
  readEntryContext(organizationId: string, entryId: string, locationId?: string): Promise<EntryRevisionContext>;
  /** The employee's overlap guard and, read after it, closedEntriesNear (consistent): a change of an existing entry. */
  guardAndClosedEntriesNear(organizationId: string, employeeId: string, interval: Interval, maxDurationMs: number): Promise<{ readonly guard: OverlapGuard; readonly closed: OverlapCandidate[] }>;
  /** CLOSED entries of the employee that may overlap the interval: those starting in [start - maxDurationMs, end) (consistent). */
  closedEntriesNear(organizationId: string, employeeId: string, interval: Interval, maxDurationMs: number): Promise<OverlapCandidate[]>;
  staleExports(context: RevisionContext, before: TimeEntry | undefined, after: TimeEntry, change: { readonly at: string; readonly requestId: string }): Promise<StalePlan>;
  saveRevision(change: RevisionChange): void;
}

export interface TimesheetPorts {
  readonly store: TimesheetStore;
  readonly now: () => Date;
  readonly newId: () => string;
  /** Envelope-encrypts restricted evidence (coordinates). */
  readonly seal: (value: unknown) => Promise<SealedValue>;
}

export interface WriteOutcome {
  readonly entry: TimeEntry;
  readonly staleExportManifestIds: readonly string[];
}

interface OverlapInput {
  readonly overlapOverride?: boolean;
  readonly overlapReason?: string;
}

export interface CreateCommand extends OverlapInput {
  readonly employeeId: string;
  readonly context: ContextInput;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly breakMinutes: number;
  readonly reason: string;
}

export interface CorrectCommand extends Correction, OverlapInput {
  readonly reason: string;
}

/**
 * Adds a missed interval as one complete MANUAL entry.
 * Input: the create body; output: the CLOSED entry and the manifests it made stale.
 * 1. Check the interval (end after start, break shorter than the elapsed time).
 * 2. Read the capability, employee, location, guard, longest interval, export fence and the
 *    employee's day items of the interval's UTC days together (one BatchGetItem; with it the
 *    request's idempotency record).
 * 3. Refuse when the timesheet capability is off (409), or the location or employee is not
 *    of this organization (422).
 * 4. Find overlapping entries: CLOSED ones from those day items and the guard's long entries
 *    (or, for a guard from before day items or an interval on more days, a bounded window of
 *    the employee's timeline), OPEN ones from the guard; 409 unless overridden with a reason.
 * 5. Stage the revision: entry, timeline item, restricted evidence (ad-hoc), next guard,
 *    stale marks, audit entry, and the capability, employee and location checks.
 */
export async function createTimeEntry(ports: TimesheetPorts, actor: Actor, cmd: CreateCommand): Promise<WriteOutcome> {
  const org = actor.principal.organizationId;
  const errors = intervalErrors(cmd.startedAt, cmd.endedAt, cmd.breakMinutes);
  if (errors.length > 0) throw new ValidationError(errors);
  const locationId = cmd.context.kind === 'REGISTERED_LOCATION' ? cmd.context.locationId : undefined;

  const context = checkedContext(await ports.store.readRevisionContext(org, cmd.employeeId, locationId, cmd), locationId);
  if (!context.employeeExists) throw new ValidationError([{ pointer: '/employeeId', detail: `Employee ${cmd.employeeId} does not exist in this organization.` }]);
  const { guard } = context;
  const closed = guard.dayIndex && context.closedNear ? [...context.closedNear, ...longEntriesOf(guard)] : await ports.store.closedEntriesNear(org, cmd.employeeId, cmd, guard.maxClosedDurationMs);
  const overlap = resolveOverlaps(guard, closed, cmd, cmd);

  const now = ports.now().toISOString();
  const entry: TimeEntry = {
    id: ports.newId(),
    organizationId: org,
    employeeId: cmd.employeeId,
    context: storedContext(cmd.context),
    startedAt: cmd.startedAt,
    endedAt: cmd.endedAt,
    breakMinutes: cmd.breakMinutes,
    origin: 'MANUAL',
    state: 'CLOSED',
    adjusted: false,
    revision: 1,
    createdAt: now,
    updatedAt: now,
  };
  return stageRevision(ports, actor, { action: 'time_entry.created', context, after: entry, reason: cmd.reason, overlap: { ...overlap, reason: cmd.overlapReason }, contextInput: cmd.context, requires: { capability: true, employee: true, locationId } });
}

/**
 * Corrects an entry: a new revision with the changed fields (partial), `adjusted: true`.
 * 1. Read the entry (404); a VOIDED entry is final (409); If-Match must be its ETag (412).
 * 2. Apply the correction (SCANNED: start, end and break only; OPEN with an end -> CLOSED).
 * 3. As for a create: capability, location of a new context, overlaps without the entry
 *    itself (also when the interval stays: the contract wants no unresolved overlap after a
 *    PATCH, and a projected scan may have made one). The guard and then the overlap window
 *    are read by one Query: the organization's longest interval bounds the window.
 * 4. Stage the revision; it holds only if the entry is still at the revision read, so of two
 *    corrections with one ETag exactly one commits, the other runs again and answers 412.
 */
export async function correctTimeEntry(ports: TimesheetPorts, actor: Actor, entryId: string, ifMatch: string, cmd: CorrectCommand): Promise<WriteOutcome> {
  const org = actor.principal.organizationId;
  const locationId = cmd.context?.kind === 'REGISTERED_LOCATION' ? cmd.context.locationId : undefined;
  const read = await ports.store.readEntryContext(org, entryId, locationId);
  const current = existingEntry(read.entry, entryId);
  assertNotVoided(current);
  assertIfMatch(ifMatch, current);
  const now = ports.now().toISOString();
  const next = applyCorrection(current, cmd, now);
  let context = checkedContext(read, locationId);

  // The organization's longest interval bounds the window as well as the employee's (it is
  // never shorter), so guard and window come from one read, the guard first.
  const { guard, closed } = await ports.store.guardAndClosedEntriesNear(org, current.employeeId, next, context.orgMaxDurationMs);
  const candidates = guard.maxClosedDurationMs > context.orgMaxDurationMs ? await ports.store.closedEntriesNear(org, current.employeeId, next, guard.maxClosedDurationMs) : closed;
  context = { ...context, guard };
  const overlap = resolveOverlaps(guard, candidates, next, cmd, current.id);
  return stageRevision(ports, actor, { action: 'time_entry.corrected', context, before: current, after: next, reason: cmd.reason, overlap: { ...overlap, reason: cmd.overlapReason }, contextInput: cmd.context, requires: { capability: true, employee: false, locationId } });
}

/**
 * Voids an entry: a new, final VOIDED revision; the entry, its work events and its audit
 * history stay readable.
 * 1. Read the entry (404); a VOIDED entry is final (409); If-Match must be its ETag (412).
 * 2. Capability (409).  3. Stage the VOIDED revision at the revision read. The entry, the
 *    capability and the export fence are one BatchGetItem; a void never overlaps, so the
 *    guard is not read (an OPEN entry leaves it by an update that needs no read, a CLOSED one
 *    its day items). Only an entry on more UTC days than day items take is listed in the
 *    guard itself: that void reads the guard to take it out.
 */
export async function voidTimeEntry(ports: TimesheetPorts, actor: Actor, entryId: string, ifMatch: string, reason: string): Promise<WriteOutcome> {
  const org = actor.principal.organizationId;
  const read = await ports.store.readEntryContext(org, entryId);
  const current = existingEntry(read.entry, entryId);
  assertNotVoided(current);
  assertIfMatch(ifMatch, current);
  const next = applyVoid(current, ports.now().toISOString());
  const checked = checkedContext(read);
  const context = isLongEntry(current) ? { ...checked, guard: await ports.store.readGuard(org, current.employeeId) } : checked;
  return stageRevision(ports, actor, { action: 'time_entry.voided', context, before: current, after: next, reason, requires: { capability: true, employee: false } });
}

function existingEntry(entry: TimeEntry | undefined, id: string): TimeEntry {
  if (!entry) throw new NotFoundError(`Time entry ${id}`);
  return entry;
}

/** The capability (409 when off); a location asked for must exist (422). */
function checkedContext<C extends RevisionContext>(context: C, locationId?: string): C {
  if (!context.writesEnabled) throw new FeatureNotEnabledError('timesheet_corrections');
  if (locationId && !context.locationExists) {
    throw new ValidationError([{ pointer: '/context/locationId', detail: `Location ${locationId} does not exist in this organization.` }]);
  }
  return context;
}

/** The employee's entries an interval overlaps (CLOSED ones read near it + OPEN ones from the guard): 409 unless overridden. */
function resolveOverlaps(guard: OverlapGuard, closed: readonly OverlapCandidate[], interval: Interval, input: OverlapInput, exceptId?: string): OverlapOutcome {
  const open = Object.entries(guard.openEntries).map(([id, startedAt]): OverlapCandidate => ({ id, startedAt, endedAt: null, state: 'OPEN' }));
  return resolveOverlap(overlappingEntries(interval, [...closed, ...open], exceptId), { override: input.overlapOverride, reason: input.overlapReason });
}

interface RevisionDecision {
  readonly action: string;
  readonly context: RevisionContext;
  readonly before?: TimeEntry;
  readonly after: TimeEntry;
  readonly reason: string;
  /** The overlaps found, and the reason of an override. */
  readonly overlap?: OverlapOutcome & { readonly reason?: string };
  /** The context as sent: an ad-hoc one's coordinates become restricted evidence. */
  readonly contextInput?: ContextInput;
  readonly requires: RevisionRequirements;
}

/**
 * Plans the stale exports, seals ad-hoc coordinates, and stages the revision with its audit
 * entry (the entry's safe snapshot before and after, an override, the stale manifests).
 */
async function stageRevision(ports: TimesheetPorts, actor: Actor, d: RevisionDecision): Promise<WriteOutcome> {
  const { before, after, overlap } = d;
  const stale = await ports.store.staleExports(d.context, before, after, { at: after.updatedAt, requestId: actor.requestId });
  const evidence = d.contextInput?.kind === 'VEHICLE_AD_HOC' ? await ports.seal({ latitude: d.contextInput.latitude, longitude: d.contextInput.longitude }) : undefined;
  const audit = auditEntry({
    id: ports.newId(),
    actor,
    occurredAt: after.updatedAt,
    action: d.action,
    entity: { type: 'time_entry', id: after.id },
    references: { employeeId: after.employeeId },
    reason: d.reason,
    before: before ? auditSnapshot(before) : undefined,
    after: auditSnapshot(after),
    changedAttributes: changedAttributes(before, after, d.contextInput),
    overlap: overlap?.overridden ? { override: true, reason: overlap.reason ?? '', overlappedEntryIds: overlap.overlappedEntryIds } : undefined,
    staleExportManifestIds: stale.staleExportManifestIds,
  });
  ports.store.saveRevision({ context: d.context, before, after, stale, evidence, requires: d.requires, audit });
  return { entry: after, staleExportManifestIds: stale.staleExportManifestIds };
}
