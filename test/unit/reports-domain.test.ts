import { changesExport, couldShareEntries, includes, monthsOf, payrollSentAgain, periodErrors } from '../../services/reports/domain';
import { toCsv } from '../../services/reports/domain-files';
import type { TimeEntry } from '../../services/timesheets/domain';

const period = { from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' };
const all = { employeeIds: [], locationIds: [] };
const entry = (over: Partial<TimeEntry> = {}): TimeEntry => ({
  id: 'e1',
  organizationId: 'o',
  employeeId: 'emp',
  context: { kind: 'REGISTERED_LOCATION', locationId: 'loc' },
  startedAt: '2026-03-10T08:00:00.000Z',
  endedAt: '2026-03-10T16:00:00.000Z',
  breakMinutes: 30,
  origin: 'MANUAL',
  state: 'CLOSED',
  adjusted: false,
  revision: 1,
  createdAt: 'x',
  updatedAt: 'x',
  ...over,
});

describe('includes', () => {
  it('takes CLOSED entries that start in [from, to), in scope', () => {
    expect(includes(period, all, entry())).toBe(true);
    expect(includes(period, all, entry({ startedAt: '2026-04-01T00:00:00.000Z' }))).toBe(false);
    expect(includes(period, all, entry({ startedAt: '2026-02-28T23:00:00.000Z', endedAt: '2026-03-01T07:00:00.000Z' }))).toBe(false);
    expect(includes(period, all, entry({ state: 'OPEN', endedAt: null }))).toBe(false);
    expect(includes(period, all, entry({ state: 'VOIDED' }))).toBe(false);
  });
  it('respects employee and location scope; ad-hoc contexts are outside a location scope', () => {
    expect(includes(period, { employeeIds: ['other'], locationIds: [] }, entry())).toBe(false);
    expect(includes(period, { employeeIds: [], locationIds: ['loc'] }, entry())).toBe(true);
    expect(includes(period, { employeeIds: [], locationIds: ['loc'] }, entry({ context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'x' } }))).toBe(false);
  });
});

describe('changesExport', () => {
  it('is true when the entry was in the export or now falls into it', () => {
    expect(changesExport(period, all, undefined, entry())).toBe(true);
    expect(changesExport(period, all, entry(), entry({ revision: 2, breakMinutes: 0 }))).toBe(true);
    expect(changesExport(period, all, entry(), entry({ revision: 2, state: 'VOIDED' }))).toBe(true);
    expect(changesExport(period, all, entry({ startedAt: '2026-05-01T08:00:00.000Z', endedAt: '2026-05-01T09:00:00.000Z' }), entry({ revision: 2 }))).toBe(true);
  });
  it('is false for changes entirely outside it', () => {
    const may = entry({ startedAt: '2026-05-01T08:00:00.000Z', endedAt: '2026-05-01T09:00:00.000Z' });
    expect(changesExport(period, all, may, { ...may, revision: 2, endedAt: '2026-05-01T10:00:00.000Z' })).toBe(false);
    expect(changesExport(period, all, entry({ state: 'OPEN', endedAt: null }), entry({ state: 'OPEN', endedAt: null, revision: 2 }))).toBe(false);
  });
});

describe('periods', () => {
  it('rejects an end before the start and a monthly report over 31 days', () => {
    expect(periodErrors('TIMESHEET_CSV', { from: period.to, to: period.from })).toEqual([expect.objectContaining({ pointer: '/period/to' })]);
    expect(periodErrors('MONTHLY_REPORT', { from: '2026-03-01T00:00:00Z', to: '2026-04-02T00:00:00Z' })).toEqual([expect.objectContaining({ detail: expect.stringMatching(/at most 31 days/) })]);
    expect(periodErrors('MONTHLY_REPORT', period)).toEqual([]);
  });
  it('lists the UTC months a period touches', () => {
    expect(monthsOf(period)).toEqual(['2026-03']);
    expect(monthsOf({ from: '2025-12-15T00:00:00.000Z', to: '2026-02-01T00:00:01.000Z' })).toEqual(['2025-12', '2026-01', '2026-02']);
  });
});

describe('toCsv', () => {
  it('writes RFC 4180 with a BOM, CRLF, quoting and formula neutralisation', () => {
    const csv = toCsv([
      ['a', 'b'],
      ['x,y', 'say "hi"'],
      ['line\nbreak', '=HYPERLINK("evil")'],
      [-5, null],
    ]);
    expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(csv.subarray(3).toString('utf8')).toBe('a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak","\'=HYPERLINK(""evil"")"\r\n-5,\r\n');
  });
});

describe('couldShareEntries and payrollSentAgain: payroll is sent once', () => {
  const june = { from: '2026-06-01T00:00:00.000Z', to: '2026-07-01T00:00:00.000Z' };
  const july = { from: '2026-07-01T00:00:00Z', to: '2026-08-01T00:00:00Z' };
  const everyone = { employeeIds: [], locationIds: [] };
  const of = (employeeIds: string[], locationIds: string[] = []) => ({ employeeIds, locationIds });

  it('periods that only touch hold no common entry (to is exclusive), whatever the notation', () => {
    expect(couldShareEntries({ period: june, scope: everyone }, { period: july, scope: everyone })).toBe(false);
    expect(couldShareEntries({ period: june, scope: everyone }, { period: { from: '2026-06-30T23:59:59+00:00', to: '2026-07-01T01:00:00+02:00' }, scope: everyone })).toBe(true);
  });

  it('scopes share an entry when each of their lists intersects or is empty (every one)', () => {
    expect(couldShareEntries({ period: june, scope: of(['a']) }, { period: june, scope: of(['b']) })).toBe(false);
    expect(couldShareEntries({ period: june, scope: of(['a', 'b']) }, { period: june, scope: of(['b']) })).toBe(true);
    expect(couldShareEntries({ period: june, scope: of(['a']) }, { period: june, scope: of([], ['loc']) })).toBe(true);
    expect(couldShareEntries({ period: june, scope: of([], ['x']) }, { period: june, scope: of([], ['y']) })).toBe(false);
  });

  it('names the earlier dispatches a new one would send again: payroll only, abandoned ones never, each once', () => {
    const index = [
      { manifestId: 'm2', kind: 'PAYROLL_DISPATCH' as const, period: june, scope: everyone, status: 'PUBLISHED' as const },
      { manifestId: 'm1', kind: 'PAYROLL_DISPATCH' as const, period: june, scope: everyone, status: 'PENDING' as const },
      { manifestId: 'm2', kind: 'PAYROLL_DISPATCH' as const, period: june, scope: everyone, status: 'PUBLISHED' as const },
      { manifestId: 'gone', kind: 'PAYROLL_DISPATCH' as const, period: june, scope: everyone, status: 'ABANDONED' as const },
      { manifestId: 'csv', kind: 'TIMESHEET_CSV' as const, period: june, scope: everyone, status: 'PUBLISHED' as const },
    ];
    expect(payrollSentAgain(index, june, of(['a']))).toEqual(['m1', 'm2']);
    expect(payrollSentAgain(index, july, everyone)).toEqual([]);
  });
});
