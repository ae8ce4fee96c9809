import { assertMove, canMove, overlappingShifts, planVsActual, plannedMinutes, resolveShiftOverlap, shiftIntervalErrors } from '../../services/planning/domain-rules';

/** The pure rules of shifts: the state machine, intervals, overlap and planned vs actual. */
const shift = { startsAt: '2031-01-01T08:00:00.000Z', endsAt: '2031-01-01T16:00:00.000Z', breakMinutes: 30, employeeId: 'e' };
const entry = (startedAt: string, endedAt: string | null, breakMinutes = 0, state = endedAt ? 'CLOSED' : 'OPEN') => ({ startedAt, endedAt, breakMinutes, state });

describe('states', () => {
  it('moves DRAFT -> PUBLISHED -> CANCELLED and DRAFT -> CANCELLED only', () => {
    expect([canMove('DRAFT', 'PUBLISHED'), canMove('DRAFT', 'CANCELLED'), canMove('PUBLISHED', 'CANCELLED')]).toEqual([true, true, true]);
    expect([canMove('PUBLISHED', 'DRAFT'), canMove('PUBLISHED', 'PUBLISHED'), canMove('CANCELLED', 'PUBLISHED'), canMove('CANCELLED', 'DRAFT')]).toEqual([false, false, false, false]);
  });

  it('answers an illegal move with SHIFT_<STATE>', () => {
    expect(() => assertMove({ id: 's', state: 'PUBLISHED' }, 'PUBLISHED')).toThrow(expect.objectContaining({ code: 'SHIFT_PUBLISHED' }));
    expect(() => assertMove({ id: 's', state: 'CANCELLED' }, 'CANCELLED')).toThrow(expect.objectContaining({ code: 'SHIFT_CANCELLED' }));
    expect(() => assertMove({ id: 's', state: 'CANCELLED' }, 'PUBLISHED')).toThrow(expect.objectContaining({ code: 'SHIFT_CANCELLED' }));
  });
});

describe('intervals', () => {
  it('needs end after start, at most 24 hours, a break shorter than the shift', () => {
    expect(shiftIntervalErrors(shift.startsAt, shift.endsAt, 30)).toEqual([]);
    expect(shiftIntervalErrors(shift.endsAt, shift.startsAt, 0).map((e) => 'pointer' in e && e.pointer)).toEqual(['/endsAt']);
    expect(shiftIntervalErrors(shift.startsAt, shift.startsAt, 0).map((e) => 'pointer' in e && e.pointer)).toEqual(['/endsAt']);
    expect(shiftIntervalErrors(shift.startsAt, '2031-01-02T08:00:00.000Z', 0)).toEqual([]);
    expect(shiftIntervalErrors(shift.startsAt, '2031-01-02T08:00:00.001Z', 0).map((e) => 'pointer' in e && e.pointer)).toEqual(['/endsAt']);
    expect(shiftIntervalErrors(shift.startsAt, shift.endsAt, 480).map((e) => 'pointer' in e && e.pointer)).toEqual(['/breakMinutes']);
  });
});

describe('overlap', () => {
  const planned = [
    { id: 'b', startsAt: '2031-01-01T15:00:00.000Z', endsAt: '2031-01-01T20:00:00.000Z' },
    { id: 'a', startsAt: '2031-01-01T06:00:00.000Z', endsAt: '2031-01-01T08:00:00.000Z' },
    { id: 'x', startsAt: '2031-01-01T09:00:00.000Z', endsAt: '2031-01-01T10:00:00.000Z' },
  ];
  it('is half-open: back to back is no overlap; the shift itself is ignored', () => {
    expect(overlappingShifts({ id: 'x', ...shift }, planned)).toEqual(['b']);
    expect(overlappingShifts({ id: 'n', ...shift }, planned)).toEqual(['b', 'x']);
  });
  it('is 409 SHIFT_OVERLAP naming the shifts, unless overridden with a reason', () => {
    expect(() => resolveShiftOverlap(['b'], {})).toThrow(expect.objectContaining({ code: 'SHIFT_OVERLAP', extensions: { overlappingShiftIds: ['b'] } }));
    expect(() => resolveShiftOverlap(['b'], { overlapOverride: true })).toThrow(expect.objectContaining({ code: 'SHIFT_OVERLAP' }));
    expect(resolveShiftOverlap(['b'], { overlapOverride: true, overlapReason: 'handover' })).toEqual({ overriddenIds: ['b'] });
    expect(resolveShiftOverlap([], {})).toEqual({ overriddenIds: [] });
  });
});

describe('planned vs actual', () => {
  it('plans the elapsed minutes minus the break', () => expect(plannedMinutes(shift)).toBe(450));

  it('counts every effective entry that overlaps the shift, whole; voided and touching-only entries count nothing', () => {
    const entries = [
      entry('2031-01-01T07:50:00.000Z', '2031-01-01T12:00:00.000Z', 0),
      entry('2031-01-01T12:30:00.000Z', '2031-01-01T16:10:00.000Z', 10),
      entry('2031-01-01T16:00:00.000Z', '2031-01-01T18:00:00.000Z'),
      entry('2031-01-01T05:00:00.000Z', '2031-01-01T08:00:00.000Z'),
      entry('2031-01-01T09:00:00.000Z', '2031-01-01T10:00:00.000Z', 0, 'VOIDED'),
    ];
    expect(planVsActual(shift, entries)).toEqual({ plannedMinutes: 450, actualMinutes: 250 + 210, varianceMinutes: 10, actualIncomplete: false });
  });

  it('marks actual incomplete while an OPEN entry overlaps; an open shift has no actual', () => {
    expect(planVsActual(shift, [entry('2031-01-01T08:00:00.000Z', null)])).toEqual({ plannedMinutes: 450, actualMinutes: 0, varianceMinutes: -450, actualIncomplete: true });
    expect(planVsActual({ ...shift, employeeId: null }, [entry('2031-01-01T08:00:00.000Z', '2031-01-01T09:00:00.000Z')])).toEqual({ plannedMinutes: 450, actualMinutes: null, varianceMinutes: null, actualIncomplete: false });
  });
});
