import { createHash } from 'node:crypto';
import { workedMinutes, type TimeEntry } from '../timesheets/public';
import { renderPdfTable } from './domain-pdf';
import type { Period, ReportJob } from './model';

/**
 * The file of an export: CSV (RFC 4180, UTF-8 with BOM) or a PDF table, from the entries it
 * contains and what it shows of people and places. Pure: no DynamoDB, no S3.
 */
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

/** The file of a job's export, from the entries it contains. */
export async function renderExport(job: Pick<ReportJob, 'kind' | 'period'>, entries: readonly TimeEntry[], people: ReadonlyMap<string, PersonInfo>, locationNames: ReadonlyMap<string, string>, createdAt: string): Promise<Buffer> {
  switch (job.kind) {
    case 'TIMESHEET_CSV':
      return toCsv(timesheetRows(entries, people, locationNames));
    case 'MONTHLY_REPORT':
      return toCsv(monthlyRows(entries, people));
    case 'PAYROLL_DISPATCH':
      return toCsv(payrollRows(entries, people, job.period));
    case 'TIMESHEET_PDF': {
      const [, ...rows] = timesheetRows(entries, people, locationNames);
      return renderPdfTable(
        {
          title: 'Timesheet',
          subtitle: `Period ${job.period.from} to ${job.period.to} (UTC), ${entries.length} entries, exported ${createdAt}`,
          columns: [
            { header: 'Employee', width: 150 },
            { header: 'Start (UTC)', width: 120 },
            { header: 'End (UTC)', width: 120 },
            { header: 'Break', width: 45 },
            { header: 'Worked', width: 50 },
            { header: 'Origin', width: 60 },
            { header: 'Place', width: 180 },
            { header: 'Rev', width: 30 },
          ],
          rows: rows.map((r) => [String(r[3] ?? ''), String(r[4] ?? ''), String(r[5] ?? ''), String(r[6] ?? ''), String(r[7] ?? ''), String(r[8] ?? ''), String(r[12] ?? ''), String(r[1] ?? '')]),
        },
        createdAt,
      );
    }
  }
}

/**
 * Where export files live (S3 in AWS, a folder locally: store-files.ts). Keys are
 * `reports/<org>/<manifestId>.<ext>`.
 */
export interface FileStore {
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
}
