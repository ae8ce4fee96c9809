import type { UseCasePorts } from '../shared/domain/ports';
import { auditEntry, type AuditEntry } from '../audit/model';
import type { Manifest, ManifestEntry, OutboxRecord } from '../reports/public';
import type { SystemActor } from '../shared/domain/actor';
import { logger } from '../shared/logger';
import { STRANDED_AFTER_MS, type ProviderCredentials } from './domain';
import { HEADER_SAFE_CREDENTIAL, type Integration, type IntegrationJob, type JobError, type JobMessage, type JobStep } from './model';

/**
 * The integration worker and its sweeper: running a requested job against the provider,
 * with retries and backoff, and the payroll dispatch that delivers a revision-pinned
 * manifest exactly once (docs/areas/integrations.md, "Exactly once"). Pure use cases on
 * ports: no SDK, no HTTP.
 */

/** Runs of one job at most (a run that crashed counts). */
export const MAX_ATTEMPTS = 5;

/** How long a run holds a RUNNING job: longer than the worker's timeout (60 s), so only a dead run is taken over. */
export const RUN_LEASE_MS = 2 * 60_000;

/** The wait before attempt `attempt + 1`: exponential from 30 s, capped at 15 min, with equal jitter (half fixed, half random). */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(15 * 60_000, 30_000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base / 2 + random() * (base / 2));
}

export const WORKER_SYSTEM = 'Integration worker';

const PROGRESS: Readonly<Record<JobStep, number>> = { WAITING: 0, PREPARING: 20, DELIVERING: 60, RECORDING: 90, DONE: 100 };

/**
 * A provider call that did not succeed. RETRYABLE: no answer, a timeout, 408, 429 or 5xx
 * (try again later); REJECTED: any other 4xx, or `ADDRESS_REFUSED`: the provider's host
 * resolved to an address egress may not reach (loopback, private, link-local, reserved), so
 * nothing was sent (trying again cannot help). Carries the HTTP status at most, never the
 * provider's body, host or address.
 */
export class ProviderError extends Error {
  constructor(
    readonly kind: 'RETRYABLE' | 'REJECTED',
    readonly status: number | undefined,
    what: string,
    readonly reason?: 'ADDRESS_REFUSED',
  ) {
    super(`${what}: ${reason === 'ADDRESS_REFUSED' ? 'address refused by the egress policy' : status === undefined ? 'no answer' : `HTTP ${status}`}`);
    this.name = 'ProviderError';
  }
}

/** The run no longer holds the job (its lease ran out and another run took it): stop, change nothing. */
export class RunLostError extends Error {
  constructor() {
    super('The run no longer holds the job.');
    this.name = 'RunLostError';
  }
}

export interface ProviderTarget {
  readonly baseUrl: string;
  readonly credentials: ProviderCredentials;
}

/** What the payroll provider receives: the manifest, its exact entry revisions and its file, under a stable delivery id. */
export interface PayrollDelivery {
  readonly deliveryId: string;
  readonly organizationId: string;
  readonly outboxRecordId: string;
  readonly manifest: Manifest;
  readonly entries: readonly ManifestEntry[];
  readonly file: { readonly contentType: string; readonly content: Buffer };
}

/** The provider's API (store-provider.ts: HTTPS; the fake payroll provider locally). */
export interface ProviderClient {
  /** Delivers with `deliveryId` as the idempotency key: the provider books one delivery per id. */
  deliverPayroll(target: ProviderTarget, delivery: PayrollDelivery): Promise<void>;
  /** Whether the provider has booked the delivery `deliveryId`. */
  deliveryReceived(target: ProviderTarget, deliveryId: string): Promise<boolean>;
  checkConnection(target: ProviderTarget): Promise<void>;
}

export interface PayrollDispatch {
  readonly outbox: OutboxRecord;
  readonly manifest: Manifest;
  readonly entries: readonly ManifestEntry[];
  /** The export file, read only when it is about to be sent. */
  readonly file: () => Promise<{ readonly contentType: string; readonly content: Buffer }>;
}

