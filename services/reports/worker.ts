import { randomUUID } from 'node:crypto';
import { auditItem } from '../audit/model';
import { employeeKeys, getEmployees } from '../employees/public';
import { locationKeys } from '../locations/public';
import { defaultDb, type Db } from '../shared/ddb/client';
import { batchGet, collectAll } from '../shared/ddb/read';
import { commit, TransactionCancelledError, type TxItem } from '../shared/ddb/transaction';
import { AppError } from '../shared/errors';
import { logger } from '../shared/logger';
import type { TimeEntry } from '../timesheets/public';
import { entriesOfEmployeeStartingIn } from '../timesheets/public';
import { contentHash, FILE_FORMAT, includes, monthlyRows, monthsOf, payrollRows, timesheetRows, toCsv, type PersonInfo } from './domain';
import { fileStore, type FileStore } from './files';
import { renderPdfTable } from './pdf';
import type { JobMessage } from './queue';
import {
  abandonManifest,
  FENCE_LABEL,
  fenceFromItem,
  getJob,
  jobTransition,
  MANIFEST_LABEL,
  openManifestItems,
  publishManifestItems,
  putManifestEntries,
  putOutboxRecord,
  reportKeys,
  supersedeItem,
  updateJob,
  type Manifest,
  type ReportJob,
} from './store';

export interface WorkerDeps {
  readonly db: Db;
  readonly files: FileStore;
  readonly now: () => Date;
  readonly newId: () => string;
}

export const defaultWorkerDeps = (): WorkerDeps => ({ db: defaultDb(), files: fileStore(), now: () => new Date(), newId: randomUUID });

const ATTEMPTS = 3;
const PROGRESS_EVERY = 25;

class WentStale extends Error {}

/**
 * Generates one requested export. Input: the job message; output: the job SUCCEEDED with a
 * published manifest, or FAILED with a reason. Safe to run again for the same message.
 * 1. Take the job (QUEUED/RUNNING -> RUNNING); a finished job is left alone.
 * 2. Open a PENDING manifest behind the export fence (see openManifestItems), then read the
 *    entries of every employee in scope as committed now, building the file.
 * 3. Store the file and the manifest's entry revisions, then publish in ONE transaction with
 *    the job's success (and the payroll outbox record, and the link to a replaced manifest).
 * 4. If a change made the pending manifest stale meanwhile, abandon it and start over (at
 *    most 3 times); any failure marks the job FAILED and publishes nothing.
 */
export async function runReportJob(deps: WorkerDeps, message: JobMessage): Promise<void> {
  const job = await getJob(deps.db, message.organizationId, message.jobId);
  if (!job || job.status === 'SUCCEEDED' || job.status === 'FAILED') return;
  const at = () => deps.now().toISOString();
  if (!(await updateJob(deps.db, job.organizationId, job.id, ['QUEUED', 'RUNNING'], { status: 'RUNNING' }, at()))) return;
  try {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
      try {
        await generateOnce(deps, job);
        return;
      } catch (error) {
        if (!(error instanceof WentStale)) throw error;
        logger.info('Export went stale while generating; starting over', { jobId: job.id, attempt });
      }
    }
    throw new AppError('TRANSACTION_CONFLICT', 'Entries in this period kept changing while the export was generated; request it again.');
  } catch (error) {
    const reason = error instanceof AppError && error.code !== 'INTERNAL_ERROR' ? error.message : 'The export could not be generated; nothing was published. Share the job id with support.';
    logger.error('Report job failed', { error: error as Error, jobId: job.id });
    await updateJob(deps.db, job.organizationId, job.id, ['RUNNING'], { status: 'FAILED', failureReason: reason }, at());
  }
}

