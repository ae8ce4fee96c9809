import { auditEntry, type AuditEntry } from '../audit/model';
import type { SystemActor } from '../shared/domain/actor';
import { AppError } from '../shared/errors';
import { logger } from '../shared/logger';
import type { TimeEntry } from '../timesheets/public';
import { FILE_FORMAT, includes, monthsOf, payrollRefusal, type JobQueue } from './domain';
import { contentHash, renderExport, type FileStore, type PersonInfo, type PlannedShift } from './domain-files';
import type { PdfDocumentModel } from './domain-pdf';
import type { Presentation } from './domain-time';
import type { JobMessage, Manifest, MonthIndexEntry, OutboxRecord, Period, ReportJob } from './model';

/**
 * The report worker and its sweeper: generating a requested export, and sending again the
 * messages of jobs no worker took. Pure use cases on ports: no SDK, no HTTP.
 */

/**
 * How long a run holds a RUNNING job: longer than the worker function's timeout (300 s), so
 * a second message for a job that is being generated never starts a second run, while a
 * run that died (timeout, crash) can be taken over by the next delivery.
 */
export const RUN_LEASE_MS = 6 * 60_000;

/** A QUEUED job older than this is stranded (its message was never sent, or lost): the sweeper sends it again. */
export const STRANDED_AFTER_MS = 2 * 60_000;

/** The worker's audit actor: it publishes on the job's request (the entry keeps that request's ID). */
export const WORKER_SYSTEM = 'Report worker';

const ATTEMPTS = 3;
/** Progress is written at most this many times a run (plus once when the total is known). */
const PROGRESS_STEPS = 20;

/** The pending manifest went stale before it was published: generate it again. */
export class ExportWentStaleError extends Error {
  constructor() {
    super('Entries of the export changed while it was generated.');
    this.name = 'ExportWentStaleError';
  }
}

/** The fields a manifest gets when published. */
export type Published = Pick<Manifest, 'entryCount' | 'contentHash' | 'fileHash' | 'contentType' | 'byteSize' | 'fileKey' | 'publishedAt'>;

/** What the worker reads and writes. */
export interface WorkerStore {
  getJob(org: string, id: string): Promise<ReportJob | undefined>;
  /**
   * Takes the job for run `runId`: QUEUED, or RUNNING by a run that started before
   * `leaseBefore`, becomes RUNNING (and leaves the due list). False: another run holds it, or it finished.
   */
  takeJob(job: ReportJob, runId: string, now: string, leaseBefore: string): Promise<boolean>;
  updateProgress(job: ReportJob, runId: string, progress: ReportJob['progress'], now: string): Promise<void>;
  failJob(job: ReportJob, runId: string, reason: string, now: string): Promise<void>;
  /**
   * Opens the PENDING manifest behind the export fence (staleness sees it from then on);
   * `refuse` sees the manifests of those months as of that fence and may answer an error instead.
   */
  openManifest(manifest: Manifest, months: readonly string[], refuse?: (covering: readonly MonthIndexEntry[]) => Error | undefined): Promise<void>;
  /** Every employee of the organization, deactivated ones included (their hours still count). */
  employeeIds(org: string): Promise<string[]>;
  /** The employee's entries that start in the period, as committed now. */
  entriesOf(org: string, employeeId: string, period: Period): Promise<TimeEntry[]>;
  people(org: string, employeeIds: readonly string[]): Promise<Map<string, PersonInfo>>;
  /** The organization's name and how it shows time (settings: time zone, locale, week start). */
  organization(org: string): Promise<{ name: string; presentation: Presentation }>;
  /** The employee's PUBLISHED shifts that start in the period (planning's port). */
  plannedShifts(org: string, employeeId: string, period: Period): Promise<PlannedShift[]>;
  locationNames(org: string, locationIds: readonly string[]): Promise<Map<string, string>>;
  /** The manifest's entry revisions, written while it is PENDING. */
  putManifestEntries(org: string, manifestId: string, entries: readonly Pick<TimeEntry, 'id' | 'revision'>[]): Promise<void>;
  /**
   * Publishes in ONE transaction: the manifest (only if still PENDING and not stale, else
   * ExportWentStaleError), the job's success (only for `runId`), the payroll outbox record,
   * the link from a replaced manifest (still stale and not replaced, else 422), the audit entry.
   */
  publish(change: { manifest: Manifest; months: readonly string[]; published: Published; job: ReportJob; runId: string; progress: ReportJob['progress']; outbox?: OutboxRecord; audit: AuditEntry }): Promise<void>;
  /** Gives up a PENDING manifest (ABANDONED, in the month index too). */
  abandonManifest(org: string, manifest: Manifest, months: readonly string[]): Promise<void>;
}

