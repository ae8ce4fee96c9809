import { guardFromItem, indexedDaysOf, isLongEntry, MAX_INDEXED_DAYS, nextGuard, utcDaysOf, type TimeEntry } from '../../services/timesheets/model';
import { dayItems } from '../../services/timesheets/store';

const entry = (over: Partial<TimeEntry>): TimeEntry => ({
  id: 'e1',
  organizationId: 'o',
  employeeId: 'p',
  context: { kind: 'REGISTERED_LOCATION', locationId: 'l' },
  startedAt: '2026-03-01T08:00:00.000Z',
  endedAt: '2026-03-01T12:00:00.000Z',
  breakMinutes: 0,
  origin: 'MANUAL',
  state: 'CLOSED',
  adjusted: false,
  revision: 1,
  createdAt: '2026-03-01T12:00:00.000Z',
  updatedAt: '2026-03-01T12:00:00.000Z',
  ...over,
});

describe('utcDaysOf', () => {
  it.each([
    ['one day', '2026-03-01T08:00:00.000Z', '2026-03-01T12:00:00.000Z', ['2026-03-01']],
    ['an end at midnight stays on its day (half-open)', '2026-03-01T20:00:00.000Z', '2026-03-02T00:00:00.000Z', ['2026-03-01']],
    ['across midnight', '2026-03-01T22:00:00.000Z', '2026-03-02T00:00:00.001Z', ['2026-03-01', '2026-03-02']],
    ['across a month end', '2026-02-28T22:00:00.000Z', '2026-03-01T02:00:00.000Z', ['2026-02-28', '2026-03-01']],
    ['an offset is a UTC instant', '2026-03-01T23:30:00+02:00', '2026-03-02T01:00:00+02:00', ['2026-03-01']],
  ])('%s', (_what, startedAt, endedAt, days) => {
    expect(utcDaysOf({ startedAt, endedAt })).toEqual(days);
  });

  it('stops one day past the bound, enough to tell an entry is long', () => {
    expect(utcDaysOf({ startedAt: '2026-03-01T08:00:00.000Z', endedAt: '2026-04-01T08:00:00.000Z' })).toHaveLength(MAX_INDEXED_DAYS + 1);
  });
});

describe('indexedDaysOf and isLongEntry', () => {
  it('indexes CLOSED entries on at most MAX_INDEXED_DAYS days; OPEN, VOIDED and long ones on none', () => {
    expect(indexedDaysOf(entry({}))).toEqual(['2026-03-01']);
    expect(indexedDaysOf(entry({ state: 'OPEN', endedAt: null }))).toEqual([]);
    expect(indexedDaysOf(entry({ state: 'VOIDED' }))).toEqual([]);
    expect(indexedDaysOf(entry({ endedAt: '2026-03-03T23:59:00.000Z' }))).toEqual(['2026-03-01', '2026-03-02', '2026-03-03']);
    const long = entry({ endedAt: '2026-03-04T00:00:00.001Z' });
    expect([indexedDaysOf(long), isLongEntry(long)]).toEqual([[], true]);
    expect(isLongEntry(entry({ state: 'VOIDED', endedAt: '2026-03-09T00:00:00.000Z' }))).toBe(false);
  });
});

describe('nextGuard', () => {
  const guard = (item?: Record<string, unknown>) => guardFromItem('o', 'p', item);

  it('marks a guard written for the first time as indexed, and keeps an old one unmarked', () => {
    expect(nextGuard(guard(), undefined, entry({})).dayIndex).toBe(true);
    expect(nextGuard(guard({ version: 4 }), undefined, entry({})).dayIndex).toBe(false);
    expect(nextGuard(guard({ version: 4, dayIndex: true }), undefined, entry({})).dayIndex).toBe(true);
  });

  it('lists a long CLOSED entry and takes it out when it is voided or shortened', () => {
    const long = entry({ endedAt: '2026-03-06T08:00:00.000Z' });
    const listed = nextGuard(guard(), undefined, long);
    expect(listed.longEntries).toEqual({ e1: '2026-03-01T08:00:00.000Z/2026-03-06T08:00:00.000Z' });
    const withLong = guard({ version: 1, ...listed });
    expect(nextGuard(withLong, long, { ...long, state: 'VOIDED', revision: 2 }).longEntries).toEqual({});
    expect(nextGuard(withLong, long, { ...long, endedAt: '2026-03-01T16:00:00.000Z', revision: 2 }).longEntries).toEqual({});
  });
});

