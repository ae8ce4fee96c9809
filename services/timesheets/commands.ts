import { auditItem, type AuditEntry } from '../audit/model';
import { employeeExistsCheck, employeeKeys, EMPLOYEE_LABEL } from '../employees/public';
import { locationExistsCheck, locationKeys, LOCATION_LABEL } from '../locations/public';
import { CAPABILITY_LABEL, timesheetCapabilityCheck } from '../organization/public';
import { FENCE_LABEL, fenceFromItem, planStaleness, reportKeys, type ExportFence, type StalePlan } from '../reports/public';
import type { Principal } from '../shared/auth/principal';
import type { SealedValue } from '../shared/crypto/restricted';
import type { Db } from '../shared/ddb/client';
import { IDEMPOTENCY_LABEL } from '../shared/ddb/idempotency';
import { batchGet } from '../shared/ddb/read';
import { commit, jitteredBackoff, TransactionCancelledError, type TxItem } from '../shared/ddb/transaction';
import { EtagMismatchError, FeatureNotEnabledError, NotFoundError, TransactionConflictError, ValidationError } from '../shared/errors';
import {
  applyCorrection,
  applyVoid,
  assertIfMatch,
  assertNotVoided,
  auditSnapshot,
  durationMs,
  intervalErrors,
  overlappingEntries,
  resolveOverlap,
  storedContext,
  type ContextInput,
  type Correction,
  type Interval,
  type OverlapCandidate,
  type OverlapOutcome,
  type TimeEntry,
} from './domain';
import {
  closedEntriesNear,
  entryKeys,
  ENTRY_LABEL,
  getEntry,
  GUARD_LABEL,
  guardFromItem,
  putNewEntry,
  putNextGuard,
  putNextRevision,
  putRestrictedEvidence,
  raiseOrgMaxDuration,
  STATS_LABEL,
  timelineItems,
  type OverlapGuard,
} from './store';

/** Ports of the timesheet commands. */
export interface TimesheetDeps {
  readonly db: Db;
  readonly now: () => Date;
  readonly newId: () => string;
  /** Envelope-encrypts restricted evidence (coordinates). */
  readonly seal: (value: unknown) => Promise<SealedValue>;
}

/** Who asks, and under which request ID (the audit entry's requestId = X-Request-Id). */
export interface Actor {
  readonly principal: Principal;
  readonly requestId: string;
}

export interface WriteOutcome {
  readonly entry: TimeEntry;
  readonly staleExportManifestIds: readonly string[];
}

/** Items the caller commits in the same transaction (the idempotency record). */
export type ExtraItems = (outcome: WriteOutcome) => Promise<readonly TxItem[]>;

export interface CreateCommand {
  readonly employeeId: string;
  readonly context: ContextInput;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly breakMinutes: number;
  readonly reason: string;
  readonly overlapOverride?: boolean;
  readonly overlapReason?: string;
}

export interface CorrectCommand extends Correction {
  readonly reason: string;
  readonly overlapOverride?: boolean;
  readonly overlapReason?: string;
}

const GUARD_ATTEMPTS = 5;

/**
 * Adds a missed interval as one complete MANUAL entry.
 * Input: the create body; output: the CLOSED entry and the manifests it made stale.
 * 1. Check the interval (end after start, break shorter than the elapsed time).
 * 2. Read the organization, employee, location, the employee's overlap guard and the
 *    organization's longest interval in one BatchGetItem.
 * 3. Refuse when the timesheet capability is off (409), or the employee or location is not
 *    of this organization (422).
 * 4. Find overlapping entries: CLOSED ones in a bounded window of the employee's timeline
 *    (a consistent Query, never a GSI), OPEN ones from the guard; 409 unless overridden
 *    with a reason.
 * 5. Commit ONE transaction: entry, its timeline item, restricted evidence (ad-hoc), audit
 *    entry, next guard version, existence and capability checks, the caller's idempotency record.
 * 6. If a concurrent write for the same employee moved the guard, start again from 2.
 */
