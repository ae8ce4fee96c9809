import { sealedValueSchema } from '../shared/crypto/sealed-schema';
import * as z from 'zod';
import type { Key } from '../shared/ddb/read';

/**
 * Time entries as stored: each type is the output of its item schema, and items are parsed
 * with it on read (keys and item types are dropped, a malformed item fails loudly instead of
 * flowing on as a cast). Keys (docs/data-model.md):
 *   entry        PK ORG#<org>#TE#<id>            SK TE
 *   evidence     PK ORG#<org>#TE#<id>            SK EVIDENCE#r<revision>   (restricted, no index keys)
 *   guard        PK ORG#<org>#EMP#<employee>     SK TE_GUARD               (overlap guard of one employee)
 *   timeline     PK ORG#<org>#EMP#<employee>     SK TE#<startedAt>#<id>    (the employee's entries: id, interval, state)
 *   day          PK ORG#<org>#EMP#<employee>     SK TE_UTCDAY#<yyyy-mm-dd> (CLOSED entries touching that UTC day: e_<id> -> "<start>/<end>")
 *   stats        PK ORG#<org>                    SK TE_STATS               (longest closed entry)
 *   GSI1 ORG#<org>#TE                 / <startedAt>#<id>   entries of the organization by start
 *   GSI2 ORG#<org>#EMP#<employee>#TE  / <startedAt>#<id>   entries of one employee by start
 *   GSI3 ORG#<org>#TE#OPEN            / <startedAt>#<id>   OPEN entries only (sparse)
 * Intervals are half-open [startedAt, endedAt); instants are RFC 3339 UTC with milliseconds
 * (fixed width: they sort as text).
 */

const states = ['OPEN', 'CLOSED', 'VOIDED'] as const;

/** Where the work happened; ad-hoc coordinates are never part of it (restricted evidence only). */
const contextSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('REGISTERED_LOCATION'), locationId: z.string() }),
  z.object({ kind: z.literal('VEHICLE_AD_HOC'), addressLabel: z.string() }),
]);

/** SCANNED entries: the evidence they were projected from, as first projected. */
const sourceSchema = z
  .object({
    eventIds: z.array(z.string()).readonly(),
    startedAt: z.string(),
    endedAt: z.string().nullable(),
    breakMinutes: z.number().int(),
  })
  .readonly();

/** The current revision of a time entry: the effective interval timesheets, payroll and reports use. */
const timeEntryObject = z.object({
  id: z.string(),
  organizationId: z.string(),
  employeeId: z.string(),
  context: contextSchema,
  startedAt: z.string(),
  endedAt: z.string().nullable().default(null),
  breakMinutes: z.number().int(),
  origin: z.enum(['SCANNED', 'MANUAL']),
  state: z.enum(states),
  adjusted: z.boolean().default(false),
  revision: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  source: sourceSchema.optional(),
});
export const timeEntrySchema = timeEntryObject.readonly();
export type TimeEntry = z.output<typeof timeEntrySchema>;
/** The attributes of an entry item that make the entry (no keys, no index attributes): what a page projects. */
export const ENTRY_ATTRIBUTES: readonly string[] = Object.keys(timeEntryObject.shape);
export type Origin = TimeEntry['origin'];
export type EntryState = TimeEntry['state'];
export type EntryContext = TimeEntry['context'];
export type SourceEvidence = NonNullable<TimeEntry['source']>;

/**
 * The per-employee overlap guard: its version makes "check, then write" one atomic step. A
 * missing item reads as version 0 with no OPEN entries.
 */
export const overlapGuardSchema = z
  .object({
    organizationId: z.string(),
    employeeId: z.string(),
    version: z.number().int().default(0),
    /** OPEN entries of the employee: id -> startedAt (they reach to +infinity). */
    openEntries: z.record(z.string(), z.string()).readonly().default({}),
    /** Longest CLOSED/VOIDED interval the employee ever had: bounds the overlap window. */
    maxClosedDurationMs: z.number().default(0),
    /**
     * Every CLOSED entry of the employee is on its day items (or, touching more than
     * MAX_INDEXED_DAYS UTC days, in `longEntries`): a create reads those instead of the
     * timeline window. Set when the guard is first written; guards from before day items keep
     * the timeline Query until backfilled (`npm run backfill:overlap-days`).
     */
    dayIndex: z.boolean().default(false),
    /** CLOSED entries touching more than MAX_INDEXED_DAYS UTC days: id -> "<startedAt>/<endedAt>". */
    longEntries: z.record(z.string(), z.string()).readonly().default({}),
  })
  .readonly();
export type OverlapGuard = z.output<typeof overlapGuardSchema>;

