import { assertEtag } from '../shared/domain/etag';
import { AppError, ValidationError, type FieldError } from '../shared/errors';
import type { EntryContext, TimeEntry } from './model';
import { PROBLEMS } from './problems';

/**
 * The rules of time entries, the effective work intervals that timesheets, payroll and
 * reports use. Pure functions only: no ports, no HTTP, no DynamoDB (the use cases are in
 * domain.ts). Intervals are half-open [startedAt, endedAt); an OPEN
 * entry reaches to +infinity; VOIDED entries never overlap (decisions.md, Time entries).
 */
export type { EntryContext, EntryState, Origin, SourceEvidence, TimeEntry } from './model';
export { durationMs } from './model';

/** What a client sends for a context: ad-hoc coordinates go to restricted evidence only. */
export type ContextInput =
  | { readonly kind: 'REGISTERED_LOCATION'; readonly locationId: string }
  | { readonly kind: 'VEHICLE_AD_HOC'; readonly addressLabel: string; readonly latitude: number; readonly longitude: number };

export interface Interval {
  readonly startedAt: string;
  readonly endedAt: string | null;
}

export const etagOf = (e: Pick<TimeEntry, 'id' | 'revision'>): string => `"time-entry:${e.id}:r${e.revision}"`;

/**
 * If-Match holds the current ETag (a list may name several; weak `W/` forms never match
 * because the contract's ETags are strong). Throws ETAG_MISMATCH otherwise.
 */
export const assertIfMatch = (ifMatch: string, entry: TimeEntry): void => assertEtag(ifMatch, etagOf(entry));

/** floor((endedAt - startedAt) / 60 s) - breakMinutes; null while OPEN. */
export function workedMinutes(e: Pick<TimeEntry, 'startedAt' | 'endedAt' | 'breakMinutes'>): number | null {
  if (e.endedAt === null) return null;
  return Math.floor((Date.parse(e.endedAt) - Date.parse(e.startedAt)) / 60_000) - e.breakMinutes;
}

/** Half-open overlap; an open end is +infinity. */
export function overlaps(a: Interval, b: Interval): boolean {
  const aStart = Date.parse(a.startedAt);
  const bStart = Date.parse(b.startedAt);
  const aEnd = a.endedAt === null ? Infinity : Date.parse(a.endedAt);
  const bEnd = b.endedAt === null ? Infinity : Date.parse(b.endedAt);
  return aStart < bEnd && bStart < aEnd;
}

/** The entries among `candidates` that the interval overlaps; VOIDED and `exceptId` ignored. */
export type OverlapCandidate = Pick<TimeEntry, 'id' | 'state' | 'startedAt' | 'endedAt'>;

export function overlappingEntries(interval: Interval, candidates: readonly OverlapCandidate[], exceptId?: string): OverlapCandidate[] {
  return candidates.filter((c) => c.id !== exceptId && c.state !== 'VOIDED' && overlaps(interval, c));
}

/**
 * Checks an interval and its break: end after start, break at least 0 and strictly shorter
 * than the elapsed time; an open interval (`endedAt` null) has elapsed until `now`, when given.
 * Pointers name the body fields the values came from.
 */
export function intervalErrors(startedAt: string, endedAt: string | null, breakMinutes: number, now?: string): FieldError[] {
  const errors: FieldError[] = [];
  if (endedAt === null && now !== undefined && breakMinutes > 0 && breakMinutes * 60_000 >= Date.parse(now) - Date.parse(startedAt)) {
    // An OPEN interval has elapsed until now: a longer break would make its scan check-out an invalid interval.
    const elapsed = Math.max(0, Math.floor((Date.parse(now) - Date.parse(startedAt)) / 60_000));
    errors.push({ pointer: '/breakMinutes', detail: `breakMinutes (${breakMinutes}) must be shorter than the time the open entry has run so far (${elapsed} minutes).` });
  }
  if (endedAt !== null && Date.parse(endedAt) <= Date.parse(startedAt)) {
    errors.push({ pointer: '/endedAt', detail: `endedAt (${endedAt}) must be after startedAt (${startedAt}).` });
  } else if (endedAt !== null) {
    const elapsedMs = Date.parse(endedAt) - Date.parse(startedAt);
    if (breakMinutes * 60_000 >= elapsedMs) {
      errors.push({
        pointer: '/breakMinutes',
        detail: `breakMinutes (${breakMinutes}) must be shorter than the elapsed time of the interval (${Math.floor(elapsedMs / 60_000)} minutes).`,
      });
    }
  }
  return errors;
}

export interface OverlapDecision {
  readonly override?: boolean;
  readonly reason?: string;
}

export interface OverlapOutcome {
  readonly overlappedEntryIds: string[];
  readonly overridden: boolean;
}

/**
 * An overlap is a 409 naming the overlapped entries unless the request overrides it with a
 * reason; then it proceeds and the audit records the override.
 */
