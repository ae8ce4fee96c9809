import { auditEntry } from '../audit/model';
import type { SystemActor } from '../shared/domain/actor';
import { ValidationError } from '../shared/errors';
import type { TimesheetPorts } from './domain';
import { auditSnapshot, changedAttributes, intervalErrors } from './domain-rules';
import type { TimeEntry } from './model';

/**
 * SCANNED entries: the projection of the evidence channel's scans (services/evidence-ingest)
 * into time entries, with the same revision items and checks as the API's writes. Evidence is
 * not an API write: no capability gate and no overlap refusal (the scan is what happened).
 */

/** One scan as the projection reads it. */
export interface Scan {
  readonly eventId: string;
  readonly employeeId: string;
  readonly locationId: string;
  readonly type: 'CHECK_IN' | 'CHECK_OUT';
  /** The instant scanned, RFC 3339 UTC. */
  readonly at: string;
  /** Only VERIFIED scans project; REVIEW_REQUIRED ones never do. */
  readonly verified: boolean;
}

export interface ScanProjection {
  readonly projection: 'OPENED' | 'CLOSED' | 'NONE';
  /** The entry the scan opened or closed; null when it projected nothing. */
  readonly timeEntryId: string | null;
}

const NOTHING: ScanProjection = { projection: 'NONE', timeEntryId: null };

/**
 * Projects one scan into the employee's SCANNED entries.
 * 1. Read the employee, location, guard, longest interval and export fence together; the
 *    employee and the location must be of this organization (422 at the evidence's field).
 * 2. Decide: a VERIFIED CHECK_IN without an OPEN entry opens a SCANNED entry (with one, the
 *    scan is kept but not projected); a VERIFIED CHECK_OUT closes the latest OPEN entry if
 *    that makes a valid interval (after its start, longer than its break).
 * 3. Stage the revision with its audit entry (actor: the system) and the stale exports.
 */
export async function projectScan(ports: TimesheetPorts, actor: SystemActor, scan: Scan): Promise<ScanProjection> {
  const org = actor.organizationId;
  const context = await ports.store.readRevisionContext(org, scan.employeeId, scan.locationId);
  if (!context.employeeExists) throw new ValidationError([{ pointer: '/employeeId', detail: 'The employee does not exist in this organization.' }]);
  if (!context.locationExists) throw new ValidationError([{ pointer: '/locationId', detail: 'The location does not exist in this organization.' }]);
  if (!scan.verified) return NOTHING;

  const now = ports.now().toISOString();
  const change = scan.type === 'CHECK_IN' ? openedBy(ports, org, scan, context.guard.openEntries, now) : await closedBy(ports, org, scan, context.guard.openEntries, now);
  if (!change) return NOTHING;
  const { before, after } = change;
  const stale = await ports.store.staleExports(context, before, after, { at: now, requestId: actor.requestId });
  const audit = auditEntry({
    id: ports.newId(),
    actor,
    occurredAt: now,
    action: before ? 'time_entry.scan_closed' : 'time_entry.scan_opened',
    entity: { type: 'time_entry', id: after.id },
    references: { employeeId: after.employeeId, workEventId: scan.eventId },
    before: before ? auditSnapshot(before) : undefined,
    after: auditSnapshot(after),
    changedAttributes: changedAttributes(before, after),
    staleExportManifestIds: stale.staleExportManifestIds,
  });
  ports.store.saveRevision({ context, before, after, stale, requires: { capability: false, employee: false }, audit });
  return { projection: before ? 'CLOSED' : 'OPENED', timeEntryId: after.id };
}

/** A check-in opens a SCANNED entry, unless one is OPEN already. */
function openedBy(ports: TimesheetPorts, org: string, scan: Scan, openEntries: Readonly<Record<string, string>>, now: string): { before?: TimeEntry; after: TimeEntry } | undefined {
  if (Object.keys(openEntries).length > 0) return undefined;
  const after: TimeEntry = {
    id: ports.newId(),
    organizationId: org,
    employeeId: scan.employeeId,
    context: { kind: 'REGISTERED_LOCATION', locationId: scan.locationId },
    startedAt: scan.at,
    endedAt: null,
    breakMinutes: 0,
    origin: 'SCANNED',
    state: 'OPEN',
    adjusted: false,
    revision: 1,
    createdAt: now,
    updatedAt: now,
    source: { eventIds: [scan.eventId], startedAt: scan.at, endedAt: null, breakMinutes: 0 },
  };
  return { after };
}

/**
 * A check-out closes the most recent OPEN entry, if the closed interval is valid: it started
 * before the check-out, and a break corrected in while it was OPEN is shorter than it.
 */
async function closedBy(ports: TimesheetPorts, org: string, scan: Scan, openEntries: Readonly<Record<string, string>>, now: string): Promise<{ before: TimeEntry; after: TimeEntry } | undefined> {
  const latest = Object.keys(openEntries).sort((a, b) => (openEntries[a] < openEntries[b] ? 1 : -1))[0];
  if (!latest) return undefined;
  const before = await ports.store.getEntry(org, latest);
  if (!before || before.state !== 'OPEN' || intervalErrors(before.startedAt, scan.at, before.breakMinutes).length > 0) return undefined;
  return {
    before,
    after: {
      ...before,
      endedAt: scan.at,
      state: 'CLOSED',
      revision: before.revision + 1,
      updatedAt: now,
      source: {
        eventIds: [...(before.source?.eventIds ?? []), scan.eventId],
        startedAt: before.source?.startedAt ?? before.startedAt,
        endedAt: scan.at,
        breakMinutes: before.source?.breakMinutes ?? 0,
      },
    },
  };
}
