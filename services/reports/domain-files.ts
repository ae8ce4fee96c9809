import { createHash } from 'node:crypto';
import { workedMinutes, type TimeEntry } from '../timesheets/public';
import type { Period, ReportJob, ReportKind } from './model';
import { decimalHours, hoursMinutes, localeDate, localeDateTime, localeNumber, localInstant, localPeriod, localRfc3339, WEEKDAY_INDEX, weekdayOf, datesOf, zoneLabel, type Presentation } from './domain-time';
import type { PdfDocumentModel, PdfRow, PdfSection } from './domain-pdf';

/**
 * The file of an export, from the entries it contains and what it shows of people, places and
 * plans: CSV for machines (UTC instants beside local columns, decimal hours, no locale) and
 * PDF models for people (local times, `7:30`, the locale's numbers and dates). Pure: no
 * DynamoDB, no S3, no PDF library (the worker's ports render PDF models).
 *
 * The content hash of an export is the sha256 of its content in machine form: the CSV rows
 * (for CSV kinds that is the file itself). It leaves out what only a printout carries
 * (generated-at, manifest id), so it changes only with content, and a PDF prints it.
 */
export const contentHash = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

type Cell = string | number | boolean | null;

/**
 * RFC 4180 CSV that opens right in a spreadsheet: UTF-8 with a byte order mark, CRLF line
 * ends, a header row, fields quoted when they hold a comma, quote or line break (quotes
 * doubled). Text that a spreadsheet would run as a formula (=, +, -, @ at the start) is
 * prefixed with an apostrophe; numbers are left alone.
 */
