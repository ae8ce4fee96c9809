import { employeeExistsCheck, EMPLOYEE_LABEL } from '../employees/public';
import { locationExistsCheck, LOCATION_LABEL } from '../locations/public';
import { FENCE_LABEL, fenceFromItem, planStaleness, reportKeys } from '../reports/public';
import type { SealedValue } from '../shared/crypto/restricted';
import type { Db } from '../shared/ddb/client';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import { ValidationError } from '../shared/errors';
import { projectScan, timesheetsStore, type ExportsPort } from '../timesheets/public';
import { EVENT_LABEL, getWorkEvent, putRestrictedEventData, putWorkEvent } from '../work-events/public';
import { EventAlreadyIngestedError, type EvidencePorts, type EvidenceStore, type WorkEventChange } from './domain';

/**
 * The evidence channel's writes of work events (their items and keys are the work-events
 * area's, reached through its port): an event is appended once, in the same transaction as
 * the projection it makes, and only while its employee and location exist.
 */

/**
 * Stages the event, its sealed restricted data, and the existence checks of its employee and
 * location. Audit: a projection is audited with its entry (time_entry.scan_*); the work event
 * is append-only evidence and is its own record.
 */
export function saveWorkEvent(unit: UnitOfWork, change: WorkEventChange): void {
  const { event } = change;
  const org = event.organizationId;
  unit.stage({
    items: [
      putWorkEvent(event),
      ...(change.restricted ? [putRestrictedEventData(org, event.id, change.restricted, event.serverTimestamp)] : []),
      employeeExistsCheck(org, event.employeeId),
      locationExistsCheck(org, event.locationId),
    ],
    audit: { auditedBy: 'the work event itself (append-only evidence); its projection by time_entry.scan_opened or time_entry.scan_closed' },
    explain: (error) => {
      if (error.failed(EVENT_LABEL)) return new EventAlreadyIngestedError(event.id);
      if (error.failed(EMPLOYEE_LABEL)) return new ValidationError([{ pointer: '/employeeId', detail: 'The employee does not exist in this organization.' }]);
      if (error.failed(LOCATION_LABEL)) return new ValidationError([{ pointer: '/locationId', detail: 'The location does not exist in this organization.' }]);
      return undefined;
    },
  });
}

/** The reports area as the exports port of the projections (a projection changes what exports contain, like any write). */
export const reportsExports: ExportsPort = { fenceLabel: FENCE_LABEL, fenceKey: reportKeys.fence, fenceFromItem, planStaleness };

/** The evidence channel's store on DynamoDB, staging writes in `unit`. */
export const evidenceStore = (db: Db, unit: UnitOfWork): EvidenceStore => ({
  getWorkEvent: (org, id) => getWorkEvent(db, org, id),
  saveWorkEvent: (change) => saveWorkEvent(unit, change),
});

/**
 * The ports of one event in `unit`: its work events, and the timesheets store for its
 * projection, both staging in the same unit of work, at one server time `at`.
 */
export function evidencePorts(db: Db, unit: UnitOfWork, at: Date, deps: { readonly newId: () => string; readonly seal: (value: unknown) => Promise<SealedValue> }): EvidencePorts {
  const now = () => at;
  return {
    events: evidenceStore(db, unit),
    project: (actor, scan) => projectScan({ store: timesheetsStore(db, unit, reportsExports), now, newId: deps.newId, seal: deps.seal }, actor, scan),
    now,
    seal: deps.seal,
  };
}
