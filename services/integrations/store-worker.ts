import { randomUUID } from 'node:crypto';
import { getManifest, getOutboxRecord, manifestEntries, outboxSentItem } from '../reports/public';
import { exportFileStore } from '../reports/public-files';
import { secretStore, type SecretStore } from '../shared/aws/secrets';
import { defaultDb, type Db } from '../shared/ddb/client';
import type { TransactionCancelledError, TxItem } from '../shared/ddb/transaction';
import { inUnitOfWork } from '../shared/ddb/unit-of-work';
import { RunLostError, runIntegrationJob, type ProviderClient, type WorkerPorts, type WorkerStore } from './domain-worker';
import { LOOPBACK_ENV } from './domain';
import { credentialsSecretName } from './model';
import { getIntegration } from './store';
import { claimItem, getJob, jobFailedItem, jobProgress, jobSucceededItem, JOB_LABEL, markDelivering, retryLater, takeJob } from './store-jobs';
import { httpProviderClient } from './store-provider';
import { jobQueue } from './store-queue';

/**
 * The worker's and the sweeper's store ports on DynamoDB (domain-worker.ts). The payroll
 * outbox record, its manifest, entries and file come through reports/public.ts; the success
 * of a dispatch (job, outbox record SENT, claim, audit entry) is ONE unit of work.
 */

/** A failed job condition in a finishing transaction: another run holds the job now. */
const lostRun = (error: TransactionCancelledError): Error | undefined => (error.failed(JOB_LABEL) ? new RunLostError() : undefined);

export function integrationsWorkerStore(db: Db, secrets: SecretStore = secretStore()): WorkerStore {
  return {
    getJob: (org, id) => getJob(db, org, id),
    takeJob: (job, runId, now, leaseBefore, leaseUntil) => takeJob(db, job, runId, now, leaseBefore, leaseUntil),
    progress: (job, step, percent, now) => jobProgress(db, job, step, percent, now),
    markDelivering: (job, now) => markDelivering(db, job, now),
    retryLater: (job, error, nextAttemptAt, now) => retryLater(db, job, error, nextAttemptAt, now),

    async succeed({ job, now, delivered, audit }) {
      const dispatch = job.kind === 'PAYROLL_DISPATCH' && job.outboxRecordId;
      const items: TxItem[] = [
        jobSucceededItem(job, now, delivered),
        ...(dispatch ? [outboxSentItem(job.organizationId, job.outboxRecordId!, { jobId: job.id, at: now }), claimItem(job.organizationId, job.outboxRecordId!, job.id, 'DONE')] : []),
      ];
      await inUnitOfWork(db, async (unit) => unit.stage({ items, audit, explain: lostRun }), { attempts: 1 });
    },

    async fail({ job, error, now, audit }) {
      const items: TxItem[] = [jobFailedItem(job, error, now), ...(job.outboxRecordId ? [claimItem(job.organizationId, job.outboxRecordId, job.id, 'RELEASED')] : [])];
      await inUnitOfWork(db, async (unit) => unit.stage({ items, audit, explain: lostRun }), { attempts: 1 });
    },

    getIntegration: (org, id) => getIntegration(db, org, id),

    async credentials(integration) {
      const raw = await secrets.get(credentialsSecretName(integration));
      if (!raw) return undefined;
      const parsed = JSON.parse(raw) as { token?: unknown };
      return typeof parsed.token === 'string' ? { token: parsed.token } : undefined;
    },

    async payrollDispatch(org, outboxRecordId) {
      const outbox = await getOutboxRecord(db, org, outboxRecordId);
      if (!outbox) return undefined;
      const manifest = await getManifest(db, org, outbox.manifestId);
      if (!manifest) return undefined;
      const entries = await manifestEntries(db, org, manifest.id);
      return {
        outbox,
        manifest,
        entries,
        async file() {
          const content = manifest.fileKey ? await exportFileStore().get(manifest.fileKey) : undefined;
          if (!content) throw new Error('The export file of the manifest is missing.');
          return { contentType: manifest.contentType ?? 'text/csv; charset=utf-8', content };
        },
      };
    },
  };
}

/** The worker's ports in a Lambda (or the local process); the local queue runs messages with these same ports. */
export function workerPorts(overrides: { readonly provider?: ProviderClient; readonly db?: Db } = {}): WorkerPorts {
  const db = overrides.db ?? defaultDb();
  const ports: WorkerPorts = {
    store: integrationsWorkerStore(db),
    // Loopback providers only where the local runtime says so (the fake payroll provider); never in a stack.
    provider: overrides.provider ?? httpProviderClient({ allowLoopback: process.env[LOOPBACK_ENV] === 'true' }),
    queue: jobQueue((message) => runIntegrationJob(ports, message)),
    now: () => new Date(),
    newId: randomUUID,
  };
  return ports;
}

