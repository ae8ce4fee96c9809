import { applyCorrection, applyVoid, assertIfMatch, changedAttributes, etagOf, intervalErrors, overlappingEntries, overlaps, resolveOverlap, workedMinutes, type TimeEntry } from '../../services/timesheets/domain';

const entry = (over: Partial<TimeEntry> = {}): TimeEntry => ({
  id: '00000000-0000-4000-8000-000000000001',
  organizationId: 'org',
  employeeId: 'emp',
  context: { kind: 'REGISTERED_LOCATION', locationId: 'loc' },
  startedAt: '2026-03-02T08:00:00.000Z',
  endedAt: '2026-03-02T16:00:00.000Z',
  breakMinutes: 30,
  origin: 'MANUAL',
  state: 'CLOSED',
  adjusted: false,
  revision: 1,
  createdAt: '2026-03-02T17:00:00.000Z',
  updatedAt: '2026-03-02T17:00:00.000Z',
  ...over,
});

describe('workedMinutes', () => {
  it('is floor(elapsed minutes) minus the break', () => {
    expect(workedMinutes({ startedAt: '2026-03-02T08:00:00.000Z', endedAt: '2026-03-02T16:00:59.999Z', breakMinutes: 30 })).toBe(450);
  });
  it('is null while OPEN', () => {
    expect(workedMinutes({ startedAt: '2026-03-02T08:00:00.000Z', endedAt: null, breakMinutes: 0 })).toBeNull();
  });
});

describe('overlaps', () => {
  const a = { startedAt: '2026-03-02T08:00:00.000Z', endedAt: '2026-03-02T12:00:00.000Z' };
  it('treats intervals as half-open: touching intervals do not overlap', () => {
    expect(overlaps(a, { startedAt: '2026-03-02T12:00:00.000Z', endedAt: '2026-03-02T13:00:00.000Z' })).toBe(false);
    expect(overlaps(a, { startedAt: '2026-03-02T07:00:00.000Z', endedAt: '2026-03-02T08:00:00.000Z' })).toBe(false);
  });
  it('detects a one-millisecond overlap', () => {
    expect(overlaps(a, { startedAt: '2026-03-02T11:59:59.999Z', endedAt: '2026-03-02T13:00:00.000Z' })).toBe(true);
  });
  it('lets an OPEN entry reach to +infinity', () => {
    expect(overlaps({ startedAt: '2026-03-01T00:00:00.000Z', endedAt: null }, { startedAt: '2030-01-01T00:00:00.000Z', endedAt: '2030-01-01T01:00:00.000Z' })).toBe(true);
    expect(overlaps({ startedAt: '2026-03-02T12:00:00.000Z', endedAt: null }, a)).toBe(false);
  });
});

describe('overlappingEntries and resolveOverlap', () => {
  const interval = { startedAt: '2026-03-02T10:00:00.000Z', endedAt: '2026-03-02T11:00:00.000Z' };
  const other = entry({ id: 'b' });
  it('ignores VOIDED entries and the entry itself', () => {
    expect(overlappingEntries(interval, [entry({ id: 'a', state: 'VOIDED' }), other, entry({ id: 'self' })], 'self').map((e) => e.id)).toEqual(['b']);
  });
  it('answers TIME_ENTRY_OVERLAP naming the overlapped entries', () => {
    expect(() => resolveOverlap([other], {})).toThrow(expect.objectContaining({ code: 'TIME_ENTRY_OVERLAP', extensions: { overlappingEntryIds: ['b'] } }));
  });
  it('proceeds when overridden and reports what was overridden', () => {
    expect(resolveOverlap([other], { override: true, reason: 'double shift' })).toEqual({ overlappedEntryIds: ['b'], overridden: true });
  });
});

describe('intervalErrors', () => {
  it('requires the end after the start', () => {
    expect(intervalErrors('2026-03-02T10:00:00.000Z', '2026-03-02T10:00:00.000Z', 0)).toEqual([expect.objectContaining({ pointer: '/endedAt' })]);
  });
  it('requires the break strictly shorter than the elapsed time', () => {
    expect(intervalErrors('2026-03-02T10:00:00.000Z', '2026-03-02T11:00:00.000Z', 60)).toEqual([expect.objectContaining({ pointer: '/breakMinutes' })]);
    expect(intervalErrors('2026-03-02T10:00:00.000Z', '2026-03-02T11:00:00.000Z', 59)).toEqual([]);
  });
});

