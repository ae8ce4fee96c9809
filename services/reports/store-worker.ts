import { randomUUID } from 'node:crypto';
import { getEmployees, listEmployeesPage } from '../employees/public';
import { getOrganization, settingsOf } from '../organization/public';
import { publishedShiftsStartingIn } from '../planning/public';
import { locationKeys } from '../locations/public';
import { defaultDb, type Db } from '../shared/ddb/client';
import { batchGet } from '../shared/ddb/read';
import { TransactionCancelledError } from '../shared/ddb/transaction';
import { inUnitOfWork } from '../shared/ddb/unit-of-work';
import { AppError } from '../shared/errors';
import { entriesOfEmployeeStartingIn } from '../timesheets/public';
import type { PersonInfo } from './domain-files';
import { renderPdf } from './domain-pdf';
import { ExportWentStaleError, type WorkerPorts, type WorkerStore } from './domain-worker';
import { failJob, getJob, jobSucceededItem, takeJob, updateProgress } from './store-jobs';
import { fileStore } from './store-files';
import { loadFonts } from './store-fonts';
import { abandonManifest, MANIFEST_LABEL, openManifest, outboxItem, publishManifestItems, putManifestEntries, REPLACED_LABEL, supersedeItem } from './store-manifests';

/**
 * The worker's and the sweeper's store ports on DynamoDB (domain-worker.ts). The worker
 * reads employees, locations and entries through those areas' ports; publishing is one
 * unit of work with its audit entry.
 */
export function reportsWorkerStore(db: Db): WorkerStore {
  return {
    getJob: (org, id) => getJob(db, org, id),
    takeJob: (job, runId, now, leaseBefore) => takeJob(db, job, runId, now, leaseBefore),
    updateProgress: (job, runId, progress, now) => updateProgress(db, job, runId, progress, now),
    failJob: (job, runId, reason, now) => failJob(db, job, runId, reason, now),
    openManifest: (manifest, months, refuse) => openManifest(db, manifest, months, refuse),

    async employeeIds(org) {
      const ids: string[] = [];
      let after: string | undefined;
      do {
        const page = await listEmployeesPage(db, org, { limit: 500, ...(after ? { after } : {}) });
        ids.push(...page.employees.map((e) => e.id));
        after = page.after;
      } while (after);
      return ids;
    },

    entriesOf: (org, employeeId, period) => entriesOfEmployeeStartingIn(db, org, employeeId, period.from, period.to),

    async people(org, employeeIds) {
      const employees = await getEmployees(db, org, employeeIds);
      return new Map<string, PersonInfo>(employees.map((e) => [e.id, { displayName: e.displayName ?? e.userName, employeeNumber: e.employeeNumber ?? null, externalId: e.externalId ?? null }]));
    },

    async organization(org) {
      const found = await getOrganization(db, org);
      const settings = found ? settingsOf(found) : undefined;
      return { name: found?.name ?? org, presentation: { timeZone: settings?.timeZone ?? 'UTC', locale: settings?.locale ?? 'en', weekStartsOn: settings?.weekStartsOn ?? 'MONDAY' } };
    },

    async plannedShifts(org, employeeId, period) {
      const shifts = await publishedShiftsStartingIn(db, org, employeeId, period.from, period.to);
      return shifts.map((s) => ({ locationId: s.locationId, startsAt: s.startsAt, endsAt: s.endsAt, breakMinutes: s.breakMinutes }));
    },

    async locationNames(org, locationIds) {
      const items = locationIds.length > 0 ? await batchGet(db, locationIds.map((id) => locationKeys.location(org, id))) : [];
      const names = new Map<string, string>();
      items.forEach((item, i) => {
        if (item && typeof item.name === 'string') names.set(locationIds[i], item.name);
      });
      return names;
    },

    putManifestEntries: (org, manifestId, entries) => putManifestEntries(db, org, manifestId, entries),

    async publish(change) {
      const { manifest, job } = change;
      await inUnitOfWork(db, async (unit) => {
        unit.stage({
          items: [
            ...publishManifestItems(manifest, change.months, change.published),
            jobSucceededItem(job, change.runId, { manifestId: manifest.id, progress: change.progress }, change.published.publishedAt!),
            ...(change.outbox ? [outboxItem(change.outbox)] : []),
            ...(job.replacesManifestId ? [supersedeItem(job.organizationId, job.replacesManifestId, manifest.id)] : []),
          ],
          audit: change.audit,
          explain: (error: TransactionCancelledError) => {
            if (error.failed(MANIFEST_LABEL)) return new ExportWentStaleError();
            if (error.failed(REPLACED_LABEL)) return new AppError('VALIDATION_ERROR', `Manifest ${job.replacesManifestId} was replaced meanwhile; nothing was published.`);
            return undefined;
          },
        });
      });
    },

    abandonManifest: (org, manifest, months) => abandonManifest(db, org, manifest, months),
  };
}

/** The worker's ports in a Lambda (or the local process). */
export const workerPorts = (db: Db = defaultDb()): WorkerPorts => ({
  store: reportsWorkerStore(db),
  files: fileStore(),
  renderPdf: async (model) => renderPdf(model, await loadFonts()),
  now: () => new Date(),
  newId: randomUUID,
});
