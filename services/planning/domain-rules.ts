import { AppError, type FieldError } from '../shared/errors';
import { MAX_SHIFT_MS, type PlannedShift, type Shift, type ShiftState } from './model';
import { PROBLEMS } from './problems';

/**
 * The pure rules of shifts: states, intervals, overlap and planned vs actual. No ports, no
 * HTTP, no DynamoDB (use cases: domain.ts). Intervals are half-open [startsAt, endsAt).
 */

export interface ShiftInterval {
  readonly startsAt: string;
  readonly endsAt: string;
}

/** End after start, at most 24 hours, a break of at least 0 and shorter than the shift. Pointers name body fields. */
export function shiftIntervalErrors(startsAt: string, endsAt: string, breakMinutes: number): FieldError[] {
  const ms = Date.parse(endsAt) - Date.parse(startsAt);
  if (ms <= 0) return [{ pointer: '/endsAt', detail: `endsAt (${endsAt}) must be after startsAt (${startsAt}).` }];
  if (ms > MAX_SHIFT_MS) return [{ pointer: '/endsAt', detail: 'A shift lasts at most 24 hours: split longer work into several shifts.' }];
  if (breakMinutes * 60_000 >= ms) return [{ pointer: '/breakMinutes', detail: `breakMinutes (${breakMinutes}) must be shorter than the shift (${Math.floor(ms / 60_000)} minutes).` }];
  return [];
}

/** The moves of the state machine: DRAFT -> PUBLISHED -> CANCELLED, and DRAFT -> CANCELLED. */
const MOVES: Readonly<Record<ShiftState, readonly ShiftState[]>> = { DRAFT: ['PUBLISHED', 'CANCELLED'], PUBLISHED: ['CANCELLED'], CANCELLED: [] };

export const canMove = (from: ShiftState, to: ShiftState): boolean => MOVES[from].includes(to);

/** 409 SHIFT_<STATE> for a move the state machine does not allow. */
export function assertMove(shift: Pick<Shift, 'id' | 'state'>, to: ShiftState): void {
  if (canMove(shift.state, to)) return;
  if (shift.state === 'CANCELLED') throw cancelled(shift.id);
  throw new AppError(PROBLEMS.SHIFT_PUBLISHED, `Shift ${shift.id} is already PUBLISHED.`);
}

/** A cancelled shift is final: no change, publish or cancel. */
export function assertNotCancelled(shift: Pick<Shift, 'id' | 'state'>): void {
  if (shift.state === 'CANCELLED') throw cancelled(shift.id);
}

const cancelled = (id: string) => new AppError(PROBLEMS.SHIFT_CANCELLED, `Shift ${id} is CANCELLED; a cancelled shift is final. Create a new shift instead.`);

export const overlaps = (a: ShiftInterval, b: ShiftInterval): boolean => a.startsAt < b.endsAt && b.startsAt < a.endsAt;

/** The published shifts among `planned` that `shift` overlaps (itself excluded), by id. */
export const overlappingShifts = (shift: ShiftInterval & { readonly id: string }, planned: readonly PlannedShift[]): string[] =>
  planned.filter((p) => p.id !== shift.id && overlaps(shift, p)).map((p) => p.id).sort();

export interface OverlapDecision {
  readonly overlapOverride?: boolean;
  readonly overlapReason?: string;
}

/** 409 SHIFT_OVERLAP naming the overlapped shifts, unless overridden with a reason. Returns the ids overridden. */
export function resolveShiftOverlap(overlapping: readonly string[], decision: OverlapDecision): { readonly overriddenIds: readonly string[] } {
  if (overlapping.length === 0) return { overriddenIds: [] };
  if (decision.overlapOverride === true && decision.overlapReason) return { overriddenIds: overlapping };
  throw new AppError(
    PROBLEMS.SHIFT_OVERLAP,
    `The shift overlaps ${overlapping.length === 1 ? 'another published shift' : `${overlapping.length} other published shifts`} of this employee; to plan it so deliberately, repeat with overlapOverride: true and an overlapReason.`,
    { extensions: { overlappingShiftIds: [...overlapping] } },
  );
}

/** floor((endsAt - startsAt) / 60 s) - breakMinutes. */
export const plannedMinutes = (s: Pick<Shift, 'startsAt' | 'endsAt' | 'breakMinutes'>): number => Math.floor((Date.parse(s.endsAt) - Date.parse(s.startsAt)) / 60_000) - s.breakMinutes;

/** What planned vs actual reads of a time entry (timesheets' effective interval). */
export interface WorkedInterval {
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly breakMinutes: number;
  readonly state: string;
}

export interface PlanVsActual {
  readonly plannedMinutes: number;
  /** Worked minutes of the employee's CLOSED entries that overlap the shift; null for an open shift. */
  readonly actualMinutes: number | null;
  /** actual - planned; null when actual is. */
  readonly varianceMinutes: number | null;
  /** An OPEN entry overlaps the shift: actual is still growing. */
  readonly actualIncomplete: boolean;
}

/**
 * Planned vs actual of one shift: every non-VOIDED entry of the shift's employee whose
 * interval overlaps the shift counts with its whole worked minutes (docs/decisions.md); an
 * OPEN entry counts nothing yet and marks actual incomplete.
 */
export function planVsActual(shift: Pick<Shift, 'startsAt' | 'endsAt' | 'breakMinutes' | 'employeeId'>, entries: readonly WorkedInterval[]): PlanVsActual {
  const planned = plannedMinutes(shift);
  if (shift.employeeId === null) return { plannedMinutes: planned, actualMinutes: null, varianceMinutes: null, actualIncomplete: false };
  const touching = entries.filter((e) => e.state !== 'VOIDED' && e.startedAt < shift.endsAt && (e.endedAt === null || e.endedAt > shift.startsAt));
  const actual = touching.filter((e) => e.endedAt !== null).reduce((sum, e) => sum + Math.floor((Date.parse(e.endedAt!) - Date.parse(e.startedAt)) / 60_000) - e.breakMinutes, 0);
  return { plannedMinutes: planned, actualMinutes: actual, varianceMinutes: actual - planned, actualIncomplete: touching.some((e) => e.endedAt === null) };
}

/** Only these fields of a shift enter the audit trail: never notes or reasons' text beyond the audit's own reason. */
export const shiftSnapshot = (s: Shift) => ({
  state: s.state,
  employeeId: s.employeeId,
  locationId: s.locationId,
  startsAt: s.startsAt,
  endsAt: s.endsAt,
  breakMinutes: s.breakMinutes,
  taskCount: s.taskIds.length,
  version: s.version,
});