describe('applyCorrection', () => {
  it('makes a new adjusted revision and keeps unspecified fields', () => {
    const next = applyCorrection(entry(), { endedAt: '2026-03-02T17:00:00.000Z' }, 'now');
    expect(next).toMatchObject({ revision: 2, adjusted: true, startedAt: '2026-03-02T08:00:00.000Z', endedAt: '2026-03-02T17:00:00.000Z', breakMinutes: 30, state: 'CLOSED', updatedAt: 'now' });
  });
  it('closes an OPEN entry that gets an end', () => {
    expect(applyCorrection(entry({ state: 'OPEN', endedAt: null, origin: 'SCANNED' }), { endedAt: '2026-03-02T12:00:00.000Z' }, 'now').state).toBe('CLOSED');
  });
  it('keeps an OPEN entry OPEN when only the start moves', () => {
    expect(applyCorrection(entry({ state: 'OPEN', endedAt: null, origin: 'SCANNED' }), { startedAt: '2026-03-02T07:30:00.000Z' }, 'now').state).toBe('OPEN');
  });
  it('refuses a context change on a SCANNED entry, pointing at /context', () => {
    expect(() => applyCorrection(entry({ origin: 'SCANNED' }), { context: { kind: 'REGISTERED_LOCATION', locationId: 'x' } }, 'now')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ pointer: '/context' })] }),
    );
  });
  it('replaces the context of a MANUAL entry whole and drops coordinates', () => {
    const next = applyCorrection(entry(), { context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 7, Dock Road', latitude: 1, longitude: 2 } }, 'now');
    expect(next.context).toEqual({ kind: 'VEHICLE_AD_HOC', addressLabel: 'Van 7, Dock Road' });
  });
  it('checks the resulting interval', () => {
    expect(() => applyCorrection(entry(), { endedAt: '2026-03-02T07:00:00.000Z' }, 'now')).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });
  it('bounds the break of an OPEN entry by the time it has run so far, so its scan check-out stays a valid interval', () => {
    const open = entry({ state: 'OPEN', endedAt: null, origin: 'SCANNED', breakMinutes: 0, startedAt: '2026-03-02T08:00:00.000Z' });
    const now = '2026-03-02T10:00:00.000Z';
    expect(applyCorrection(open, { breakMinutes: 119 }, now)).toMatchObject({ state: 'OPEN', breakMinutes: 119 });
    for (const breakMinutes of [120, 100_000]) {
      expect(() => applyCorrection(open, { breakMinutes }, now)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ pointer: '/breakMinutes', detail: expect.stringContaining('120 minutes') })] }));
    }
    // No break is always possible, also for an entry that starts later (no window rule).
    expect(applyCorrection(open, { startedAt: '2026-03-03T08:00:00.000Z' }, now).state).toBe('OPEN');
    expect(() => applyCorrection(open, { startedAt: '2026-03-03T08:00:00.000Z', breakMinutes: 5 }, now)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });
});

describe('applyVoid and assertIfMatch', () => {
  it('voids into a new final revision', () => {
    const voided = applyVoid(entry(), 'now');
    expect(voided).toMatchObject({ state: 'VOIDED', revision: 2 });
    expect(() => applyVoid(voided, 'later')).toThrow(expect.objectContaining({ code: 'TIME_ENTRY_VOIDED' }));
  });
  it('accepts the current ETag, also inside a list, and nothing else', () => {
    const e = entry({ revision: 3 });
    expect(etagOf(e)).toBe(`"time-entry:${e.id}:r3"`);
    expect(() => assertIfMatch(etagOf(e), e)).not.toThrow();
    expect(() => assertIfMatch(`"x", ${etagOf(e)}`, e)).not.toThrow();
    expect(() => assertIfMatch(`"time-entry:${e.id}:r2"`, e)).toThrow(expect.objectContaining({ code: 'ETAG_MISMATCH' }));
    expect(() => assertIfMatch(`W/${etagOf(e)}`, e)).toThrow(expect.objectContaining({ code: 'ETAG_MISMATCH' }));
    expect(() => assertIfMatch('*', e)).toThrow(expect.objectContaining({ code: 'ETAG_MISMATCH' }));
  });
});

describe('changedAttributes', () => {
  const registered = entry({ context: { kind: 'REGISTERED_LOCATION', locationId: 'loc-1' } });

  it('is empty for a creation and names each changed field of a revision', () => {
    expect(changedAttributes(undefined, registered)).toEqual([]);
    expect(changedAttributes(registered, { ...registered, breakMinutes: registered.breakMinutes + 5, revision: 2 })).toEqual(['breakMinutes']);
    expect(changedAttributes(registered, { ...registered, startedAt: '2026-01-01T06:00:00.000Z', endedAt: null, state: 'OPEN' })).toEqual(['startedAt', 'endedAt', 'state']);
  });

  it('names the context, not its values, when the location or an ad-hoc context changes', () => {
    expect(changedAttributes(registered, { ...registered, context: { kind: 'REGISTERED_LOCATION', locationId: 'loc-2' } })).toEqual(['context']);
    const adHoc = { ...registered, context: { kind: 'VEHICLE_AD_HOC' as const, addressLabel: 'Van' } };
    expect(changedAttributes(registered, adHoc)).toEqual(['context']);
    // Same label, new coordinates: the sealed coordinates changed.
    expect(changedAttributes(adHoc, adHoc, { kind: 'VEHICLE_AD_HOC', addressLabel: 'Van', latitude: 1, longitude: 2 })).toEqual(['context']);
    expect(changedAttributes(registered, registered, { kind: 'REGISTERED_LOCATION', locationId: 'loc-1' })).toEqual([]);
  });
});
