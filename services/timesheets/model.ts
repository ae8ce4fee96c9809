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
export const timeEntrySchema = z
  .object({
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
  })
  .readonly();
export type TimeEntry = z.output<typeof timeEntrySchema>;
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
});

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
export function nextGuard(guard: OverlapGuard, before: TimeEntry | undefined, after: TimeEntry): Pick<OverlapGuard, 'openEntries' | 'maxClosedDurationMs'> {
  const openEntries = { ...guard.openEntries };
  if (before) delete openEntries[before.id];
  if (after.state === 'OPEN') openEntries[after.id] = after.startedAt;
  return { openEntries, maxClosedDurationMs: Math.max(guard.maxClosedDurationMs, durationMs(after)) };
}
