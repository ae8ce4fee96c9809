import type { Period } from './model';

/**
 * Local time for people reading an export: instants shown in the organization's time zone
 * (IANA name, DST-correct through Node's built-in Intl and its full ICU), durations as
 * hours:minutes, numbers and dates in the organization's locale. Pure: no I/O.
 */

export const WEEKDAY_INDEX = { MONDAY: 1, TUESDAY: 2, WEDNESDAY: 3, THURSDAY: 4, FRIDAY: 5, SATURDAY: 6, SUNDAY: 7 } as const;
export type WeekStart = keyof typeof WEEKDAY_INDEX;

/** How an export shows time: from the organization's settings. */
export interface Presentation {
  readonly timeZone: string;
  readonly locale: string;
  readonly weekStartsOn: WeekStart;
}

/** An instant as the organization's wall clock shows it. */
export interface LocalInstant {
  /** `2026-03-29` */
  readonly date: string;
  /** `08:05` (24 h) */
  readonly time: string;
  /** `+02:00` */
  readonly offset: string;
  /** 1 Monday ... 7 Sunday */
  readonly weekday: number;
}

const partsFormats = new Map<string, Intl.DateTimeFormat>();
function partsFormat(timeZone: string): Intl.DateTimeFormat {
  let f = partsFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', weekday: 'short', timeZoneName: 'longOffset' });
    partsFormats.set(timeZone, f);
  }
  return f;
}

const WEEKDAYS_EN: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

/** The wall clock of `instant` in `timeZone`. */
export function localInstant(instant: string | number, timeZone: string): LocalInstant {
  const parts = Object.fromEntries(partsFormat(timeZone).formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
  const gmt = parts.timeZoneName ?? 'GMT';
  const offset = gmt === 'GMT' ? '+00:00' : gmt.slice(3);
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}`, offset, weekday: WEEKDAYS_EN[parts.weekday] ?? 1 };
}

/** RFC 3339 local time with its offset (`2026-03-29T08:05:00+02:00`): lossless for machines. */
export function localRfc3339(instant: string, timeZone: string): string {
  const seconds = new Date(instant).getUTCSeconds();
  const l = localInstant(instant, timeZone);
  return `${l.date}T${l.time}:${String(seconds).padStart(2, '0')}${l.offset}`;
}

/** Intl formatters are costly to build: one per (kind, locale, options) for the life of the process. */
const formatters = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();
function cached<T extends Intl.DateTimeFormat | Intl.NumberFormat>(key: string, make: () => T): T {
  let f = formatters.get(key) as T | undefined;
  if (!f) {
    f = make();
    formatters.set(key, f);
  }
  return f;
}
const numberFormat = (locale: string) => cached(`n|${locale}`, () => new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }));

/** Minutes as hours:minutes (`7:30`, `-0:15`, `1.234:05` with the locale's grouping). */
export function hoursMinutes(minutes: number, locale?: string): string {
  const sign = minutes < 0 ? '-' : '';
  const abs = Math.abs(Math.round(minutes));
  const hours = Math.floor(abs / 60);
  const h = locale ? numberFormat(locale).format(hours) : String(hours);
  return `${sign}${h}:${String(abs % 60).padStart(2, '0')}`;
}

/** Minutes as decimal hours for machines: a dot, two decimals at most (`7.5`). */
export const decimalHours = (minutes: number): number => Math.round((minutes / 60) * 100) / 100;

/** An integer in the locale's format. */
export const localeNumber = (n: number, locale: string): string => numberFormat(locale).format(n);

/** A calendar date (`YYYY-MM-DD`, no zone) in the locale's short form, with its weekday when asked. */
export function localeDate(date: string, locale: string, withWeekday = false): string {
  const [y, m, d] = date.split('-').map(Number);
  const f = cached(`d|${locale}|${withWeekday}`, () => new Intl.DateTimeFormat(locale, { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit', ...(withWeekday ? { weekday: 'short' as const } : {}) }));
  return f.format(new Date(Date.UTC(y, m - 1, d)));
}

/** An instant as the locale writes a date and time in the zone (`26.11.2026, 16:05`). */
export const localeDateTime = (instant: string, p: Presentation): string =>
  cached(`t|${p.locale}|${p.timeZone}`, () => new Intl.DateTimeFormat(p.locale, { timeZone: p.timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })).format(new Date(instant));

/** The next calendar date. */
export function nextDate(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/** 1 Monday ... 7 Sunday of a calendar date. */
export function weekdayOf(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  return ((new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7) + 1;
}

/**
 * The period as local dates: the first day, and the last day it covers (inclusive). `whole`
 * when both bounds are local midnights, i.e. the period is exactly those days.
 */
export function localPeriod(period: Period, timeZone: string): { first: string; last: string; whole: boolean; from: LocalInstant; to: LocalInstant } {
  const from = localInstant(period.from, timeZone);
  const to = localInstant(period.to, timeZone);
  const lastInstant = localInstant(Date.parse(period.to) - 1, timeZone);
  return { first: from.date, last: lastInstant.date, whole: from.time === '00:00' && to.time === '00:00', from, to };
}

/** Every local date the period touches, in order. */
export function datesOf(period: Period, timeZone: string): string[] {
  const { first, last } = localPeriod(period, timeZone);
  const dates: string[] = [];
  for (let d = first; d <= last; d = nextDate(d)) dates.push(d);
  return dates;
}

/** The offsets the zone has inside the period (two across a DST change), in order of appearance. */
export function offsetsIn(period: Period, timeZone: string): string[] {
  const offsets: string[] = [];
  const to = Date.parse(period.to);
  for (let t = Date.parse(period.from); t < to; t += 3_600_000) {
    const o = localInstant(t, timeZone).offset;
    if (!offsets.includes(o)) offsets.push(o);
  }
  return offsets;
}

/** The zone named once for a header, with the offsets it has in the period: `Europe/Berlin (UTC+01:00 / UTC+02:00)`. */
export function zoneLabel(period: Period, timeZone: string): string {
  const offsets = offsetsIn(period, timeZone).map((o) => `UTC${o}`);
  return `${timeZone} (${offsets.join(' / ')})`;
}