/** What the worker reads and writes. Every move is conditional on the run holding the job (else RunLostError, or false). */
export interface WorkerStore {
  getJob(org: string, id: string): Promise<IntegrationJob | undefined>;
  /**
   * Takes the job for `runId`: a QUEUED job whose next attempt is due, or a RUNNING one whose
   * run started before `leaseBefore`, becomes RUNNING with one more attempt, due again when
   * its lease ends. undefined: not due, held by another run, or finished.
   */
  takeJob(job: IntegrationJob, runId: string, now: string, leaseBefore: string, leaseUntil: string): Promise<IntegrationJob | undefined>;
  progress(job: IntegrationJob, step: JobStep, percent: number, now: string): Promise<void>;
  /** Records that this run is about to send delivery `deliveryId` (before the send): the next run asks the provider first. */
  markDelivering(job: IntegrationJob, now: string): Promise<void>;
  /** Back to QUEUED with the error of this attempt, due at `nextAttemptAt`. */
  retryLater(job: IntegrationJob, error: JobError, nextAttemptAt: string, now: string): Promise<void>;
  /** ONE transaction: the job SUCCEEDED, (dispatch) the outbox record SENT with this job and the claim DONE, the audit entry. */
  succeed(change: { job: IntegrationJob; now: string; delivered: boolean; audit: AuditEntry }): Promise<void>;
  /** ONE transaction: the job FAILED with its safe error, (dispatch) the claim released, the audit entry. */
  fail(change: { job: IntegrationJob; error: JobError; now: string; audit: AuditEntry }): Promise<void>;
  getIntegration(org: string, id: string): Promise<Integration | undefined>;
  credentials(integration: Integration): Promise<ProviderCredentials | undefined>;
  payrollDispatch(org: string, outboxRecordId: string): Promise<PayrollDispatch | undefined>;
}

/** How a job reaches the worker: a queue message, optionally delayed (SQS in AWS, this process locally). */
export interface JobQueue {
  send(message: JobMessage, delaySeconds?: number): Promise<void>;
}

export interface WorkerPorts extends UseCasePorts<WorkerStore> {
  readonly provider: ProviderClient;
  readonly queue: JobQueue;
  readonly random?: () => number;
}

/** A failure that ends the job: its safe summary. */
class JobFailure extends Error {
  constructor(readonly summary: JobError) {
    super(summary.message);
    this.name = 'JobFailure';
  }
}

const fail = (code: string, message: string): never => {
  throw new JobFailure({ code, message });
};

/**
 * Runs one requested job. Safe to deliver again, and twice at once.
 * 1. Take the job for this run (due QUEUED, or RUNNING whose run outlived its lease); anything
 *    else is left alone.
 * 2. Read the integration (ACTIVE) and its credentials from the secret store; a token no HTTP
 *    header can carry (stored before writes refused it) fails the job at once.
 * 3. CONNECTION_CHECK: ask the provider. PAYROLL_DISPATCH: read the outbox record and its
 *    revision-pinned manifest, then
 *    a. if an earlier run recorded DELIVERING, ask the provider whether it booked the
 *       delivery id; if so, record the success without sending again;
 *    b. a stale manifest is never sent (FAILED; the replacement flow creates a new record);
 *    c. record DELIVERING, send with the delivery id as idempotency key, then record the
 *       success: the job SUCCEEDED, the outbox record SENT and the audit entry in ONE transaction.
 * 4. A provider that did not answer (timeout, 5xx, 429) is tried again after a jittered,
 *    growing backoff, MAX_ATTEMPTS runs at most; a rejection (other 4xx, or a host that
 *    resolves to an address egress refuses) fails at once.
 *    FAILED jobs carry a safe error summary, never a provider's body or a credential.
 */
export async function runIntegrationJob(ports: WorkerPorts, message: JobMessage): Promise<void> {
  const found = await ports.store.getJob(message.organizationId, message.jobId);
  if (!found || found.status === 'SUCCEEDED' || found.status === 'FAILED') return;
  const runId = ports.newId();
  const started = ports.now();
  const job0 = await ports.store.takeJob(found, runId, started.toISOString(), new Date(started.getTime() - RUN_LEASE_MS).toISOString(), new Date(started.getTime() + RUN_LEASE_MS).toISOString());
  if (!job0) {
    logger.info('Integration job is not due, held by another run, or finished; nothing to do', { jobId: found.id });
    return;
  }
  let job = job0;
  const at = () => ports.now().toISOString();
  try {
    const integration = await ports.store.getIntegration(job.organizationId, job.integrationId);
    if (!integration || integration.status !== 'ACTIVE') fail('INTEGRATION_DISABLED', 'The integration was disabled before the job ran; nothing was sent.');
    const credentials = await ports.store.credentials(integration!);
    if (!credentials) fail('INTEGRATION_CREDENTIALS_MISSING', 'The integration has no credentials in the secret store; set them and request the job again.');
    // Stored before writes refused them: no HTTP client sends such a header, and no retry can.
    if (!HEADER_SAFE_CREDENTIAL.test(credentials!.token)) {
      fail('INTEGRATION_CREDENTIALS_INVALID', 'The integration token cannot be sent in an HTTP header (it must be printable ASCII without spaces or control characters); nothing was sent. Set the credentials again and request the job again.');
    }
    const target: ProviderTarget = { baseUrl: integration!.baseUrl, credentials: credentials! };
    if (job.kind === 'CONNECTION_CHECK') {
      await ports.store.progress(job, 'DELIVERING', PROGRESS.DELIVERING, at());
      await ports.provider.checkConnection(target);
      await succeed(ports, job, false);
      return;
    }
    job = await dispatchPayroll(ports, job, target);
  } catch (error) {
    await handleFailure(ports, job, error, message);
  }
}

