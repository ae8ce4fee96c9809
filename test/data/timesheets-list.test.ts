import { randomUUID } from 'node:crypto';
import { commit } from '../../services/shared/ddb/transaction';
import type { Db } from '../../services/shared/ddb/client';
import type { TimeEntry } from '../../services/timesheets/domain';
import { putNewEntry } from '../../services/timesheets/store';
import { entryKeys } from '../../services/timesheets/model';
import { listEntries } from '../../services/timesheets/store-lists';
import { createTestTable } from '../support/table';

let db: Db;
let scanned = 0;
/** The attributes each Query returned, per item. */
let returnedAttributes: string[][] = [];
const ORG = '77777777-7777-4777-8777-777777777777';
const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const h = (hour: number, day = 2) => new Date(Date.UTC(2026, 2, day, hour)).toISOString();

const entry = (employeeId: string, startedAt: string, endedAt: string | null, state: TimeEntry['state'] = endedAt ? 'CLOSED' : 'OPEN'): TimeEntry => ({
  id: randomUUID(),
  organizationId: ORG,
  employeeId,
  context: { kind: 'REGISTERED_LOCATION', locationId: 'l' },
  startedAt,
  endedAt,
  breakMinutes: 0,
  origin: 'MANUAL',
  state,
  adjusted: false,
  revision: 1,
  createdAt: startedAt,
  updatedAt: startedAt,
});

const named: Record<string, TimeEntry> = {};
const MAX = 30 * 3_600_000; // the longest entry below lasts 30 hours

beforeAll(async () => {
  db = await createTestTable();
  db.doc.middlewareStack.add((next) => async (args) => {
    const out = await next(args);
    scanned += (out.output as { ScannedCount?: number }).ScannedCount ?? 0;
    returnedAttributes.push(...((out.output as { Items?: Record<string, unknown>[] }).Items ?? []).map((i) => Object.keys(i).sort()));
    return out;
  }, { step: 'initialize', name: 'countScanned' });
  Object.assign(named, {
    before: entry(A, h(1), h(8)), // ends exactly at `from` = 08:00: outside
    straddles: entry(A, h(6), h(10)), // starts before `from`, ends inside: inside
    inside: entry(B, h(9), h(11)),
    long: entry(B, h(0, 1), h(6, 2)), // 30 h, ends before from
    longInside: entry(A, h(20, 1), h(9, 2)), // 13 h, ends inside
    atTo: entry(A, h(12), h(13)), // starts exactly at `to` = 12:00: outside
    open: entry(B, h(7), null), // OPEN since 07:00: reaches into every later range
    voidedOpen: entry(A, h(11), null, 'VOIDED'),
  });
  for (const e of Object.values(named)) await commit(db, [putNewEntry(e)]);
  // A long history far before the range, which a bounded query never reads.
  for (let i = 0; i < 150; i += 1) await commit(db, [putNewEntry(entry(A, new Date(Date.UTC(2025, 0, 1, 0, i * 2)).toISOString(), new Date(Date.UTC(2025, 0, 1, 1, i * 2)).toISOString()))]);
});

const ids = (entries: TimeEntry[]) => entries.map((e) => Object.entries(named).find(([, v]) => v.id === e.id)?.[0] ?? 'history');

describe('listEntries', () => {
  it("reads only the entry's own attributes: no keys or index attributes to transfer and parse", async () => {
    returnedAttributes = [];
    const pages = [await listEntries(db, { organizationId: ORG, to: h(12) }, 5, MAX), await listEntries(db, { organizationId: ORG, from: h(8), to: h(12) }, 5, MAX), await listEntries(db, { organizationId: ORG, state: 'OPEN' }, 5, MAX)];
    expect(pages.every((p) => p.items.length > 0)).toBe(true);
    expect(returnedAttributes.length).toBeGreaterThan(0);
    for (const names of returnedAttributes) expect(names.filter((n) => /^(PK|SK|GSI\dPK|GSI\dSK|itemType)$/.test(n))).toEqual([]);
    // Nothing the entry holds is lost: every item of the range page is the entry as written.
    for (const item of pages[1].items) expect(item).toEqual(Object.values(named).find((e) => e.id === item.id));
  });

  it('returns the entries overlapping [from, to) in start order: straddling in, touching out, OPEN in', async () => {
    scanned = 0;
    const page = await listEntries(db, { organizationId: ORG, from: h(8), to: h(12) }, 50, MAX);
    expect(ids(page.items)).toEqual(['longInside', 'straddles', 'open', 'inside', 'voidedOpen']);
    expect(page.hasMore).toBe(false);
    expect(scanned).toBeLessThan(20);
  });

  it('filters by employee and state', async () => {
    expect(ids((await listEntries(db, { organizationId: ORG, employeeId: B, from: h(8), to: h(12) }, 50, MAX)).items)).toEqual(['open', 'inside']);
    expect(ids((await listEntries(db, { organizationId: ORG, state: 'OPEN' }, 50, MAX)).items)).toEqual(['open']);
    expect(ids((await listEntries(db, { organizationId: ORG, state: 'VOIDED', from: h(8), to: h(12) }, 50, MAX)).items)).toEqual(['voidedOpen']);
  });

  it('pages by position without losing or repeating entries', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await listEntries(db, { organizationId: ORG, after }, 7, MAX);
      seen.push(...page.items.map((e) => e.id));
      after = page.hasMore ? entryKeys.position(page.items.at(-1)!) : undefined;
    } while (after);
    expect(seen).toHaveLength(158);
    expect(new Set(seen).size).toBe(158);
  });

  it('reads a first page without touching the whole history', async () => {
    scanned = 0;
    const page = await listEntries(db, { organizationId: ORG, employeeId: A }, 10, MAX);
    expect(page.items).toHaveLength(10);
    expect(page.hasMore).toBe(true);
    // limit + 2 from the ended stream, plus the organization's OPEN entries: not the 150-entry history.
    expect(scanned).toBeLessThanOrEqual(15);
  });
});