export interface WorkerPorts {
  readonly store: WorkerStore;
  readonly files: FileStore;
  /** Renders a PDF model (domain-pdf.ts, with the fonts): only the worker's bundle carries it. */
  readonly renderPdf: (model: PdfDocumentModel) => Promise<Buffer>;
  readonly now: () => Date;
  readonly newId: () => string;
}

/**
 * Generates one requested export. Input: the job message; output: the job SUCCEEDED with a
 * published manifest, or FAILED with a reason. Safe to deliver again, and twice at once.
 * 1. Take the job for this run (QUEUED -> RUNNING, or a RUNNING job whose run outlived its
 *    lease); a job another run holds, or a finished one, is left alone.
 * 2. Open a PENDING manifest behind the export fence, then read the entries of every
 *    employee in scope as committed now, building the file.
 * 3. Store the file and the manifest's entry revisions, then publish in ONE transaction with
 *    the job's success (and the payroll outbox record, and the link to a replaced manifest).
 * 4. If a change made the pending manifest stale meanwhile, abandon it and start over (at
 *    most 3 times); any failure marks the job FAILED and publishes nothing.
 */
export async function runReportJob(ports: WorkerPorts, message: JobMessage): Promise<JobRunOutcome> {
  const found = await ports.store.getJob(message.organizationId, message.jobId);
  if (!found || found.status === 'SUCCEEDED' || found.status === 'FAILED') return 'SKIPPED';
  const at = () => ports.now().toISOString();
  const runId = ports.newId();
  const started = ports.now();
  if (!(await ports.store.takeJob(found, runId, started.toISOString(), new Date(started.getTime() - RUN_LEASE_MS).toISOString()))) {
    logger.info('Report job is held by another run or finished; nothing to do', { jobId: found.id });
    return 'SKIPPED';
  }
  const job: ReportJob = { ...found, status: 'RUNNING', runId };
  try {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
      try {
        await generateOnce(ports, job, runId);
        return 'SUCCEEDED';
      } catch (error) {
        if (!(error instanceof ExportWentStaleError)) throw error;
        logger.info('Export went stale while generating; starting over', { jobId: job.id, attempt });
      }
    }
    throw new AppError('TRANSACTION_CONFLICT', 'Entries in this period kept changing while the export was generated; request it again.');
  } catch (error) {
    const reason = error instanceof AppError && error.code !== 'INTERNAL_ERROR' ? error.message : 'The export could not be generated; nothing was published. Share the job id with support.';
    logger.error('Report job failed', { error: error as Error, jobId: job.id });
    await ports.store.failJob(job, runId, reason, at());
    return 'FAILED';
  }
}

/** What one delivery did: finished the job either way, or found nothing to do (the worker's figures). */
export type JobRunOutcome = 'SUCCEEDED' | 'FAILED' | 'SKIPPED';