async function dispatchPayroll(ports: WorkerPorts, job: IntegrationJob, target: ProviderTarget): Promise<IntegrationJob> {
  const at = () => ports.now().toISOString();
  await ports.store.progress(job, 'PREPARING', PROGRESS.PREPARING, at());
  const dispatch = await ports.store.payrollDispatch(job.organizationId, job.outboxRecordId!);
  if (!dispatch) return fail('OUTBOX_RECORD_MISSING', 'The payroll outbox record no longer exists; nothing was sent.');
  if (dispatch.outbox.status === 'SENT') return fail('OUTBOX_RECORD_SENT', 'The payroll outbox record was already sent by another job; nothing was sent again.');
  const deliveryId = job.deliveryId!;
  if (job.delivering) {
    // An earlier run may have sent: the provider knows. Received: only the bookkeeping is missing.
    if (await ports.provider.deliveryReceived(target, deliveryId)) {
      logger.info('Payroll delivery was received before; recording it without sending again', { jobId: job.id, deliveryId });
      await succeed(ports, job, true);
      return job;
    }
  }
  if (dispatch.manifest.stale) {
    return fail('EXPORT_MANIFEST_STALE', 'The manifest went stale before it was sent and payroll is never resent by itself: request a replacement dispatch, then dispatch its outbox record.');
  }
  const file = await dispatch.file();
  await ports.store.markDelivering(job, at());
  const delivering: IntegrationJob = { ...job, delivering: true };
  await ports.provider.deliverPayroll(target, {
    deliveryId,
    organizationId: job.organizationId,
    outboxRecordId: dispatch.outbox.id,
    manifest: dispatch.manifest,
    entries: dispatch.entries,
    file,
  });
  await succeed(ports, delivering, true);
  return delivering;
}

const systemActor = (job: IntegrationJob): SystemActor => ({ system: WORKER_SYSTEM, organizationId: job.organizationId, requestId: job.requestId });

const jobReferences = (job: IntegrationJob) => ({
  integrationId: job.integrationId,
  provider: job.provider,
  kind: job.kind,
  ...(job.outboxRecordId ? { outboxRecordId: job.outboxRecordId } : {}),
  ...(job.manifestId ? { manifestId: job.manifestId } : {}),
});

async function succeed(ports: WorkerPorts, job: IntegrationJob, delivered: boolean): Promise<void> {
  const now = ports.now().toISOString();
  await ports.store.succeed({
    job,
    now,
    delivered,
    audit: auditEntry({
      id: ports.newId(),
      actor: systemActor(job),
      occurredAt: now,
      action: job.kind === 'PAYROLL_DISPATCH' ? 'integration_job.payroll_delivered' : 'integration_job.succeeded',
      entity: { type: 'integration_job', id: job.id },
      references: { ...jobReferences(job), ...(job.deliveryId ? { deliveryId: job.deliveryId } : {}) },
      after: { status: 'SUCCEEDED', attempts: job.attempts },
    }),
  });
}

async function failJob(ports: WorkerPorts, job: IntegrationJob, error: JobError): Promise<void> {
  const now = ports.now().toISOString();
  await ports.store.fail({
    job,
    error,
    now,
    audit: auditEntry({
      id: ports.newId(),
      actor: systemActor(job),
      occurredAt: now,
      action: 'integration_job.failed',
      entity: { type: 'integration_job', id: job.id },
      references: jobReferences(job),
      after: { status: 'FAILED', attempts: job.attempts, errorCode: error.code },
    }),
  });
}

