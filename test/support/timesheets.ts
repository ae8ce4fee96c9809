import { randomUUID } from 'node:crypto';
import { sealRestricted } from '../../services/shared/crypto/restricted';
import type { Db } from '../../services/shared/ddb/client';
import { inUnitOfWork } from '../../services/shared/ddb/unit-of-work';
import type { TimesheetPorts } from '../../services/timesheets/domain';
import { timesheetsStore } from '../../services/timesheets/store';
import { reportsExports } from '../../services/timesheets/store-exports';

/**
 * Runs a timesheets use case on `db` as the area handler does: in a unit of work with the
 * reports area's export port (staleness marks and the export fence), again while a read went
 * stale. `timesheetsIn(db)(ports => createTimeEntry(ports, actor, input))`.
 */
export const timesheetsIn =
  (db: Db) =>
  <T>(work: (ports: TimesheetPorts) => Promise<T>): Promise<T> =>
    inUnitOfWork(db, (unit) => work({ store: timesheetsStore(db, unit, reportsExports), now: () => new Date(), newId: randomUUID, seal: sealRestricted }));