describe('dayItems', () => {
  const ops = (items: ReturnType<typeof dayItems>) => items.map(({ op }) => ('Update' in op ? [op.Update.Key?.SK, op.Update.UpdateExpression] : ['not an update', Object.keys(op)[0]]));

  it('lists a new CLOSED entry on each day it touches', () => {
    expect(ops(dayItems(undefined, entry({ startedAt: '2026-03-01T22:00:00.000Z', endedAt: '2026-03-02T02:00:00.000Z' })))).toEqual([
      ['TE_UTCDAY#2026-03-01', 'SET #entry = :interval, #type = :type, #version = if_not_exists(#version, :zero) + :one'],
      ['TE_UTCDAY#2026-03-02', 'SET #entry = :interval, #type = :type, #version = if_not_exists(#version, :zero) + :one'],
    ]);
  });

  it('moves an entry: one update per day, the days it left lose it', () => {
    const before = entry({});
    const after = entry({ startedAt: '2026-03-01T23:00:00.000Z', endedAt: '2026-03-02T01:00:00.000Z', revision: 2 });
    expect(ops(dayItems(before, after))).toEqual([
      ['TE_UTCDAY#2026-03-01', 'SET #entry = :interval, #type = :type, #version = if_not_exists(#version, :zero) + :one'],
      ['TE_UTCDAY#2026-03-02', 'SET #entry = :interval, #type = :type, #version = if_not_exists(#version, :zero) + :one'],
    ]);
    expect(ops(dayItems(after, { ...after, startedAt: '2026-03-05T08:00:00.000Z', endedAt: '2026-03-05T09:00:00.000Z', revision: 3 }))).toEqual([
      ['TE_UTCDAY#2026-03-01', 'REMOVE #entry SET #version = if_not_exists(#version, :zero) + :one'],
      ['TE_UTCDAY#2026-03-02', 'REMOVE #entry SET #version = if_not_exists(#version, :zero) + :one'],
      ['TE_UTCDAY#2026-03-05', 'SET #entry = :interval, #type = :type, #version = if_not_exists(#version, :zero) + :one'],
    ]);
  });

  it('conditions each day item a create read on its version as read, and no other', () => {
    const night = entry({ startedAt: '2026-03-01T22:00:00.000Z', endedAt: '2026-03-02T02:00:00.000Z' });
    const conditions = dayItems(undefined, night, { '2026-03-01': 0, '2026-03-02': 7 }).map(({ op }) => ('Update' in op ? [op.Update.ConditionExpression, op.Update.ExpressionAttributeValues?.[':read']] : []));
    expect(conditions).toEqual([['attribute_not_exists(#version)', undefined], ['#version = :read', 7]]);
    expect(dayItems(undefined, night).map(({ op }) => ('Update' in op ? op.Update.ConditionExpression : 'not an update'))).toEqual([undefined, undefined]);
  });

  it('writes nothing for an OPEN entry or a break change, and removes a voided one', () => {
    expect(dayItems(undefined, entry({ state: 'OPEN', endedAt: null }))).toEqual([]);
    expect(dayItems(entry({}), entry({ breakMinutes: 30, revision: 2 }))).toEqual([]);
    expect(ops(dayItems(entry({}), entry({ state: 'VOIDED', revision: 2 })))).toEqual([['TE_UTCDAY#2026-03-01', 'REMOVE #entry SET #version = if_not_exists(#version, :zero) + :one']]);
    expect(ops(dayItems(entry({ state: 'OPEN', endedAt: null }), entry({ revision: 2 })))).toEqual([['TE_UTCDAY#2026-03-01', 'SET #entry = :interval, #type = :type, #version = if_not_exists(#version, :zero) + :one']]);
  });
});