async function generateOnce(deps: WorkerDeps, job: ReportJob): Promise<void> {
  const org = job.organizationId;
  const months = monthsOf(job.period);
  const manifest: Manifest = {
    id: deps.newId(),
    organizationId: org,
    kind: job.kind,
    period: job.period,
    scope: job.scope,
    status: 'PENDING',
    jobId: job.id,
    entryCount: 0,
    contentHash: null,
    contentType: null,
    byteSize: null,
    fileKey: null,
    requestedBy: job.requestedBy,
    createdAt: deps.now().toISOString(),
    publishedAt: null,
    stale: null,
    replacesManifestId: job.replacesManifestId,
    replacedByManifestId: null,
  };
  await openManifest(deps.db, manifest, months);
  try {
    const employeeIds = job.scope.employeeIds.length > 0 ? [...job.scope.employeeIds] : await employeeIdsOf(deps.db, org);
    const entries: TimeEntry[] = [];
    for (const [i, employeeId] of employeeIds.entries()) {
      const own = await entriesOfEmployeeStartingIn(deps.db, org, employeeId, job.period.from, job.period.to);
      entries.push(...own.filter((e) => includes(job.period, job.scope, e)));
      if ((i + 1) % PROGRESS_EVERY === 0) {
        await updateJob(deps.db, org, job.id, ['RUNNING'], { progress: { processedEmployees: i + 1, totalEmployees: employeeIds.length } }, deps.now().toISOString());
      }
    }
    const body = await buildFile(deps.db, job, entries, manifest.createdAt);
    const format = FILE_FORMAT[job.kind];
    const fileKey = `reports/${org}/${manifest.id}.${format.extension}`;
    await deps.files.put(fileKey, body, format.contentType);
    await putManifestEntries(deps.db, org, manifest.id, entries);

    const now = deps.now().toISOString();
    const items: TxItem[] = [
      ...publishManifestItems(manifest, months, { entryCount: entries.length, contentHash: contentHash(body), contentType: format.contentType, byteSize: body.length, fileKey, publishedAt: now }),
      jobTransition(org, job.id, 'RUNNING', { status: 'SUCCEEDED', manifestId: manifest.id, progress: { processedEmployees: employeeIds.length, totalEmployees: employeeIds.length } }, now),
      auditItem({
        id: deps.newId(),
        organizationId: org,
        occurredAt: now,
        actor: { type: 'API_KEY', keyId: job.requestedBy.keyId, label: job.requestedBy.label },
        action: job.replacesManifestId ? 'export_manifest.replacement_published' : 'export_manifest.published',
        entity: { type: 'export_manifest', id: manifest.id },
        references: { jobId: job.id, kind: job.kind, ...(job.replacesManifestId ? { replacesManifestId: job.replacesManifestId } : {}) },
        after: { entryCount: entries.length, periodFrom: job.period.from, periodTo: job.period.to },
        requestId: job.requestId,
      }),
      ...(job.kind === 'PAYROLL_DISPATCH'
        ? [putOutboxRecord({ id: deps.newId(), organizationId: org, manifestId: manifest.id, destination: 'PAYROLL_PROVIDER', status: 'PENDING', replacesManifestId: job.replacesManifestId, createdAt: now })]
        : []),
      ...(job.replacesManifestId ? [supersedeItem(org, job.replacesManifestId, manifest.id)] : []),
    ];
    await commit(deps.db, items);
  } catch (error) {
    await abandonManifest(deps.db, org, manifest, months).catch(() => undefined);
    if (error instanceof TransactionCancelledError && error.failed(MANIFEST_LABEL)) throw new WentStale();
    if (error instanceof TransactionCancelledError && error.failed('replaced')) {
      throw new AppError('VALIDATION_ERROR', `Manifest ${job.replacesManifestId} was replaced meanwhile; nothing was published.`);
    }
    throw error;
  }
}

/** Opens the pending manifest behind the fence; a concurrent opener moves the fence: read it again. */
async function openManifest(db: Db, manifest: Manifest, months: readonly string[]): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const [fenceItem] = await batchGet(db, [reportKeys.fence(manifest.organizationId)]);
    try {
      await commit(db, openManifestItems(manifest, months, fenceFromItem(manifest.organizationId, fenceItem)));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCancelledError && error.failed(FENCE_LABEL)) || attempt >= 5) throw error;
    }
  }
}

/** Every employee of the organization, deactivated ones included (their hours still count). */
async function employeeIdsOf(db: Db, org: string): Promise<string[]> {
  const items = await collectAll(db, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ProjectionExpression: 'id',
    ExpressionAttributeValues: { ':pk': employeeKeys.byOrganization(org).GSI1PK },
  });
  return items.map((i) => i.id as string);
}

async function buildFile(db: Db, job: ReportJob, entries: readonly TimeEntry[], createdAt: string): Promise<Buffer> {
  const employeeIds = [...new Set(entries.map((e) => e.employeeId))];
  const people = new Map<string, PersonInfo>(
    (await getEmployees(db, job.organizationId, employeeIds)).map((e) => [e.id, { displayName: e.displayName ?? e.userName, employeeNumber: e.employeeNumber ?? null, externalId: e.externalId ?? null }]),
  );
  const locationIds = [...new Set(entries.flatMap((e) => (e.context.kind === 'REGISTERED_LOCATION' ? [e.context.locationId] : [])))];
  const locationItems = locationIds.length > 0 ? await batchGet(db, locationIds.map((id) => locationKeys.location(job.organizationId, id))) : [];
  const locationNames = new Map(locationItems.filter((i): i is Record<string, unknown> => i !== undefined).map((i) => [i.id as string, i.name as string]));
  switch (job.kind) {
    case 'TIMESHEET_CSV':
      return toCsv(timesheetRows(entries, people, locationNames));
    case 'MONTHLY_REPORT':
      return toCsv(monthlyRows(entries, people));
    case 'PAYROLL_DISPATCH':
      return toCsv(payrollRows(entries, people, job.period));
    case 'TIMESHEET_PDF': {
      const [, ...rows] = timesheetRows(entries, people, locationNames);
      return renderPdfTable(
        {
          title: 'Timesheet',
          subtitle: `Period ${job.period.from} to ${job.period.to} (UTC), ${entries.length} entries, exported ${createdAt}`,
          columns: [
            { header: 'Employee', width: 150 },
            { header: 'Start (UTC)', width: 120 },
            { header: 'End (UTC)', width: 120 },
            { header: 'Break', width: 45 },
            { header: 'Worked', width: 50 },
            { header: 'Origin', width: 60 },
            { header: 'Place', width: 180 },
            { header: 'Rev', width: 30 },
          ],
          rows: rows.map((r) => [String(r[3] ?? ''), String(r[4] ?? ''), String(r[5] ?? ''), String(r[6] ?? ''), String(r[7] ?? ''), String(r[8] ?? ''), String(r[12] ?? ''), String(r[1] ?? '')]),
        },
        createdAt,
      );
    }
  }
}
