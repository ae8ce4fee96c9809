import { z } from 'zod';
import { auditItem } from '../audit/model';
import { employeeExistsCheck, employeeKeys } from '../employees/public';
import { locationExistsCheck, locationKeys } from '../locations/public';
import type { SealedValue } from '../shared/crypto/restricted';
import type { Db } from '../shared/ddb/client';
import { batchGet } from '../shared/ddb/read';
import { commit, jitteredBackoff, TransactionCancelledError, type TxItem } from '../shared/ddb/transaction';
import { TransactionConflictError, ValidationError } from '../shared/errors';
import { parseInput } from '../shared/http/validation';
import { instant, uuid } from '../shared/time';
import { revisionItems } from '../timesheets/public';
import { auditSnapshot, intervalErrors, type TimeEntry } from '../timesheets/public';
import { entryKeys, entryFromItem, GUARD_LABEL, guardFromItem, STATS_LABEL, ENTRY_LABEL } from '../timesheets/public';
import { FENCE_LABEL, fenceFromItem, planStaleness, reportKeys } from '../reports/public';
import { EVENT_LABEL, getWorkEvent, putRestrictedEventData, putWorkEvent, type WorkEvent } from '../work-events/public';

/**
 * The internal evidence channel: the scan service (outside the public API) appends work
 * events here after validating credentials and transitions. VERIFIED check-ins open a
 * SCANNED entry, VERIFIED check-outs close it; REVIEW_REQUIRED events never project.
 * Evidence is not an API write: no capability gate and no overlap refusal (the scan is
 * what happened); a check-in while an entry is already OPEN is kept but not projected.
 */