async function generateOnce(ports: WorkerPorts, job: ReportJob, runId: string): Promise<void> {
  const { store } = ports;
  const org = job.organizationId;
  const months = monthsOf(job.period);
  const manifest: Manifest = {
    id: ports.newId(),
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
    fileHash: null,
    fileKey: null,
    requestedBy: job.requestedBy,
    createdAt: ports.now().toISOString(),
    publishedAt: null,
    stale: null,
    replacesManifestId: job.replacesManifestId,
    replacedByManifestId: null,
    version: 1,
  };
  // A second dispatch of one payroll is refused here too: two requests may both pass the request's check.
  const sentAgain = (covering: readonly MonthIndexEntry[]) => payrollRefusal(covering, job.period, job.scope);
  await store.openManifest(manifest, months, job.kind === 'PAYROLL_DISPATCH' && !job.replacesManifestId ? sentAgain : undefined);
  try {
    const employeeIds = job.scope.employeeIds.length > 0 ? [...job.scope.employeeIds] : await store.employeeIds(org);
    const total = employeeIds.length;
    const progress = (processed: number) => store.updateProgress(job, runId, { processedEmployees: processed, totalEmployees: total }, ports.now().toISOString());
    await progress(0);
    const step = Math.max(1, Math.ceil(total / PROGRESS_STEPS));
    const entries: TimeEntry[] = [];
    const planned = new Map<string, PlannedShift[]>();
    for (const [i, employeeId] of employeeIds.entries()) {
      const own = await store.entriesOf(org, employeeId, job.period);
      entries.push(...own.filter((e) => includes(job.period, job.scope, e)));
      if (job.kind === 'MONTHLY_REPORT') planned.set(employeeId, (await store.plannedShifts(org, employeeId, job.period)).filter((s) => job.scope.locationIds.length === 0 || job.scope.locationIds.includes(s.locationId)));
      if ((i + 1) % step === 0 && i + 1 < total) await progress(i + 1);
    }
    const people = await store.people(org, [...new Set([...entries.map((e) => e.employeeId), ...[...planned.entries()].filter(([, s]) => s.length > 0).map(([id]) => id)])]);
    const locationNames = await store.locationNames(org, [...new Set(entries.flatMap((e) => (e.context.kind === 'REGISTERED_LOCATION' ? [e.context.locationId] : [])))]);
    const organization = await store.organization(org);
    const rendered = renderExport(job, { entries, people, locationNames, planned }, { organizationName: organization.name, presentation: organization.presentation, manifestId: manifest.id, generatedAt: manifest.createdAt });
    const body = rendered.pdf ? await ports.renderPdf(rendered.pdf) : rendered.csv!;
    const format = FILE_FORMAT[job.kind];
    const fileKey = `reports/${org}/${manifest.id}.${format.extension}`;
    await ports.files.put(fileKey, body, format.contentType);
    await store.putManifestEntries(org, manifest.id, entries);

    const now = ports.now().toISOString();
    const actor: SystemActor = { system: WORKER_SYSTEM, organizationId: org, requestId: job.requestId };
    await store.publish({
      manifest,
      months,
      published: { entryCount: entries.length, contentHash: contentHash(rendered.content), fileHash: contentHash(body), contentType: format.contentType, byteSize: body.length, fileKey, publishedAt: now },
      job,
      runId,
      progress: { processedEmployees: employeeIds.length, totalEmployees: employeeIds.length },
      ...(job.kind === 'PAYROLL_DISPATCH'
        ? { outbox: { id: ports.newId(), organizationId: org, manifestId: manifest.id, destination: 'PAYROLL_PROVIDER', status: 'PENDING', replacesManifestId: job.replacesManifestId, createdAt: now, sentAt: null, dispatchJobId: null } }
        : {}),
      audit: auditEntry({
        id: ports.newId(),
        actor,
        occurredAt: now,
        action: job.replacesManifestId ? 'export_manifest.replacement_published' : 'export_manifest.published',
        entity: { type: 'export_manifest', id: manifest.id },
        references: { jobId: job.id, kind: job.kind, requestedByKeyId: job.requestedBy.keyId, ...(job.replacesManifestId ? { replacesManifestId: job.replacesManifestId } : {}) },
        after: { entryCount: entries.length, periodFrom: job.period.from, periodTo: job.period.to },
      }),
    });
  } catch (error) {
    await store.abandonManifest(org, manifest, months).catch(() => undefined);
    throw error;
  }
}

// ---- the sweeper

/** What the sweeper reads and moves on. */
export interface SweeperStore {
  /** Queued jobs due before `before`, oldest first, at most `limit`: one Query of the due list. */
  dueJobs(before: string, limit: number): Promise<JobMessage[]>;
  /** Moves a still QUEUED job's due time to `now`; false when it is no longer QUEUED. */
  markRequeued(message: JobMessage, now: string): Promise<boolean>;
}

export interface SweeperPorts {
  readonly store: SweeperStore;
  readonly queue: JobQueue;
  readonly now: () => Date;
}

/** At most this many jobs per sweep; the rest wait for the next one (a minute later). */
export const SWEEP_LIMIT = 100;

/**
 * Sends again the message of every job still QUEUED after STRANDED_AFTER_MS (its send
 * failed after the commit, or the message was lost). Output: how many were sent.
 * 1. Read the due list (one Query) up to now - the bound.
 * 2. For each: move its due time to now (only while it is still QUEUED: a job a worker took
 *    meanwhile is skipped), then send its message. A send that fails leaves it due again
 *    one bound later; a message that reaches a job already taken changes nothing (the
 *    worker's take is conditional).
 */
export async function requeueStrandedJobs(ports: SweeperPorts, boundMs = STRANDED_AFTER_MS): Promise<number> {
  const now = ports.now();
  const due = await ports.store.dueJobs(new Date(now.getTime() - boundMs).toISOString(), SWEEP_LIMIT);
  let sent = 0;
  for (const message of due) {
    if (!(await ports.store.markRequeued(message, now.toISOString()))) continue;
    try {
      await ports.queue.send(message);
      sent += 1;
      logger.warn('Re-queued a stranded report job', { jobId: message.jobId, organizationId: message.organizationId });
    } catch (error) {
      logger.error('Re-queueing a report job failed; it stays due', { error: error as Error, jobId: message.jobId });
    }
  }
  return sent;
}