export async function createTimeEntry(deps: TimesheetDeps, actor: Actor, cmd: CreateCommand, extra: ExtraItems): Promise<WriteOutcome> {
  const org = actor.principal.organizationId;
  const errors = intervalErrors(cmd.startedAt, cmd.endedAt, cmd.breakMinutes);
  if (errors.length > 0) throw new ValidationError(errors);
  const locationId = cmd.context.kind === 'REGISTERED_LOCATION' ? cmd.context.locationId : undefined;

  return withGuardRetries(async () => {
    const snapshot = await readWriteSnapshot(deps.db, org, cmd.employeeId, locationId);
    if (!snapshot.employeeExists) throw new ValidationError([{ pointer: '/employeeId', detail: `Employee ${cmd.employeeId} does not exist in this organization.` }]);
    const interval: Interval = { startedAt: cmd.startedAt, endedAt: cmd.endedAt };
    const overlap = resolveOverlap(await overlapsFor(deps.db, snapshot.guard, interval), { override: cmd.overlapOverride, reason: cmd.overlapReason });

    const now = deps.now().toISOString();
    const entry: TimeEntry = {
      id: deps.newId(),
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
    const stale = await planStaleness(deps.db, snapshot.fence, undefined, entry, { at: now, requestId: actor.requestId });
    const outcome: WriteOutcome = { entry, staleExportManifestIds: stale.staleExportManifestIds };
    const items: TxItem[] = [
      ...revisionItems(snapshot.guard, snapshot.orgMaxDurationMs, undefined, entry, stale),
      ...(await evidenceItems(deps, entry, cmd.context, now)),
      auditItem(auditEntry(deps, actor, now, 'time_entry.created', entry, undefined, cmd.reason, { ...overlap, reason: cmd.overlapReason }, outcome)),
      employeeExistsCheck(org, cmd.employeeId),
      ...(locationId ? [locationExistsCheck(org, locationId)] : []),
      timesheetCapabilityCheck(org),
      ...(await extra(outcome)),
    ];
    await commitWrite(deps.db, items, 'create');
    return outcome;
  });
}

/**
 * Corrects an entry: a new revision with the changed fields (partial), `adjusted: true`.
 * 1. Read the entry (404); a VOIDED entry is final (409); If-Match must be its ETag (412).
 * 2. Apply the correction (SCANNED: start, end and break only; OPEN with an end -> CLOSED).
 * 3. As for a create: capability, location of a new context, overlaps without the entry itself.
 * 4. Commit ONE transaction; the entry's Put holds only if its revision is still the one
 *    the ETag named, so of two corrections with the same ETag exactly one wins.
 */
export async function correctTimeEntry(deps: TimesheetDeps, actor: Actor, entryId: string, ifMatch: string, cmd: CorrectCommand, extra: ExtraItems): Promise<WriteOutcome> {
  const org = actor.principal.organizationId;
  return withGuardRetries(async () => {
    const current = await existingEntry(deps.db, org, entryId);
    assertNotVoided(current);
    assertIfMatch(ifMatch, current);
    const now = deps.now().toISOString();
    const next = applyCorrection(current, cmd, now);
    const locationId = cmd.context?.kind === 'REGISTERED_LOCATION' ? cmd.context.locationId : undefined;

    const snapshot = await readWriteSnapshot(deps.db, org, current.employeeId, locationId);
    const overlap = resolveOverlap(await overlapsFor(deps.db, snapshot.guard, next, current.id), { override: cmd.overlapOverride, reason: cmd.overlapReason });
    const stale = await planStaleness(deps.db, snapshot.fence, current, next, { at: now, requestId: actor.requestId });
    const outcome: WriteOutcome = { entry: next, staleExportManifestIds: stale.staleExportManifestIds };
    const items: TxItem[] = [
      ...revisionItems(snapshot.guard, snapshot.orgMaxDurationMs, current, next, stale),
      ...(cmd.context ? await evidenceItems(deps, next, cmd.context, now) : []),
      auditItem(auditEntry(deps, actor, now, 'time_entry.corrected', next, current, cmd.reason, { ...overlap, reason: cmd.overlapReason }, outcome)),
      ...(locationId ? [locationExistsCheck(org, locationId)] : []),
      timesheetCapabilityCheck(org),
      ...(await extra(outcome)),
    ];
    await commitWrite(deps.db, items, 'change');
    return outcome;
  });
}

/**
 * Voids an entry: a new, final VOIDED revision; the entry, its work events and its audit
 * history stay readable.
 */
export async function voidTimeEntry(deps: TimesheetDeps, actor: Actor, entryId: string, ifMatch: string, reason: string, extra: ExtraItems): Promise<WriteOutcome> {
  const org = actor.principal.organizationId;
  return withGuardRetries(async () => {
    const current = await existingEntry(deps.db, org, entryId);
    assertNotVoided(current);
    assertIfMatch(ifMatch, current);
    const now = deps.now().toISOString();
    const next = applyVoid(current, now);
    const snapshot = await readWriteSnapshot(deps.db, org, current.employeeId);
    const stale = await planStaleness(deps.db, snapshot.fence, current, next, { at: now, requestId: actor.requestId });
    const outcome: WriteOutcome = { entry: next, staleExportManifestIds: stale.staleExportManifestIds };
    const items: TxItem[] = [
      ...revisionItems(snapshot.guard, snapshot.orgMaxDurationMs, current, next, stale),
      auditItem(auditEntry(deps, actor, now, 'time_entry.voided', next, current, reason, undefined, outcome)),
      timesheetCapabilityCheck(org),
      ...(await extra(outcome)),
    ];
    await commitWrite(deps.db, items, 'change');
    return outcome;
  });
}

interface WriteSnapshot {
  readonly employeeExists: boolean;
  readonly guard: OverlapGuard;
  readonly orgMaxDurationMs: number;
  /** Which months have export manifests; its version fences manifests being opened. */
  readonly fence: ExportFence;
}

/**
 * One BatchGetItem: organization (capability, 409 when off), employee, guard, stats, export
 * fence, and the location of a registered context (422 when it is not of this organization).
 */
async function readWriteSnapshot(db: Db, org: string, employeeId: string, locationId?: string): Promise<WriteSnapshot> {
  const [orgItem, employee, guard, stats, fence, location] = await batchGet(db, [
    { PK: `ORG#${org}`, SK: 'ORG' },
    employeeKeys.employee(org, employeeId),
    entryKeys.guard(org, employeeId),
    entryKeys.stats(org),
    reportKeys.fence(org),
    ...(locationId ? [locationKeys.location(org, locationId)] : []),
  ]);
  const entitlements = orgItem?.entitlements as { timesheetCorrections?: boolean } | undefined;
  const gates = orgItem?.rolloutGates as { timesheetCorrections?: boolean } | undefined;
  if (!entitlements?.timesheetCorrections || !gates?.timesheetCorrections) throw new FeatureNotEnabledError('timesheet_corrections');
  if (locationId && !location) {
    throw new ValidationError([{ pointer: '/context/locationId', detail: `Location ${locationId} does not exist in this organization.` }]);
  }
  return {
    employeeExists: employee !== undefined,
    guard: guardFromItem(org, employeeId, guard),
    orgMaxDurationMs: (stats?.maxClosedDurationMs as number | undefined) ?? 0,
    fence: fenceFromItem(org, fence),
  };
}

async function existingEntry(db: Db, org: string, id: string): Promise<TimeEntry> {
  const entry = await getEntry(db, org, id);
  if (!entry) throw new NotFoundError(`Time entry ${id}`);
  return entry;
}

/** The employee's entries an interval overlaps: bounded CLOSED window + OPEN from the guard. */
async function overlapsFor(db: Db, guard: OverlapGuard, interval: Interval, exceptId?: string): Promise<OverlapCandidate[]> {
  const closed = await closedEntriesNear(db, guard, interval.startedAt, interval.endedAt);
  const open: OverlapCandidate[] = Object.entries(guard.openEntries).map(([id, startedAt]) => ({ id, startedAt, endedAt: null, state: 'OPEN' }));
  return overlappingEntries(interval, [...closed, ...open], exceptId);
}

/**
 * The items every new revision of an entry commits, whoever writes it (the API commands, the
 * evidence projection): the entry (new, or conditioned on the revision it was computed from),
 * the stale marks of the exports it alters with the fence check, its timeline item, the
 * guard's next version, and the organization's longest interval when it grows.
 */
export function revisionItems(guard: OverlapGuard, orgMaxDurationMs: number, before: TimeEntry | undefined, after: TimeEntry, stale: StalePlan): TxItem[] {
  return [
    before ? putNextRevision(after, before.revision) : putNewEntry(after),
    ...stale.items,
    ...timelineItems(before, after),
    putNextGuard(guard, nextGuard(guard, before, after)),
    ...statsItems(after.organizationId, orgMaxDurationMs, after),
  ];
}

/** The guard after `before` became `after` (undefined: the entry is new). */
function nextGuard(guard: OverlapGuard, before: TimeEntry | undefined, after: TimeEntry): Pick<OverlapGuard, 'openEntries' | 'maxClosedDurationMs'> {
  const openEntries = { ...guard.openEntries };
  if (before) delete openEntries[before.id];
  if (after.state === 'OPEN') openEntries[after.id] = after.startedAt;
  return { openEntries, maxClosedDurationMs: Math.max(guard.maxClosedDurationMs, durationMs(after)) };
}

/** The organization's longest interval bounds list windows; raised in the same transaction. */
function statsItems(org: string, orgMaxDurationMs: number, entry: TimeEntry): TxItem[] {
  const duration = durationMs(entry);
  return duration > orgMaxDurationMs ? [raiseOrgMaxDuration(org, duration)] : [];
}

async function evidenceItems(deps: TimesheetDeps, entry: TimeEntry, context: ContextInput, now: string): Promise<TxItem[]> {
  if (context.kind !== 'VEHICLE_AD_HOC') return [];
  const sealed = await deps.seal({ latitude: context.latitude, longitude: context.longitude });
  return [putRestrictedEvidence(entry.organizationId, entry.id, entry.revision, sealed, now)];
}

function auditEntry(
  deps: TimesheetDeps,
  actor: Actor,
  now: string,
  action: string,
  after: TimeEntry,
  before: TimeEntry | undefined,
  reason: string,
  overlap: (OverlapOutcome & { readonly reason?: string }) | undefined,
  outcome: WriteOutcome,
): AuditEntry {
  return {
    id: deps.newId(),
    organizationId: after.organizationId,
    occurredAt: now,
    actor: { type: 'API_KEY', keyId: actor.principal.keyId, label: actor.principal.keyLabel },
    action,
    entity: { type: 'time_entry', id: after.id },
    references: { employeeId: after.employeeId },
    reason,
    ...(before ? { before: auditSnapshot(before) } : {}),
    after: auditSnapshot(after),
    ...(overlap?.overridden ? { overlap: { override: true as const, reason: overlap.reason ?? '', overlappedEntryIds: overlap.overlappedEntryIds } } : {}),
    staleExportManifestIds: outcome.staleExportManifestIds,
    requestId: actor.requestId,
  };
}

class GuardMoved extends Error {}

/** Commits the write and explains a cancellation in the contract's terms. */
async function commitWrite(db: Db, items: TxItem[], kind: 'create' | 'change'): Promise<void> {
  try {
    await commit(db, items);
  } catch (error) {
    if (!(error instanceof TransactionCancelledError)) throw error;
    if (error.failed(IDEMPOTENCY_LABEL)) throw error;
    if (error.failed(CAPABILITY_LABEL)) throw new FeatureNotEnabledError('timesheet_corrections');
    if (error.failed(ENTRY_LABEL) && kind === 'change') throw new EtagMismatchError();
    if (error.failed(EMPLOYEE_LABEL)) throw new ValidationError([{ pointer: '/employeeId', detail: 'The employee does not exist in this organization.' }]);
    if (error.failed(LOCATION_LABEL)) throw new ValidationError([{ pointer: '/context/locationId', detail: 'The location does not exist in this organization.' }]);
    // A concurrent write moved the guard, or an export opened a manifest: check everything again.
    if (error.failed(GUARD_LABEL) || error.failed(STATS_LABEL) || error.failed(FENCE_LABEL)) throw new GuardMoved();
    throw error;
  }
}

/** A concurrent write for the same employee won the guard: check everything again. */
async function withGuardRetries<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof GuardMoved)) throw error;
      if (i >= GUARD_ATTEMPTS) throw new TransactionConflictError();
      // Jittered backoff: writers racing for one employee's guard spread out instead of colliding again.
      await sleep(jitteredBackoff(i));
    }
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