/** An entry on its employee's timeline: what an overlap check and an export read consistently. */
export const timelineItemSchema = z
  .object({
    id: z.string(),
    startedAt: z.string(),
    endedAt: z.string().nullable().default(null),
    state: z.enum(states),
  })
  .readonly();
export type TimelineItem = z.output<typeof timelineItemSchema>;

/** The organization's longest closed interval: bounds the range window of lists. */
export const entryStatsSchema = z.object({ maxClosedDurationMs: z.number().default(0) }).readonly();

/** Sealed coordinates of an ad-hoc context, one item per revision that set them; never read by the API. */
export const restrictedEvidenceSchema = z
  .object({
    kind: z.literal('AD_HOC_POSITION'),
    sealed: sealedValueSchema,
    capturedAt: z.string(),
  })
  .readonly();
export type RestrictedEvidence = z.output<typeof restrictedEvidenceSchema>;

export const entryKeys = {
  entry: (org: string, id: string): Key => ({ PK: `ORG#${org}#TE#${id}`, SK: 'TE' }),
  evidence: (org: string, id: string, revision: number): Key => ({ PK: `ORG#${org}#TE#${id}`, SK: `EVIDENCE#r${String(revision).padStart(6, '0')}` }),
  guard: (org: string, employeeId: string): Key => ({ PK: `ORG#${org}#EMP#${employeeId}`, SK: 'TE_GUARD' }),
  timeline: (e: Pick<TimeEntry, 'organizationId' | 'employeeId' | 'startedAt' | 'id'>): Key => ({ PK: `ORG#${e.organizationId}#EMP#${e.employeeId}`, SK: `TE#${e.startedAt}#${e.id}` }),
  /** Sorts after TE_GUARD, so a correction's Query from the timeline up to the guard never reads it. */
  day: (org: string, employeeId: string, day: string): Key => ({ PK: `ORG#${org}#EMP#${employeeId}`, SK: `TE_UTCDAY#${day}` }),
  stats: (org: string): Key => ({ PK: `ORG#${org}`, SK: 'TE_STATS' }),
  byOrganization: (org: string) => `ORG#${org}#TE`,
  byEmployee: (org: string, employeeId: string) => `ORG#${org}#EMP#${employeeId}#TE`,
  open: (org: string) => `ORG#${org}#TE#OPEN`,
  position: (e: Pick<TimeEntry, 'startedAt' | 'id'>) => `${e.startedAt}#${e.id}`,
};

export function entryToItem(e: TimeEntry): Record<string, unknown> {
  const position = entryKeys.position(e);
  return {
    ...entryKeys.entry(e.organizationId, e.id),
    GSI1PK: entryKeys.byOrganization(e.organizationId),
    GSI1SK: position,
    GSI2PK: entryKeys.byEmployee(e.organizationId, e.employeeId),
    GSI2SK: position,
    ...(e.state === 'OPEN' ? { GSI3PK: entryKeys.open(e.organizationId), GSI3SK: position } : {}),
    itemType: 'TimeEntry',
    ...e,
  };
}

export const entryFromItem = (item: Record<string, unknown>): TimeEntry => timeEntrySchema.parse(item);

/** The guard of one employee from its item (undefined: not written yet, version 0). */
export const guardFromItem = (org: string, employeeId: string, item: Record<string, unknown> | undefined): OverlapGuard =>
  overlapGuardSchema.parse({ ...item, organizationId: org, employeeId });

/** The guard's item type: a correction's Query tells it from timeline items by it. */
export const GUARD_ITEM_TYPE = 'OverlapGuard';

export const guardToItem = (g: OverlapGuard): Record<string, unknown> => ({
  ...entryKeys.guard(g.organizationId, g.employeeId),
  itemType: GUARD_ITEM_TYPE,
  version: g.version,
  openEntries: g.openEntries,
  maxClosedDurationMs: g.maxClosedDurationMs,
  dayIndex: g.dayIndex,
  longEntries: g.longEntries,
});

/** A CLOSED entry on at most this many UTC days goes on day items; a longer one in the guard's `longEntries`. */
export const MAX_INDEXED_DAYS = 3;

export const DAY_ITEM_TYPE = 'OverlapDay';

/** The UTC days [startedAt, endedAt) touches, as yyyy-mm-dd (at most `max + 1`: enough to tell it is longer). */
export function utcDaysOf({ startedAt, endedAt }: { readonly startedAt: string; readonly endedAt: string }, max = MAX_INDEXED_DAYS): string[] {
  const days: string[] = [];
  const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const last = dayOf(Date.parse(endedAt) - 1);
  for (let at = Date.parse(dayOf(Date.parse(startedAt))); days.length <= max; at += 86_400_000) {
    const day = dayOf(at);
    days.push(day);
    if (day >= last) break;
  }
  return days;
}

