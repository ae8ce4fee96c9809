import { calendarDate, isCalendarDate, isUuid, parseInstant } from '../../services/shared/time';

describe('parseInstant', () => {
  it.each([
    ['2026-03-02T08:00:00+01:00', '2026-03-02T07:00:00.000Z'],
    ['2026-03-02T08:00:00Z', '2026-03-02T08:00:00.000Z'],
    ['2026-03-02t08:00:00.123456z', '2026-03-02T08:00:00.123Z'],
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ['2028-02-29T00:00:00-05:00', '2028-02-29T05:00:00.000Z'],
  ])('reads %s as %s', (input, utc) => expect(parseInstant(input)).toBe(utc));

  it.each([
    ['2026-03-02T08:00:00', 'no offset'],
    ['2026-03-02 08:00:00Z', 'space separator'],
    ['2026-02-30T08:00:00Z', 'no such day'],
    ['2027-02-29T08:00:00Z', 'not a leap year'],
    ['2026-13-01T08:00:00Z', 'no such month'],
    ['2026-03-02T24:00:00Z', 'hour 24'],
    ['2026-03-02T08:00:00+25:00', 'offset out of range'],
    ['1969-12-31T23:59:59Z', 'before 1970'],
    ['9999-12-31T23:59:59-01:00', 'after 9999 in UTC'],
    ['yesterday', 'not a date'],
  ])('rejects %s (%s)', (input) => expect(parseInstant(input)).toBeUndefined());
});

describe('isCalendarDate and calendarDate', () => {
  it.each(['2026-03-02', '2028-02-29', '2000-02-29', '0004-02-29', '0000-02-29', '9999-12-31', '0001-01-01'])('accepts %s', (value) => {
    expect(isCalendarDate(value)).toBe(true);
    expect(calendarDate('startsOn').safeParse(value).success).toBe(true);
  });

  // 2026-13-01 and friends made the tasks' old check throw (new Date(...).toISOString() of an invalid date): a 500, not a 422.
  it.each([
    ['2026-13-01', 'month 13'],
    ['2026-00-10', 'month 0'],
    ['2026-12-32', 'day 32'],
    ['2026-12-00', 'day 0'],
    ['2026-99-99', 'month and day out of range'],
    ['2026-02-30', 'no such day'],
    ['2027-02-29', 'not a leap year'],
    ['1900-02-29', 'a century that is no leap year'],
    ['2026-3-02', 'one-digit month'],
    ['2026-03-02T00:00:00Z', 'an instant'],
    ['', 'empty'],
  ])('refuses %s (%s) without throwing', (value) => {
    expect(() => isCalendarDate(value)).not.toThrow();
    expect(isCalendarDate(value)).toBe(false);
    const parsed = calendarDate('startsOn').safeParse(value);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message)).toEqual(['startsOn must be a calendar date (YYYY-MM-DD).']);
  });
});

describe('isUuid', () => {
  it('accepts any UUID version and rejects other ids', () => {
    expect(isUuid('6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f')).toBe(true);
    expect(isUuid('6F1C2A3E-0B4D-1C5E-0F60-7A8B9C0D1E2F')).toBe(true);
    expect(isUuid('010101001010101011001010101011')).toBe(false);
  });
});
