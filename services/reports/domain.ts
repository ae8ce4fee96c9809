import { createHash } from 'node:crypto';
import type { FieldError } from '../shared/errors';
import { workedMinutes, type TimeEntry } from '../timesheets/public';

/**
 * Exports and their manifests: what an export contains, when a change makes it stale, and
 * the file formats. Pure rules: no HTTP, no DynamoDB.
 */
export const REPORT_KINDS = ['TIMESHEET_CSV', 'TIMESHEET_PDF', 'MONTHLY_REPORT', 'PAYROLL_DISPATCH'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/** [from, to), UTC. */
export interface Period {
  readonly from: string;
  readonly to: string;
}

/** Empty lists mean "every employee" / "every location". */
export interface ReportScope {
  readonly employeeIds: readonly string[];
  readonly locationIds: readonly string[];
}

export const MAX_PERIOD_DAYS: Readonly<Record<ReportKind, number>> = {
  TIMESHEET_CSV: 366,
  TIMESHEET_PDF: 366,
  MONTHLY_REPORT: 31,
  PAYROLL_DISPATCH: 31,
};

export const FILE_FORMAT: Readonly<Record<ReportKind, { readonly contentType: string; readonly extension: string }>> = {
  TIMESHEET_CSV: { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  TIMESHEET_PDF: { contentType: 'application/pdf', extension: 'pdf' },
  MONTHLY_REPORT: { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  PAYROLL_DISPATCH: { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
};

/** The period's problems: end not after start, or longer than the kind allows. */
export function periodErrors(kind: ReportKind, period: Period): FieldError[] {
  const from = Date.parse(period.from);
  const to = Date.parse(period.to);
  if (to <= from) return [{ pointer: '/period/to', detail: `period.to (${period.to}) must be after period.from (${period.from}).` }];
  const days = (to - from) / 86_400_000;
  const max = MAX_PERIOD_DAYS[kind];
  if (days > max) return [{ pointer: '/period/to', detail: `A ${kind} covers at most ${max} days; this period has ${Math.ceil(days)}.` }];
  return [];
}

/**
 * What an export contains: CLOSED entries that start inside the period (each entry belongs
 * to the period of its start, so consecutive exports never count it twice) of an employee
 * and a registered location in scope. OPEN entries have no worked time yet; VOIDED ones
 * count for nothing.
 */
export function includes(period: Period, scope: ReportScope, e: Pick<TimeEntry, 'state' | 'startedAt' | 'employeeId' | 'context'>): boolean {
  if (e.state !== 'CLOSED') return false;
  if (e.startedAt < period.from || e.startedAt >= period.to) return false;
  if (scope.employeeIds.length > 0 && !scope.employeeIds.includes(e.employeeId)) return false;
  if (scope.locationIds.length > 0 && (e.context.kind !== 'REGISTERED_LOCATION' || !scope.locationIds.includes(e.context.locationId))) return false;
  return true;
}

/**
 * A change from `before` to `after` changes an export's content when the entry was in it or
 * now falls into it (a new revision of an included entry is a change too).
 */
export const changesExport = (period: Period, scope: ReportScope, before: TimeEntry | undefined, after: TimeEntry): boolean =>
  (before !== undefined && includes(period, scope, before)) || includes(period, scope, after);

export const monthOf = (instant: string): string => instant.slice(0, 7);

/** The UTC months (`YYYY-MM`) that [from, to) touches. */
export function monthsOf(period: Period): string[] {
  const months: string[] = [];
  const end = new Date(Date.parse(period.to) - 1);
  for (let d = new Date(Date.UTC(new Date(period.from).getUTCFullYear(), new Date(period.from).getUTCMonth(), 1)); d <= end; d.setUTCMonth(d.getUTCMonth() + 1)) {
    months.push(d.toISOString().slice(0, 7));
  }
  return months;
}

export const contentHash = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/**
 * RFC 4180 CSV that opens right in a spreadsheet: UTF-8 with a byte order mark, CRLF line
 * ends, a header row, fields quoted when they hold a comma, quote or line break (quotes
 * doubled). Text that a spreadsheet would run as a formula (=, +, -, @ at the start) is
 * prefixed with an apostrophe; numbers are left alone.
 */
export function toCsv(rows: readonly (readonly (string | number | boolean | null)[])[]): Buffer {
  const cell = (value: string | number | boolean | null) => {
    if (value === null) return '';
    if (typeof value !== 'string') return String(value);
    const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  const text = rows.map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
  return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
}

export interface PersonInfo {
  readonly displayName: string;
  readonly employeeNumber: string | null;
  readonly externalId: string | null;
}

const minutes = (e: TimeEntry) => workedMinutes(e) ?? 0;
const byStart = (a: TimeEntry, b: TimeEntry) => (a.startedAt === b.startedAt ? (a.id < b.id ? -1 : 1) : a.startedAt < b.startedAt ? -1 : 1);

/** One line per entry: the exact revision exported. */
export function timesheetRows(entries: readonly TimeEntry[], people: ReadonlyMap<string, PersonInfo>, locationNames: ReadonlyMap<string, string>) {
  const header = ['entry_id', 'revision', 'employee_id', 'employee_name', 'started_at', 'ended_at', 'break_minutes', 'worked_minutes', 'origin', 'adjusted', 'context', 'location_id', 'location_or_address'];
  const rows = [...entries].sort(byStart).map((e) => [
    e.id,
    e.revision,
    e.employeeId,
    people.get(e.employeeId)?.displayName ?? '',
    e.startedAt,
    e.endedAt,
    e.breakMinutes,
    minutes(e),
    e.origin,
    e.adjusted,
    e.context.kind,
    e.context.kind === 'REGISTERED_LOCATION' ? e.context.locationId : null,
    e.context.kind === 'REGISTERED_LOCATION' ? (locationNames.get(e.context.locationId) ?? '') : e.context.addressLabel,
  ]);
  return [header, ...rows];
}

interface Totals {
  entries: number;
  days: Set<string>;
  worked: number;
  manual: number;
  adjusted: number;
}

function totalsByEmployee(entries: readonly TimeEntry[]): Map<string, Totals> {
  const totals = new Map<string, Totals>();
  for (const e of entries) {
    const t = totals.get(e.employeeId) ?? { entries: 0, days: new Set<string>(), worked: 0, manual: 0, adjusted: 0 };
    t.entries += 1;
    t.days.add(e.startedAt.slice(0, 10));
    t.worked += minutes(e);
    if (e.origin === 'MANUAL') t.manual += 1;
    if (e.adjusted) t.adjusted += 1;
    totals.set(e.employeeId, t);
  }
  return totals;
}

/** Monthly report: totals per employee. */
export function monthlyRows(entries: readonly TimeEntry[], people: ReadonlyMap<string, PersonInfo>) {
  const header = ['employee_id', 'employee_name', 'days_worked', 'entries', 'worked_minutes', 'worked_hours', 'manual_entries', 'adjusted_entries'];
  const rows = [...totalsByEmployee(entries).entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([id, t]) => [id, people.get(id)?.displayName ?? '', t.days.size, t.entries, t.worked, Math.round((t.worked / 60) * 100) / 100, t.manual, t.adjusted]);
  return [header, ...rows];
}

/** Payroll dispatch: worked minutes per employee for the period, keyed as payroll knows people. */
export function payrollRows(entries: readonly TimeEntry[], people: ReadonlyMap<string, PersonInfo>, period: Period) {
  const header = ['period_from', 'period_to', 'employee_id', 'employee_number', 'external_id', 'worked_minutes', 'entries'];
  const rows = [...totalsByEmployee(entries).entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([id, t]) => [period.from, period.to, id, people.get(id)?.employeeNumber ?? null, people.get(id)?.externalId ?? null, t.worked, t.entries]);
  return [header, ...rows];
}