/** The days a CLOSED entry is indexed on; none for an OPEN or VOIDED one, or a long one (the guard holds it). */
export function indexedDaysOf(e: Pick<TimeEntry, 'state' | 'startedAt' | 'endedAt'> | undefined): string[] {
  if (!e || e.state !== 'CLOSED' || e.endedAt === null) return [];
  const days = utcDaysOf({ startedAt: e.startedAt, endedAt: e.endedAt });
  return days.length > MAX_INDEXED_DAYS ? [] : days;
}

/** A CLOSED entry too long for day items: the guard lists it. */
export const isLongEntry = (e: Pick<TimeEntry, 'state' | 'startedAt' | 'endedAt'>): boolean =>
  e.state === 'CLOSED' && e.endedAt !== null && utcDaysOf({ startedAt: e.startedAt, endedAt: e.endedAt }).length > MAX_INDEXED_DAYS;

/** The attribute of one entry on a day item (top-level, so that SET and REMOVE need no parent map). */
export const dayAttribute = (entryId: string) => `e_${entryId}`;
export const intervalValue = (e: { readonly startedAt: string; readonly endedAt: string | null }) => `${e.startedAt}/${e.endedAt}`;

const candidateOf = (id: string, value: unknown): TimelineItem => {
  const [startedAt, endedAt] = z.string().parse(value).split('/');
  return timelineItemSchema.parse({ id, startedAt, endedAt, state: 'CLOSED' });
};

/** The version of a day item as read (0: no item, or one from before versions). */
export const dayVersionOf = (item: Record<string, unknown> | undefined): number => z.number().int().optional().parse(item?.version) ?? 0;

/** The CLOSED entries a day item lists. */
export const dayEntriesFromItem = (item: Record<string, unknown> | undefined): TimelineItem[] =>
  Object.entries(item ?? {})
    .filter(([name]) => name.startsWith('e_'))
    .map(([name, value]) => candidateOf(name.slice(2), value));

/** The long CLOSED entries a guard lists. */
export const longEntriesOf = (g: OverlapGuard): TimelineItem[] => Object.entries(g.longEntries).map(([id, value]) => candidateOf(id, value));

export const timelineToItem = (e: TimeEntry): Record<string, unknown> => ({
  ...entryKeys.timeline(e),
  itemType: 'TimelineEntry',
  id: e.id,
  startedAt: e.startedAt,
  endedAt: e.endedAt,
  state: e.state,
});

export const timelineFromItem = (item: Record<string, unknown>): TimelineItem => timelineItemSchema.parse(item);

/** The organization's longest closed interval (0 before the first entry). */
export const statsMaxDurationMs = (item: Record<string, unknown> | undefined): number => entryStatsSchema.parse(item ?? {}).maxClosedDurationMs;

export const statsToItem = (org: string, maxClosedDurationMs: number): Record<string, unknown> => ({ ...entryKeys.stats(org), itemType: 'TimeEntryStats', maxClosedDurationMs });

export const evidenceToItem = (org: string, entryId: string, revision: number, evidence: RestrictedEvidence): Record<string, unknown> => ({
  ...entryKeys.evidence(org, entryId, revision),
  itemType: 'RestrictedEvidence',
  ...evidence,
});

/** Length of a closed interval in milliseconds; 0 while OPEN. */
export const durationMs = (e: Pick<TimeEntry, 'startedAt' | 'endedAt'>): number => (e.endedAt === null ? 0 : Date.parse(e.endedAt) - Date.parse(e.startedAt));

/**
 * The guard after `before` became `after` (undefined: the entry is new): the OPEN entries it
 * lists, and the employee's longest interval (never lowered).
 */
export function nextGuard(guard: OverlapGuard, before: TimeEntry | undefined, after: TimeEntry): GuardChange {
  const openEntries = { ...guard.openEntries };
  const longEntries = { ...guard.longEntries };
  if (before) {
    delete openEntries[before.id];
    delete longEntries[before.id];
  }
  if (after.state === 'OPEN') openEntries[after.id] = after.startedAt;
  if (isLongEntry(after)) longEntries[after.id] = intervalValue(after);
  return {
    openEntries,
    longEntries,
    maxClosedDurationMs: Math.max(guard.maxClosedDurationMs, durationMs(after)),
    // A guard written for the first time has seen every entry of the employee: none yet.
    dayIndex: guard.version === 0 || guard.dayIndex,
  };
}

export type GuardChange = Pick<OverlapGuard, 'openEntries' | 'maxClosedDurationMs' | 'longEntries' | 'dayIndex'>;
