import type { SealedValue } from '../shared/crypto/restricted';
import type { SystemActor } from '../shared/domain/actor';
import type { Scan, ScanProjection } from '../timesheets/public';
import type { WorkEvent } from '../work-events/public';

/**
 * The internal evidence channel: the scan service (outside the public API) appends work
 * events here after validating credentials and transitions. VERIFIED check-ins open a
 * SCANNED entry, VERIFIED check-outs close it; REVIEW_REQUIRED events never project.
 * Evidence is not an API write: no capability gate and no overlap refusal (the scan is
 * what happened); a check-in while an entry is already OPEN is kept but not projected.
 */

/** The event id was appended by a concurrent delivery of the same event: answer its first outcome. */
export class EventAlreadyIngestedError extends Error {
  constructor(readonly eventId: string) {
    super(`Work event ${eventId} was ingested by a concurrent delivery.`);
    this.name = 'EventAlreadyIngestedError';
  }
}

export interface WorkEventChange {
  readonly event: WorkEvent;
  /** The sealed QR id, device, position and validation of the scan. */
  readonly restricted?: SealedValue;
}

/** The work events the channel reads and appends (staged in the unit of work of one event). */
export interface EvidenceStore {
  getWorkEvent(organizationId: string, id: string): Promise<Pick<WorkEvent, 'timeEntryId'> | undefined>;
  /** Stages the event with existence checks of its employee and location; a concurrent append of the same id is EventAlreadyIngestedError. */
  saveWorkEvent(change: WorkEventChange): void;
}

export interface EvidencePorts {
  readonly events: EvidenceStore;
  /** Projects a scan into the employee's SCANNED entries, staged in the same unit of work (timesheets' projectScan). */
  readonly project: (actor: SystemActor, scan: Scan) => Promise<ScanProjection>;
  /** The server time of this event: the same instant for the event and its projection. */
  readonly now: () => Date;
  readonly seal: (value: unknown) => Promise<SealedValue>;
}

/** One scan as the channel received it, validated (schemas.ts). */
export interface ScanEvidence {
  readonly id: string;
  readonly employeeId: string;
  readonly locationId: string;
  readonly taskId?: string | null;
  readonly type: 'CHECK_IN' | 'CHECK_OUT';
  readonly clientTimestamp: string;
  readonly offline: boolean;
  readonly verificationState: 'VERIFIED' | 'REVIEW_REQUIRED';
  readonly restricted?: Readonly<Record<string, unknown>>;
}

export type Projection = ScanProjection['projection'];

export interface IngestResult {
  readonly workEventId: string;
  readonly timeEntryId: string | null;
  readonly projection: Projection;
  /** True when the event id was already ingested (nothing changed). */
  readonly duplicate: boolean;
}

/** The audit actor of every projection. */
export const EVIDENCE_SYSTEM = 'Evidence ingest';

/** The actor of one event's projection: the channel, correlated with the event's id. */
export const ingestActor = (organizationId: string, eventId: string): SystemActor => ({ system: EVIDENCE_SYSTEM, organizationId, requestId: `ingest:${eventId}` });

/**
 * Appends one work event and projects it (the caller runs this in one unit of work, again
 * from 1 while a read went stale, e.g. a concurrent write for the same employee moved the guard).
 * 1. An event id seen before returns its first outcome: re-delivery is safe.
 * 2. Project it into the employee's SCANNED entries (422 for an employee or location of
 *    another organization; VERIFIED check-ins open an entry, VERIFIED check-outs close it;
 *    REVIEW_REQUIRED never projects).
 * 3. Stage the event with the entry it projected into and its sealed restricted data; the
 *    projection's revision carries its audit entry (actor SYSTEM).
 */
export async function ingestScan(ports: EvidencePorts, organizationId: string, input: ScanEvidence): Promise<IngestResult> {
  const { id } = input;
  const seen = await ports.events.getWorkEvent(organizationId, id);
  if (seen) return duplicateOf(id, seen);
  const at = ports.now();
  const projected = await ports.project(ingestActor(organizationId, id), {
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
  ports.events.saveWorkEvent({ event, ...(input.restricted ? { restricted: await ports.seal(input.restricted) } : {}) });
  return { workEventId: id, timeEntryId: projected.timeEntryId, projection: projected.projection, duplicate: false };
}

/** The answer to an event id delivered again: its first outcome, nothing changed. */
export const duplicateOf = (id: string, first: Pick<WorkEvent, 'timeEntryId'> | undefined): IngestResult => ({
  workEventId: id,
  timeEntryId: first?.timeEntryId ?? null,
  projection: 'NONE',
  duplicate: true,
});