/** The safe summary of a provider failure: our words and the HTTP status, nothing the provider wrote. */
function providerSummary(error: ProviderError): JobError {
  if (error.reason === 'ADDRESS_REFUSED') {
    return {
      code: 'PROVIDER_ADDRESS_REFUSED',
      message: "The provider's host name resolves to an address the API does not connect to (loopback, private, link-local or reserved); nothing was sent. Point the integration's baseUrl at a public host.",
    };
  }
  const status = error.status === undefined ? 'did not answer in time' : `answered HTTP ${error.status}`;
  if (error.kind === 'REJECTED') {
    const hint = error.status === 401 || error.status === 403 ? ' Check the integration credentials.' : '';
    return { code: 'PROVIDER_REJECTED', message: `The provider rejected the request (${status.replace('answered ', '')}).${hint}` };
  }
  return { code: 'PROVIDER_UNAVAILABLE', message: `The provider ${status}.` };
}

/**
 * After a failed attempt: a final failure (rejection, rule) ends the job; a provider that did
 * not answer, or an unexpected error, is tried again after the backoff while attempts are
 * left. A run that lost the job changes nothing. If even this bookkeeping fails, the error
 * goes up: the job stays RUNNING and is taken over when its lease ends.
 */
async function handleFailure(ports: WorkerPorts, job: IntegrationJob, error: unknown, message: JobMessage): Promise<void> {
  if (error instanceof RunLostError) {
    logger.warn('Integration run lost its job to another run; stopping', { jobId: job.id });
    return;
  }
  try {
    if (error instanceof JobFailure) return await failJob(ports, job, error.summary);
    if (error instanceof ProviderError && error.kind === 'REJECTED') {
      logger.warn('Provider rejected an integration job', { jobId: job.id, status: error.status, ...(error.reason ? { reason: error.reason } : {}) });
      return await failJob(ports, job, providerSummary(error));
    }
    const summary: JobError =
      error instanceof ProviderError ? providerSummary(error) : { code: 'INTERNAL_ERROR', message: 'The job could not run; it is tried again. Share the job id with support if it keeps failing.' };
    logger.warn('Integration job attempt failed', { jobId: job.id, attempt: job.attempts, code: summary.code, ...(error instanceof ProviderError ? { status: error.status } : { error: error as Error }) });
    if (job.attempts >= MAX_ATTEMPTS) {
      return await failJob(ports, job, { code: summary.code, message: `${summary.message} Gave up after ${job.attempts} attempts.${job.delivering ? ' A new job uses the same delivery id, so the provider never books it twice.' : ''}` });
    }
    const delay = retryDelayMs(job.attempts, ports.random);
    await ports.store.retryLater(job, summary, new Date(ports.now().getTime() + delay).toISOString(), ports.now().toISOString());
    await ports.queue.send(message, Math.ceil(delay / 1000)).catch((sendError: unknown) => {
      logger.warn('Sending the retry of an integration job failed; the sweeper sends it', { jobId: job.id, error: sendError as Error });
    });
  } catch (bookkeeping) {
    if (bookkeeping instanceof RunLostError) return;
    throw bookkeeping;
  }
}

// ---- the sweeper

export interface SweeperStore {
  /** Jobs due before `before` (QUEUED whose message may be lost, RUNNING whose lease ran out), oldest first. */
  dueJobs(before: string, limit: number): Promise<{ message: JobMessage; dueKey: string }[]>;
  /** Moves a due job's due time to `nextDue`, only if it is still `dueKey`; false when it moved meanwhile. */
  markRequeued(message: JobMessage, dueKey: string, nextDue: string): Promise<boolean>;
}

export interface SweeperPorts {
  readonly store: SweeperStore;
  readonly queue: JobQueue;
  readonly now: () => Date;
}

export const SWEEP_LIMIT = 100;

/**
 * Sends again the message of every job that is due: QUEUED ones whose message was lost (or
 * whose backoff ended), RUNNING ones whose run died (its lease ended). Each is moved on first
 * (due again one bound later), so a job is sent at most once per bound; the worker's take is
 * conditional, so a message for a job that is not due does nothing. Output: how many were sent.
 */
export async function requeueDueJobs(ports: SweeperPorts): Promise<number> {
  const now = ports.now();
  const due = await ports.store.dueJobs(now.toISOString(), SWEEP_LIMIT);
  let sent = 0;
  for (const { message, dueKey } of due) {
    if (!(await ports.store.markRequeued(message, dueKey, new Date(now.getTime() + STRANDED_AFTER_MS).toISOString()))) continue;
    try {
      await ports.queue.send(message);
      sent += 1;
    } catch (error) {
      logger.error('Re-queueing an integration job failed; it stays due', { error: error as Error, jobId: message.jobId });
    }
  }
  return sent;
}