export const evidenceSchema = z
  .object({
    id: uuid().optional(),
    employeeId: uuid(),
    locationId: uuid(),
    taskId: uuid().nullable().optional(),
    type: z.enum(['CHECK_IN', 'CHECK_OUT']),
    clientTimestamp: instant(),
    offline: z.boolean(),
    verificationState: z.enum(['VERIFIED', 'REVIEW_REQUIRED']),
    /** Never returned by the API; stored sealed. */
    restricted: z
      .object({
        qrPublicId: z.string().max(200).optional(),
        deviceId: z.string().max(200).optional(),
        latitude: z.number().min(-90).max(90).optional(),
        longitude: z.number().min(-180).max(180).optional(),
        accuracyMeters: z.number().min(0).optional(),
        validation: z.record(z.string(), z.unknown()).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type EvidenceInput = z.input<typeof evidenceSchema>;

export interface IngestDeps {
  readonly db: Db;
  readonly now: () => Date;
  readonly newId: () => string;
  readonly seal: (value: unknown) => Promise<SealedValue>;
}

export type Projection = 'OPENED' | 'CLOSED' | 'NONE';

export interface IngestResult {
  readonly workEventId: string;
  readonly timeEntryId: string | null;
  readonly projection: Projection;
  /** True when the event id was already ingested (nothing changed). */
  readonly duplicate: boolean;
}

const ATTEMPTS = 5;

/**
 * Appends one work event and projects it.
 * 1. Validate; an event id seen before returns its first outcome (re-delivery is safe).
 * 2. Read the employee, location, overlap guard and organization stats in one BatchGetItem.
 * 3. Project: VERIFIED CHECK_IN without an OPEN entry -> new SCANNED OPEN entry;
 *    VERIFIED CHECK_OUT that makes a valid interval of the OPEN entry (after its start, longer
 *    than its break) -> that entry CLOSED (next revision).
 * 4. Commit ONE transaction: event, sealed restricted data, entry and its timeline item,
 *    guard, audit (actor SYSTEM).
 */
export async function ingestEvidence(deps: IngestDeps, organizationId: string, raw: unknown): Promise<IngestResult> {
  const input = parseInput(evidenceSchema, raw, 'body');
  const id = input.id ?? deps.newId();
  const seen = await getWorkEvent(deps.db, organizationId, id);
  if (seen) return { workEventId: id, timeEntryId: seen.timeEntryId, projection: 'NONE', duplicate: true };

  for (let attempt = 1; ; attempt += 1) {
    const [employee, location, guardItem, stats, fenceItem] = await batchGet(deps.db, [
      employeeKeys.employee(organizationId, input.employeeId),
      locationKeys.location(organizationId, input.locationId),
      entryKeys.guard(organizationId, input.employeeId),
      entryKeys.stats(organizationId),
      reportKeys.fence(organizationId),
    ]);
    if (!employee) throw new ValidationError([{ pointer: '/employeeId', detail: 'The employee does not exist in this organization.' }]);
    if (!location) throw new ValidationError([{ pointer: '/locationId', detail: 'The location does not exist in this organization.' }]);
    const guard = guardFromItem(organizationId, input.employeeId, guardItem);
    const now = deps.now().toISOString();

    const projected = await project(deps, organizationId, id, input, guard.openEntries, now);
    const event: WorkEvent = {
      id,
      organizationId,
      employeeId: input.employeeId,
      locationId: input.locationId,
      taskId: input.taskId ?? null,
      type: input.type,
      clientTimestamp: input.clientTimestamp,
      serverTimestamp: now,
      offline: input.offline,
      verificationState: input.verificationState,
      timeEntryId: projected?.after.id ?? null,
    };
    const items: TxItem[] = [
      putWorkEvent(event),
      ...(input.restricted ? [putRestrictedEventData(organizationId, id, await deps.seal(input.restricted), now)] : []),
      employeeExistsCheck(organizationId, input.employeeId),
      locationExistsCheck(organizationId, input.locationId),
    ];
    if (projected) {
      const { before, after } = projected;
      // A projection changes what exports of its period contain, like any other write.
      const stale = await planStaleness(deps.db, fenceFromItem(organizationId, fenceItem), before, after, { at: now, requestId: `ingest:${id}` });
      items.push(
        ...revisionItems(guard, (stats?.maxClosedDurationMs as number | undefined) ?? 0, before, after, stale),
        auditItem({
          id: deps.newId(),
          organizationId,
          occurredAt: now,
          actor: { type: 'SYSTEM', label: 'Evidence ingest' },
          action: before ? 'time_entry.scan_closed' : 'time_entry.scan_opened',
          entity: { type: 'time_entry', id: after.id },
          references: { employeeId: after.employeeId, workEventId: id },
          ...(before ? { before: auditSnapshot(before) } : {}),
          after: auditSnapshot(after),
          staleExportManifestIds: stale.staleExportManifestIds,
          requestId: `ingest:${id}`,
        }),
      );
    }
    try {
      await commit(deps.db, items);
      return { workEventId: id, timeEntryId: event.timeEntryId, projection: projected ? (projected.before ? 'CLOSED' : 'OPENED') : 'NONE', duplicate: false };
    } catch (error) {
      if (!(error instanceof TransactionCancelledError)) throw error;
      if (error.failed(EVENT_LABEL)) {
        const first = await getWorkEvent(deps.db, organizationId, id);
        return { workEventId: id, timeEntryId: first?.timeEntryId ?? null, projection: 'NONE', duplicate: true };
      }
      const raced = error.failed(GUARD_LABEL) || error.failed(STATS_LABEL) || error.failed(ENTRY_LABEL) || error.failed(FENCE_LABEL);
      if (!raced) throw error;
      if (attempt >= ATTEMPTS) throw new TransactionConflictError({ cause: error });
      await new Promise((resolve) => setTimeout(resolve, jitteredBackoff(attempt)));
    }
  }
}

async function project(
  deps: IngestDeps,
  org: string,
  eventId: string,
  input: z.output<typeof evidenceSchema>,
  openEntries: Readonly<Record<string, string>>,
  now: string,
): Promise<{ before?: TimeEntry; after: TimeEntry } | undefined> {
  if (input.verificationState !== 'VERIFIED') return undefined;
  const openIds = Object.keys(openEntries);
  if (input.type === 'CHECK_IN') {
    if (openIds.length > 0) return undefined;
    return {
      after: {
        id: deps.newId(),
        organizationId: org,
        employeeId: input.employeeId,
        context: { kind: 'REGISTERED_LOCATION', locationId: input.locationId },
        startedAt: input.clientTimestamp,
        endedAt: null,
        breakMinutes: 0,
        origin: 'SCANNED',
        state: 'OPEN',
        adjusted: false,
        revision: 1,
        createdAt: now,
        updatedAt: now,
        source: { eventIds: [eventId], startedAt: input.clientTimestamp, endedAt: null, breakMinutes: 0 },
      },
    };
  }
  // CHECK_OUT closes the most recent OPEN entry, if the closed interval is valid: it started
  // before the check-out, and a break corrected in while it was OPEN is shorter than it.
  const latest = openIds.sort((a, b) => (openEntries[a] < openEntries[b] ? 1 : -1))[0];
  if (!latest) return undefined;
  const [item] = await batchGet(deps.db, [entryKeys.entry(org, latest)]);
  if (!item) return undefined;
  const before = entryFromItem(item);
  if (before.state !== 'OPEN' || intervalErrors(before.startedAt, input.clientTimestamp, before.breakMinutes).length > 0) return undefined;
  return {
    before,
    after: {
      ...before,
      endedAt: input.clientTimestamp,
      state: 'CLOSED',
      revision: before.revision + 1,
      updatedAt: now,
      source: {
        eventIds: [...(before.source?.eventIds ?? []), eventId],
        startedAt: before.source?.startedAt ?? before.startedAt,
        endedAt: input.clientTimestamp,
        breakMinutes: before.source?.breakMinutes ?? 0,
      },
    },
  };
}