export function resolveOverlap(overlapping: readonly OverlapCandidate[], decision: OverlapDecision): OverlapOutcome {
  const overlappedEntryIds = overlapping.map((e) => e.id).sort();
  if (overlappedEntryIds.length === 0) return { overlappedEntryIds, overridden: false };
  if (decision.override === true) return { overlappedEntryIds, overridden: true };
  throw new AppError(
    PROBLEMS.TIME_ENTRY_OVERLAP,
    `The interval overlaps ${overlappedEntryIds.length === 1 ? 'another entry' : `${overlappedEntryIds.length} other entries`} of this employee; to proceed deliberately, repeat with overlapOverride: true and an overlapReason.`,
    { extensions: { overlappingEntryIds: overlappedEntryIds } },
  );
}

export function assertNotVoided(entry: TimeEntry): void {
  if (entry.state === 'VOIDED') {
    throw new AppError(PROBLEMS.TIME_ENTRY_VOIDED, `Time entry ${entry.id} is voided; a voided entry is final. Create a new manual entry instead.`);
  }
}

export interface Correction {
  readonly startedAt?: string;
  readonly endedAt?: string;
  readonly breakMinutes?: number;
  readonly context?: ContextInput;
}

/**
 * The next revision of an entry under a correction: partial fields replace the current
 * ones; a SCANNED entry accepts only start, end and break; an OPEN entry corrected with an
 * end becomes CLOSED; the revision increases and `adjusted` becomes true.
 */
export function applyCorrection(entry: TimeEntry, correction: Correction, now: string): TimeEntry {
  if (entry.origin === 'SCANNED' && correction.context !== undefined) {
    throw new ValidationError([
      { pointer: '/context', detail: 'The context of a SCANNED entry is immutable; void the entry and create a manual replacement.' },
    ]);
  }
  const startedAt = correction.startedAt ?? entry.startedAt;
  const endedAt = correction.endedAt ?? entry.endedAt;
  const breakMinutes = correction.breakMinutes ?? entry.breakMinutes;
  const errors = intervalErrors(startedAt, endedAt, breakMinutes, now);
  if (errors.length > 0) throw new ValidationError(errors);
  return {
    ...entry,
    startedAt,
    endedAt,
    breakMinutes,
    context: correction.context ? storedContext(correction.context) : entry.context,
    state: entry.state === 'OPEN' && endedAt !== null ? 'CLOSED' : entry.state,
    adjusted: true,
    revision: entry.revision + 1,
    updatedAt: now,
  };
}

export function applyVoid(entry: TimeEntry, now: string): TimeEntry {
  assertNotVoided(entry);
  return { ...entry, state: 'VOIDED', revision: entry.revision + 1, updatedAt: now };
}

/** The context as stored and returned: ad-hoc coordinates are never part of it. */
export function storedContext(input: ContextInput): EntryContext {
  return input.kind === 'REGISTERED_LOCATION'
    ? { kind: 'REGISTERED_LOCATION', locationId: input.locationId }
    : { kind: 'VEHICLE_AD_HOC', addressLabel: input.addressLabel };
}

/** Only these fields of an entry ever enter the audit trail (decisions.md, Audit content). */
export function auditSnapshot(e: TimeEntry) {
  return {
    startedAt: e.startedAt,
    endedAt: e.endedAt,
    breakMinutes: e.breakMinutes,
    state: e.state,
    revision: e.revision,
    contextKind: e.context.kind,
    locationId: e.context.kind === 'REGISTERED_LOCATION' ? e.context.locationId : null,
  };
}

/**
 * The names of the entry's fields a revision changed, never their values (decisions.md):
 * `startedAt`, `endedAt`, `breakMinutes`, `state`, `context`. A restricted context counts as
 * changed when its stored form changed or when the request sent an ad-hoc context: its
 * coordinates are sealed anew and cannot be compared, and neither they nor the address are named.
 */
export function changedAttributes(before: TimeEntry | undefined, after: TimeEntry, sentContext?: ContextInput): string[] {
  if (!before) return [];
  const changed: string[] = [];
  if (before.startedAt !== after.startedAt) changed.push('startedAt');
  if (before.endedAt !== after.endedAt) changed.push('endedAt');
  if (before.breakMinutes !== after.breakMinutes) changed.push('breakMinutes');
  if (before.state !== after.state) changed.push('state');
  if (!sameContext(before.context, after.context) || sentContext?.kind === 'VEHICLE_AD_HOC') changed.push('context');
  return changed;
}

function sameContext(a: EntryContext, b: EntryContext): boolean {
  if (a.kind === 'REGISTERED_LOCATION') return b.kind === 'REGISTERED_LOCATION' && a.locationId === b.locationId;
  return b.kind === 'VEHICLE_AD_HOC' && a.addressLabel === b.addressLabel;
}
