import { z } from 'zod';
import type { SealedValue } from '../shared/crypto/restricted';
import type { Db } from '../shared/ddb/client';
import { inUnitOfWork, READ_ONLY_UNIT } from '../shared/ddb/unit-of-work';
import type { SystemActor } from '../shared/domain/actor';
import { parseInput } from '../shared/http/validation';
import { instant, uuid } from '../shared/time';
import { projectScan, timesheetsStore, type TimesheetPorts } from '../timesheets/public';
import type { WorkEvent } from '../work-events/public';
import { EventAlreadyIngestedError, evidenceStore, reportsExports } from './store';

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

/** The audit actor of every projection. */
const SYSTEM = 'Evidence ingest';

/**
 * Appends one work event and projects it, in one unit of work (run again from 2 while a
 * read went stale, e.g. a concurrent write for the same employee moved the guard).
 * 1. Validate (422 at the field).
 * 2. An event id seen before returns its first outcome: re-delivery is safe.
 * 3. Project it into the employee's SCANNED entries (timesheets' projectScan: 422 for an
 *    employee or location of another organization; VERIFIED check-ins open an entry,
 *    VERIFIED check-outs close it; REVIEW_REQUIRED never projects).
 * 4. Stage the event with the entry it projected into, its sealed restricted data and the
 *    existence checks; commit with the revision and its audit entry (actor SYSTEM). A
 *    concurrent delivery of the same id that committed first: its first outcome.
 */
export async function ingestEvidence(deps: IngestDeps, organizationId: string, raw: unknown): Promise<IngestResult> {
  const input = parseInput(evidenceSchema, raw, 'body');
  const id = input.id ?? deps.newId();
  const actor: SystemActor = { system: SYSTEM, organizationId, requestId: `ingest:${id}` };
  try {
    return await inUnitOfWork(deps.db, async (unit) => {
      const events = evidenceStore(deps.db, unit);
      const seen = await events.getWorkEvent(organizationId, id);
      if (seen) return duplicateOf(id, seen);
      const at = deps.now();
      const ports: TimesheetPorts = { store: timesheetsStore(deps.db, unit, reportsExports), now: () => at, newId: deps.newId, seal: deps.seal };
      const projected = await projectScan(ports, actor, {
        eventId: id,
        employeeId: input.employeeId,
        locationId: input.locationId,
        type: input.type,
        at: input.clientTimestamp,
        verified: input.verificationState === 'VERIFIED',
      });
      const event: WorkEvent = {
        id,
        organizationId,
        employeeId: input.employeeId,
        locationId: input.locationId,
        taskId: input.taskId ?? null,
        type: input.type,
        clientTimestamp: input.clientTimestamp,
        serverTimestamp: at.toISOString(),
        offline: input.offline,
        verificationState: input.verificationState,
        timeEntryId: projected.timeEntryId,
      };
      events.saveWorkEvent({ event, ...(input.restricted ? { restricted: await deps.seal(input.restricted) } : {}) });
      return { workEventId: id, timeEntryId: projected.timeEntryId, projection: projected.projection, duplicate: false };
    });
  } catch (error) {
    if (!(error instanceof EventAlreadyIngestedError)) throw error;
    const first = await evidenceStore(deps.db, READ_ONLY_UNIT).getWorkEvent(organizationId, id);
    return duplicateOf(id, first);
  }
}

const duplicateOf = (id: string, first: Pick<WorkEvent, 'timeEntryId'> | undefined): IngestResult => ({ workEventId: id, timeEntryId: first?.timeEntryId ?? null, projection: 'NONE', duplicate: true });
