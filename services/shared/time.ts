import * as z from 'zod';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;
const MIN_MS = Date.UTC(1970, 0, 1);
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An RFC 3339 instant with an explicit offset (`Z` or `±hh:mm`), a real calendar date, and a
 * UTC value from 1970 to 9999 (decisions.md: no window rule beyond that). Returns it as UTC
 * at millisecond precision, or undefined. (JavaScript's own parser rolls 02-30 over to
 * March; this does not.)
 */
export function parseInstant(value: string): string | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || ms < MIN_MS || ms > MAX_MS) return undefined;
  return new Date(ms).toISOString();
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
/** Days of a month (1-12) of the proleptic Gregorian calendar; plain arithmetic, so years 0000-0099 count as themselves. */
const daysIn = (year: number, month: number) => (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]);

const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A calendar date `YYYY-MM-DD` (RFC 3339 full-date) that exists: month 01 to 12, day within
 * its month (2026-02-30, 2026-13-01 and 2026-12-00 do not). Never throws, whatever the text.
 */
export function isCalendarDate(value: string): boolean {
  const m = FULL_DATE.exec(value);
  if (!m) return false;
  const [year, month, day] = m.slice(1).map(Number);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

/** zod: a calendar date `YYYY-MM-DD` that exists (`isCalendarDate`); anything else is 422 at the field. */
export const calendarDate = (field: string) =>
  z
    .string({ error: `${field} must be a calendar date (YYYY-MM-DD).` })
    .refine(isCalendarDate, { message: `${field} must be a calendar date (YYYY-MM-DD).` })
    .meta({ format: 'date' });

/** zod: an RFC 3339 instant with offset, normalized to UTC. */
export const instant = () =>
  z
    .string()
    .meta({ format: 'date-time', description: 'RFC 3339 instant with an explicit offset (Z or ±hh:mm), 1970 to 9999.' })
    .transform((value, ctx) => {
    const parsed = parseInstant(value);
    if (parsed === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `"${value.slice(0, 40)}" is not an RFC 3339 instant with an explicit offset between 1970 and 9999 (e.g. 2026-03-02T08:00:00+01:00).`,
      });
      return z.NEVER;
    }
    return parsed;
  });

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const isUuid = (value: string): boolean => UUID.test(value);

/** zod: a UUID (any version), lower-cased. */
export const uuid = () =>
  z
    .string()
    .regex(UUID, { message: 'Expected a UUID (8-4-4-4-12 hexadecimal digits).' })
    .meta({ format: 'uuid' })
    .transform((v) => v.toLowerCase());
