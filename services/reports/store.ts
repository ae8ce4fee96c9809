import { employeeKeys } from '../employees/public';
import { locationKeys } from '../locations/public';
import type { Db } from '../shared/ddb/client';
import { batchGet } from '../shared/ddb/read';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import { logger } from '../shared/logger';
import type { JobQueue, ReportStore } from './domain';
import { jobToItem } from './model';
import { JOB_LABEL } from './store-jobs';
import { getManifest, manifestsCovering } from './store-manifests';

/**
 * The reports store port of the API (domain.ts, ReportStore) on DynamoDB: requesting an
 * export stages the job in the request's unit of work and sends its message after the
 * commit. The reads of the API are in store-jobs.ts and store-manifests.ts.
 */
export function reportsStore(db: Db, unit: UnitOfWork, queue: JobQueue): ReportStore {
  return {
    getManifest: (org, id) => getManifest(db, org, id),
    manifestsCovering: (org, months) => manifestsCovering(db, org, months),

    async existing(org, { employeeIds, locationIds }) {
      const found = await batchGet(db, [...employeeIds.map((id) => employeeKeys.employee(org, id)), ...locationIds.map((id) => locationKeys.location(org, id))]);
      return {
        employees: new Set(employeeIds.filter((_, i) => found[i] !== undefined)),
        locations: new Set(locationIds.filter((_, i) => found[employeeIds.length + i] !== undefined)),
      };
    },

    saveNewJob(job, audit) {
      unit.stage({ items: [{ label: JOB_LABEL, op: { Put: { Item: jobToItem(job), ConditionExpression: 'attribute_not_exists(PK)' } } }], audit });
    },

    dispatchAfterCommit(message) {
      // The job is committed and due: a send that fails is the sweeper's to repeat, not the caller's error.
      unit.afterCommit(async () => {
        try {
          await queue.send(message);
        } catch (error) {
          logger.warn('Sending a report job failed; the sweeper sends it again', { error: error as Error, jobId: message.jobId });
        }
      });
    },
  };
}