export function toCsv(rows: readonly (readonly Cell[])[]): Buffer {
  const cell = (value: Cell) => {
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

/** A PUBLISHED shift as the monthly report plans with it. */
export interface PlannedShift {
  readonly locationId: string;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly breakMinutes: number;
}

/** What an export shows: the entries it contains and the names, places and plans around them. */
export interface ExportData {
  readonly entries: readonly TimeEntry[];
  readonly people: ReadonlyMap<string, PersonInfo>;
  readonly locationNames: ReadonlyMap<string, string>;
  /** PUBLISHED shifts per employee (MONTHLY_REPORT only). */
  readonly planned: ReadonlyMap<string, readonly PlannedShift[]>;
}

/** Who exports, for what, when: the printout's header and trace. */
export interface ExportContext {
  readonly organizationName: string;
  readonly presentation: Presentation;
  readonly manifestId: string;
  readonly generatedAt: string;
}

/** An export rendered: the file, and the content in machine form whose hash the manifest keeps. */
export interface RenderedExport {
  readonly format: 'csv' | 'pdf';
  readonly csv?: Buffer;
  readonly pdf?: PdfDocumentModel;
  /** The content in machine form (CSV bytes): `contentHash` of it is the manifest's. */
  readonly content: Buffer;
}

const minutes = (e: TimeEntry) => workedMinutes(e) ?? 0;

export const KIND_TITLE: Readonly<Record<ReportKind, string>> = {
  TIMESHEET_CSV: 'Timesheet (CSV)',
  TIMESHEET_PDF: 'Timesheet',
  MONTHLY_REPORT: 'Monthly report',
  PAYROLL_DISPATCH: 'Payroll dispatch',
};

// ---- the timesheet: one line per entry, ordered by employee then start, with totals

interface Line {
  readonly e: TimeEntry;
  readonly name: string;
  readonly date: string;
  readonly worked: number;
  readonly place: string;
}

interface DayBlock {
  readonly date: string;
  readonly lines: Line[];
  worked: number;
  breaks: number;
}

interface EmployeeBlock {
  readonly employeeId: string;
  readonly name: string;
  readonly days: DayBlock[];
  worked: number;
  breaks: number;
  entries: number;
}

interface Totals {
  worked: number;
  breaks: number;
  entries: number;
}

interface TimesheetModel {
  readonly employees: EmployeeBlock[];
  /** Per local date, every employee together. */
  readonly days: (Totals & { date: string; employees: number })[];
  readonly grand: Totals;
}

const nameOf = (people: ReadonlyMap<string, PersonInfo>, id: string) => people.get(id)?.displayName ?? '';

/** Entries by employee (name in the locale's order, then id), then start, then id. */
function timesheetModel(data: ExportData, p: Presentation): TimesheetModel {
  const collator = new Intl.Collator(p.locale);
  const lines: Line[] = data.entries.map((e) => ({
    e,
    name: nameOf(data.people, e.employeeId),
    date: localInstant(e.startedAt, p.timeZone).date,
    worked: minutes(e),
    place: e.context.kind === 'REGISTERED_LOCATION' ? (data.locationNames.get(e.context.locationId) ?? '') : e.context.addressLabel,
  }));
  lines.sort((a, b) => collator.compare(a.name, b.name) || cmp(a.e.employeeId, b.e.employeeId) || cmp(a.e.startedAt, b.e.startedAt) || cmp(a.e.id, b.e.id));
  const employees: EmployeeBlock[] = [];
  const days = new Map<string, Totals & { date: string; people: Set<string> }>();
  for (const line of lines) {
    let block = employees.at(-1);
    if (!block || block.employeeId !== line.e.employeeId) {
      block = { employeeId: line.e.employeeId, name: line.name, days: [], worked: 0, breaks: 0, entries: 0 };
      employees.push(block);
    }
    let day = block.days.at(-1);
    if (!day || day.date !== line.date) {
      day = { date: line.date, lines: [], worked: 0, breaks: 0 };
      block.days.push(day);
    }
    day.lines.push(line);
    day.worked += line.worked;
    day.breaks += line.e.breakMinutes;
    block.worked += line.worked;
    block.breaks += line.e.breakMinutes;
    block.entries += 1;
    const all = days.get(line.date) ?? { date: line.date, worked: 0, breaks: 0, entries: 0, people: new Set<string>() };
    all.worked += line.worked;
    all.breaks += line.e.breakMinutes;
    all.entries += 1;
    all.people.add(line.e.employeeId);
    days.set(line.date, all);
  }
  const grand = employees.reduce((t, b) => ({ worked: t.worked + b.worked, breaks: t.breaks + b.breaks, entries: t.entries + b.entries }), { worked: 0, breaks: 0, entries: 0 });
  return {
    employees,
    days: [...days.values()].sort((a, b) => cmp(a.date, b.date)).map(({ people, ...t }) => ({ ...t, employees: people.size })),
    grand,
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const TIMESHEET_CSV_HEADER = [
  'entry_id', 'revision', 'employee_id', 'employee_name', 'started_at', 'ended_at', 'break_minutes', 'worked_minutes', 'origin', 'adjusted', 'context', 'location_id', 'location_or_address',
  'time_zone', 'local_date', 'local_started_at', 'local_ended_at', 'break_hours', 'worked_hours', 'row_type',
] as const;

/**
 * The timesheet for machines: one ENTRY row per entry (the exact revision exported, UTC
 * instants and the same instants in local time with their offset), then EMPLOYEE_DAY_TOTAL
 * rows after each employee's day, EMPLOYEE_TOTAL after each employee, DAY_TOTAL per local
 * date (every employee) and one GRAND_TOTAL. Minutes as integers, hours as decimals.
 */
export function timesheetRows(data: ExportData, p: Presentation): Cell[][] {
  const model = timesheetModel(data, p);
  const tz = p.timeZone;
  const total = (type: string, employeeId: string | null, name: string | null, date: string | null, t: { breaks: number; worked: number }): Cell[] => [
    null, null, employeeId, name, null, null, t.breaks, t.worked, null, null, null, null, null, tz, date, null, null, decimalHours(t.breaks), decimalHours(t.worked), type,
  ];
  const rows: Cell[][] = [[...TIMESHEET_CSV_HEADER]];
  for (const block of model.employees) {
    for (const day of block.days) {
      for (const { e, name, date, worked, place } of day.lines) {
        rows.push([
          e.id, e.revision, e.employeeId, name, e.startedAt, e.endedAt, e.breakMinutes, worked, e.origin, e.adjusted, e.context.kind,
          e.context.kind === 'REGISTERED_LOCATION' ? e.context.locationId : null, place,
          tz, date, localRfc3339(e.startedAt, tz), e.endedAt ? localRfc3339(e.endedAt, tz) : null, decimalHours(e.breakMinutes), decimalHours(worked), 'ENTRY',
        ]);
      }
      rows.push(total('EMPLOYEE_DAY_TOTAL', block.employeeId, block.name, day.date, day));
    }
    rows.push(total('EMPLOYEE_TOTAL', block.employeeId, block.name, null, block));
  }
  for (const day of model.days) rows.push(total('DAY_TOTAL', null, null, day.date, day));
  rows.push(total('GRAND_TOTAL', null, null, null, model.grand));
  return rows;
}

/** Header lines every printed page carries: organization, kind, period as local dates, zone. */
function pdfHeader(kind: ReportKind, period: Period, ctx: ExportContext, extra: string): string[] {
  const p = ctx.presentation;
  const local = localPeriod(period, p.timeZone);
  const bounds = local.whole
    ? `${localeDate(local.first, p.locale)} – ${localeDate(local.last, p.locale)}`
    : `${localeDate(local.from.date, p.locale)} ${local.from.time} – ${localeDate(local.to.date, p.locale)} ${local.to.time} (end exclusive)`;
  return [`${ctx.organizationName} · ${KIND_TITLE[kind]} · Period ${bounds} · Times in ${zoneLabel(period, p.timeZone)}`, extra];
}

const trace = (ctx: ExportContext, hash: string) =>
  `Manifest ${ctx.manifestId} · content ${hash} · generated ${localeDateTime(ctx.generatedAt, ctx.presentation)} UTC${localInstant(ctx.generatedAt, ctx.presentation.timeZone).offset}`;

/** `1 entry`, `3 entries` in the locale's numbers. */
const count = (n: number, one: string, many: string, locale: string) => `${localeNumber(n, locale)} ${n === 1 ? one : many}`;

/** The timesheet for people: entries with local times, totals per employee and day, per date, and a grand total. */
function timesheetPdf(job: Pick<ReportJob, 'kind' | 'period'>, data: ExportData, ctx: ExportContext, hash: string): PdfDocumentModel {
  const p = ctx.presentation;
  const model = timesheetModel(data, p);
  const hm = (m: number) => hoursMinutes(m, p.locale);
  const endOf = (e: TimeEntry, date: string) => {
    if (!e.endedAt) return '';
    const end = localInstant(e.endedAt, p.timeZone);
    return end.date === date ? end.time : `${end.time} (+${Math.round((Date.parse(`${end.date}T00:00:00Z`) - Date.parse(`${date}T00:00:00Z`)) / 86_400_000)})`;
  };
  const rows: PdfRow[] = [];
  for (const block of model.employees) {
    for (const day of block.days) {
      for (const { e, name, date, worked, place } of day.lines) {
        rows.push({
          cells: [name, localeDate(date, p.locale, true), localInstant(e.startedAt, p.timeZone).time, endOf(e, date), hm(e.breakMinutes), hm(worked), e.origin, place, e.adjusted ? `${localeNumber(e.revision, p.locale)} adjusted` : localeNumber(e.revision, p.locale), e.id.slice(0, 8)],
        });
      }
      rows.push({ style: 'subtotal', cells: [block.name, localeDate(day.date, p.locale, true), '', 'Day total', hm(day.breaks), hm(day.worked), '', count(day.lines.length, 'entry', 'entries', p.locale), '', ''] });
    }
    rows.push({ style: 'total', cells: [block.name, 'Employee total', '', '', hm(block.breaks), hm(block.worked), '', `${count(block.entries, 'entry', 'entries', p.locale)}, ${count(block.days.length, 'day', 'days', p.locale)}`, '', ''] });
  }
  const sections: PdfSection[] = [
    {
      heading: ['Entries by employee, then start'],
      columns: [
        { header: 'Employee', width: 128 },
        { header: 'Date', width: 80 },
        { header: 'Start', width: 36 },
        { header: 'End', width: 50 },
        { header: 'Break', width: 42, align: 'right' },
        { header: 'Worked', width: 48, align: 'right' },
        { header: 'Origin', width: 56 },
        { header: 'Place', width: 168 },
        { header: 'Revision', width: 72 },
        { header: 'Entry', width: 56 },
      ],
      rows,
      empty: 'No entries in this period and scope.',
    },
    {
      heading: ['Totals per day (every employee)'],
      columns: [
        { header: 'Date', width: 128 },
        { header: 'Employees', width: 70, align: 'right' },
        { header: 'Entries', width: 60, align: 'right' },
        { header: 'Break', width: 60, align: 'right' },
        { header: 'Worked', width: 60, align: 'right' },
      ],
      rows: [
        ...model.days.map((d) => ({ cells: [localeDate(d.date, p.locale, true), localeNumber(d.employees, p.locale), localeNumber(d.entries, p.locale), hm(d.breaks), hm(d.worked)] })),
        { style: 'total' as const, cells: ['Grand total', localeNumber(model.employees.length, p.locale), localeNumber(model.grand.entries, p.locale), hm(model.grand.breaks), hm(model.grand.worked)] },
      ],
    },
  ];
  return {
    title: `${KIND_TITLE[job.kind]} – ${ctx.organizationName}`,
    header: pdfHeader(job.kind, job.period, ctx, `${count(model.grand.entries, 'entry', 'entries', p.locale)} · worked ${hm(model.grand.worked)} · break ${hm(model.grand.breaks)} · durations in hours:minutes · a revision above 1 marked "adjusted" is a corrected entry`),
    trace: trace(ctx, hash),
    sections,
    createdAt: ctx.generatedAt,
  };
}

// ---- the monthly report: a page per employee, day by day, planned vs actual, weekly subtotals

interface DayCell {
  readonly date: string;
  planned: number;
  worked: number;
  breaks: number;
  entries: number;
  adjusted: number;
  first: string | null;
  last: string | null;
}

interface MonthlyEmployee {
  readonly employeeId: string;
  readonly name: string;
  readonly employeeNumber: string | null;
  readonly days: DayCell[];
}

function monthlyModel(period: Period, data: ExportData, p: Presentation): MonthlyEmployee[] {
  const dates = datesOf(period, p.timeZone);
  const ids = new Set<string>([...data.entries.map((e) => e.employeeId), ...[...data.planned.entries()].filter(([, s]) => s.length > 0).map(([id]) => id)]);
  const collator = new Intl.Collator(p.locale);
  const byEmployee = new Map<string, TimeEntry[]>();
  for (const e of [...data.entries].sort((a, b) => cmp(a.startedAt, b.startedAt))) {
    const own = byEmployee.get(e.employeeId) ?? [];
    own.push(e);
    byEmployee.set(e.employeeId, own);
  }
  const employees = [...ids].map((id): MonthlyEmployee => {
    const days = new Map(dates.map((date) => [date, { date, planned: 0, worked: 0, breaks: 0, entries: 0, adjusted: 0, first: null, last: null } as DayCell]));
    for (const e of byEmployee.get(id) ?? []) {
      const start = localInstant(e.startedAt, p.timeZone);
      const day = days.get(start.date);
      if (!day) continue;
      day.worked += minutes(e);
      day.breaks += e.breakMinutes;
      day.entries += 1;
      if (e.adjusted) day.adjusted += 1;
      day.first ??= start.time;
      if (e.endedAt) day.last = localInstant(e.endedAt, p.timeZone).time;
    }
    for (const s of data.planned.get(id) ?? []) {
      const day = days.get(localInstant(s.startsAt, p.timeZone).date);
      if (day) day.planned += Math.max(0, Math.round((Date.parse(s.endsAt) - Date.parse(s.startsAt)) / 60_000) - s.breakMinutes);
    }
    const person = data.people.get(id);
    return { employeeId: id, name: person?.displayName ?? '', employeeNumber: person?.employeeNumber ?? null, days: [...days.values()] };
  });
  return employees.sort((a, b) => collator.compare(a.name, b.name) || cmp(a.employeeId, b.employeeId));
}

const sum = (days: readonly DayCell[], key: 'planned' | 'worked' | 'breaks' | 'entries') => days.reduce((t, d) => t + d[key], 0);

/** Weeks of the grid: a new week starts on the organization's `weekStartsOn`. */
function weeksOf(days: readonly DayCell[], weekStartsOn: number): DayCell[][] {
  const weeks: DayCell[][] = [];
  for (const day of days) {
    if (weeks.length === 0 || weekdayOf(day.date) === weekStartsOn) weeks.push([]);
    weeks.at(-1)!.push(day);
  }
  return weeks;
}

export const MONTHLY_CSV_HEADER = ['employee_id', 'employee_name', 'employee_number', 'time_zone', 'local_date', 'week_start', 'planned_minutes', 'worked_minutes', 'break_minutes', 'difference_minutes', 'entries', 'adjusted_entries', 'row_type'] as const;

/** The monthly report's content for machines (what its hash covers): DAY rows, WEEK_TOTAL rows, EMPLOYEE_TOTAL rows. */
export function monthlyRows(period: Period, data: ExportData, p: Presentation): Cell[][] {
  const rows: Cell[][] = [[...MONTHLY_CSV_HEADER]];
  const weekStart = WEEKDAY_INDEX[p.weekStartsOn];
  for (const m of monthlyModel(period, data, p)) {
    const base = [m.employeeId, m.name, m.employeeNumber, p.timeZone];
    for (const week of weeksOf(m.days, weekStart)) {
      for (const d of week) rows.push([...base, d.date, week[0].date, d.planned, d.worked, d.breaks, d.worked - d.planned, d.entries, d.adjusted, 'DAY']);
      rows.push([...base, null, week[0].date, sum(week, 'planned'), sum(week, 'worked'), sum(week, 'breaks'), sum(week, 'worked') - sum(week, 'planned'), sum(week, 'entries'), null, 'WEEK_TOTAL']);
    }
    rows.push([...base, null, null, sum(m.days, 'planned'), sum(m.days, 'worked'), sum(m.days, 'breaks'), sum(m.days, 'worked') - sum(m.days, 'planned'), sum(m.days, 'entries'), null, 'EMPLOYEE_TOTAL']);
  }
  return rows;
}

function monthlyPdf(job: Pick<ReportJob, 'kind' | 'period'>, data: ExportData, ctx: ExportContext, hash: string): PdfDocumentModel {
  const p = ctx.presentation;
  const hm = (m: number) => hoursMinutes(m, p.locale);
  const signed = (m: number) => (m > 0 ? `+${hm(m)}` : hm(m));
  const weekStart = WEEKDAY_INDEX[p.weekStartsOn];
  const employees = monthlyModel(job.period, data, p);
  const sections: PdfSection[] = employees.map((m) => {
    const rows: PdfRow[] = [];
    for (const week of weeksOf(m.days, weekStart)) {
      for (const d of week) {
        const any = d.planned > 0 || d.entries > 0;
        rows.push({
          cells: [
            localeDate(d.date, p.locale, true),
            d.planned > 0 ? hm(d.planned) : '',
            d.first ? `${d.first}–${d.last ?? ''}` : '',
            d.entries > 0 ? hm(d.breaks) : '',
            d.entries > 0 ? hm(d.worked) : '',
            any ? signed(d.worked - d.planned) : '',
            d.entries > 0 ? localeNumber(d.entries, p.locale) : '',
            d.adjusted > 0 ? `${localeNumber(d.adjusted, p.locale)} adjusted` : '',
          ],
        });
      }
      const [planned, worked] = [sum(week, 'planned'), sum(week, 'worked')];
      rows.push({ style: 'subtotal', cells: [`Week ${localeDate(week[0].date, p.locale)} – ${localeDate(week.at(-1)!.date, p.locale)}`, hm(planned), '', hm(sum(week, 'breaks')), hm(worked), signed(worked - planned), localeNumber(sum(week, 'entries'), p.locale), ''] });
    }
    const [planned, worked] = [sum(m.days, 'planned'), sum(m.days, 'worked')];
    rows.push({ style: 'total', cells: ['Total', hm(planned), '', hm(sum(m.days, 'breaks')), hm(worked), signed(worked - planned), localeNumber(sum(m.days, 'entries'), p.locale), ''] });
    return {
      newPage: true,
      heading: [m.name || m.employeeId, `Employee ${m.employeeNumber ? `no. ${m.employeeNumber} · ` : ''}${m.employeeId} · planned: PUBLISHED shifts by their start day · worked: CLOSED entries by their start day`],
      columns: [
        { header: 'Date', width: 150 },
        { header: 'Planned', width: 70, align: 'right' },
        { header: 'From–to', width: 90 },
        { header: 'Break', width: 60, align: 'right' },
        { header: 'Worked', width: 70, align: 'right' },
        { header: 'Difference', width: 75, align: 'right' },
        { header: 'Entries', width: 55, align: 'right' },
        { header: 'Corrections', width: 100 },
      ],
      rows,
      lineHeight: 9.5,
      signatures: ['Employee: signature and date', 'Supervisor: signature and date'],
    };
  });
  return {
    title: `${KIND_TITLE[job.kind]} – ${ctx.organizationName}`,
    header: pdfHeader(job.kind, job.period, ctx, `${count(employees.length, 'employee', 'employees', p.locale)} · durations in hours:minutes · weeks start on ${p.weekStartsOn.toLowerCase()}`),
    trace: trace(ctx, hash),
    sections: sections.length > 0 ? sections : [{ heading: ['No entries or published shifts in this period and scope.'], columns: [], rows: [] }],
    createdAt: ctx.generatedAt,
  };
}

// ---- payroll: worked minutes per employee, keyed as payroll knows people

/** Payroll dispatch: worked minutes per employee for the period; the local bounds and hours beside. */
export function payrollRows(period: Period, data: ExportData, p: Presentation): Cell[][] {
  const header = ['period_from', 'period_to', 'employee_id', 'employee_number', 'external_id', 'worked_minutes', 'entries', 'time_zone', 'period_first_day', 'period_last_day', 'worked_hours'];
  const local = localPeriod(period, p.timeZone);
  const totals = new Map<string, { worked: number; entries: number }>();
  for (const e of data.entries) {
    const t = totals.get(e.employeeId) ?? { worked: 0, entries: 0 };
    t.worked += minutes(e);
    t.entries += 1;
    totals.set(e.employeeId, t);
  }
  const rows = [...totals.entries()]
    .sort(([a], [b]) => cmp(a, b))
    .map(([id, t]): Cell[] => [period.from, period.to, id, data.people.get(id)?.employeeNumber ?? null, data.people.get(id)?.externalId ?? null, t.worked, t.entries, p.timeZone, local.first, local.last, decimalHours(t.worked)]);
  return [header, ...rows];
}

/** The export of a job: its file (CSV bytes or a PDF model) and its content in machine form. */
export function renderExport(job: Pick<ReportJob, 'kind' | 'period'>, data: ExportData, ctx: ExportContext): RenderedExport {
  const p = ctx.presentation;
  switch (job.kind) {
    case 'TIMESHEET_CSV': {
      const csv = toCsv(timesheetRows(data, p));
      return { format: 'csv', csv, content: csv };
    }
    case 'PAYROLL_DISPATCH': {
      const csv = toCsv(payrollRows(job.period, data, p));
      return { format: 'csv', csv, content: csv };
    }
    case 'TIMESHEET_PDF': {
      const content = toCsv(timesheetRows(data, p));
      return { format: 'pdf', pdf: timesheetPdf(job, data, ctx, contentHash(content)), content };
    }
    case 'MONTHLY_REPORT': {
      const content = toCsv(monthlyRows(job.period, data, p));
      return { format: 'pdf', pdf: monthlyPdf(job, data, ctx, contentHash(content)), content };
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
