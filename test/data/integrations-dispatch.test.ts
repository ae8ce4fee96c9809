import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createIntegration, requestJob } from '../../services/integrations/domain';
import { MAX_ATTEMPTS, ProviderError, requeueDueJobs, runIntegrationJob, type JobQueue, type ProviderClient, type WorkerPorts, type WorkerStore } from '../../services/integrations/domain-worker';
import { integrationKeys, type JobMessage } from '../../services/integrations/model';
import { credentialStore, integrationsStore } from '../../services/integrations/store';
import { getJob } from '../../services/integrations/store-jobs';
import { httpProviderClient, payrollDeliveryBody } from '../../services/integrations/store-provider';
import { sweeperStore } from '../../services/integrations/store-sweeper';
import { integrationsWorkerStore } from '../../services/integrations/store-worker';
import { FakePayrollProvider } from '../../services/local/fake-payroll';
import { getOutboxRecord, reportKeys } from '../../services/reports/public';
import { exportFileStore } from '../../services/reports/public-files';
import { manifestEntryToItem, manifestToItem, outboxToItem, type Manifest } from '../../services/reports/model';
import { fileSecretStore } from '../../services/shared/aws/secrets';
import type { Db } from '../../services/shared/ddb/client';
import { inUnitOfWork } from '../../services/shared/ddb/unit-of-work';
import type { Actor } from '../../services/shared/domain/actor';
import { withCapturedLogs } from '../support/logs';
import { createTestTable } from '../support/table';

/**
 * Exactly-once payroll dispatch on DynamoDB Local, with fault injection: the worker "dies"
 * right after the provider accepted the delivery (every later write of that run fails, as
 * after a crash), and the run that takes the job over must record the delivery without
 * sending it again. Also: a crash before the send, a provider whose lookup lags (its
 * idempotent acceptance keeps it once), staleness, retries with backoff, concurrent runs.
 */
let db: Db;
const ORG = randomUUID();
const secrets = fileSecretStore(mkdtempSync(join(tmpdir(), 'wfm-secrets-')));
const actor: Actor = { principal: { organizationId: ORG, keyId: 'k1', keyLabel: 'test key', environment: 'TEST', scopes: new Set(['integrations:write']) }, requestId: 'req-test' };

/** The fake provider in this process, as the worker's provider port (same protocol rules as over HTTP). */
function providerOf(fake: FakePayrollProvider, options: { lookupLags?: boolean } = {}): ProviderClient {
  return {
    async deliverPayroll(_target, delivery) {
      const { status } = fake.receive(delivery.deliveryId, payrollDeliveryBody(delivery));
      if (status >= 500) throw new ProviderError('RETRYABLE', status, 'Payroll delivery');
      if (status >= 400) throw new ProviderError('REJECTED', status, 'Payroll delivery');
    },
    deliveryReceived: async (_target, id) => !options.lookupLags && fake.lookup(id) !== undefined,
    checkConnection: async () => undefined,
  };
}

const sent: { message: JobMessage; delaySeconds?: number }[] = [];
const queue: JobQueue = { send: async (message, delaySeconds) => void sent.push({ message, delaySeconds }) };

function ports(fake: FakePayrollProvider, clock: () => Date = () => new Date(), options: { lookupLags?: boolean } = {}): WorkerPorts {
  return { store: integrationsWorkerStore(db, secrets), provider: providerOf(fake, options), queue, now: clock, newId: randomUUID, random: () => 1 };
}

/**
 * The fault: the provider accepts (or, `before`, the run dies just before it sends); from that
 * moment the process is dead: every store call of this run fails as a crashed Lambda's would.
 */
function crashing(fake: FakePayrollProvider, when: 'afterAccepted' | 'beforeSend'): WorkerPorts {
  const base = ports(fake);
  let dead = false;
  const store = new Proxy(base.store, {
    get(target, name: keyof WorkerStore) {
      const fn = target[name] as (...args: unknown[]) => Promise<unknown>;
      return async (...args: unknown[]) => {
        if (dead) throw new Error('the worker process is gone');
        return fn.apply(target, args);
      };
    },
  });
  return {
    ...base,
    store,
    provider: {
      ...base.provider,
      async deliverPayroll(target, delivery) {
        if (when === 'beforeSend') {
          dead = true;
          throw new Error('crash before the send');
        }
        await base.provider.deliverPayroll(target, delivery);
        dead = true;
        throw new Error('crash after the provider accepted');
      },
    },
  };
}

const later = (minutes: number) => () => new Date(Date.now() + minutes * 60_000);

/** A published PAYROLL_DISPATCH manifest with its entries, file and PENDING outbox record, as the report worker leaves them. */
async function publishedDispatch(revision = 1): Promise<{ manifest: Manifest; outboxId: string }> {
  const at = new Date().toISOString();
  const id = randomUUID();
  const entryId = randomUUID();
  const body = Buffer.from(`\ufeffemployeeId,minutes\r\n${entryId},${60 * revision}\r\n`);
  const fileKey = `reports/${ORG}/${id}.csv`;
  await exportFileStore().put(fileKey, body, 'text/csv; charset=utf-8');
  const manifest: Manifest = {
    id,
    organizationId: ORG,
    kind: 'PAYROLL_DISPATCH',
    period: { from: '2026-06-01T00:00:00Z', to: '2026-07-01T00:00:00Z' },
    scope: { employeeIds: [], locationIds: [] },
    status: 'PUBLISHED',
    jobId: randomUUID(),
    entryCount: 1,
    contentHash: `sha256:${createHash('sha256').update(body).digest('hex')}`,
    fileHash: `sha256:${createHash('sha256').update(body).digest('hex')}`,
    contentType: 'text/csv; charset=utf-8',
    byteSize: body.length,
    fileKey,
    requestedBy: { keyId: 'k1', label: 'test key' },
    createdAt: at,
    publishedAt: at,
    stale: null,
    replacesManifestId: null,
    replacedByManifestId: null,
    version: 2,
  };
  const outboxId = randomUUID();
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: manifestToItem(manifest) }));
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: manifestEntryToItem(ORG, id, { id: entryId, revision }) }));
  await db.doc.send(
    new PutCommand({
      TableName: db.tableName,
      Item: outboxToItem({ id: outboxId, organizationId: ORG, manifestId: id, destination: 'PAYROLL_PROVIDER', status: 'PENDING', replacesManifestId: null, createdAt: at, sentAt: null, dispatchJobId: null }),
    }),
  );
  return { manifest, outboxId };
}

async function requestDispatch(outboxRecordId: string): Promise<string> {
  const job = await inUnitOfWork(db, (unit) =>
    requestJob({ store: integrationsStore(db, unit, queue), credentials: credentialStore(unit, secrets), now: () => new Date(), newId: randomUUID, allowLoopbackHttp: true }, actor, 'payroll', { kind: 'PAYROLL_DISPATCH', outboxRecordId }),
  );
  return job.id;
}

const message = (jobId: string): JobMessage => ({ organizationId: ORG, jobId });
const claim = async (outboxId: string) => (await db.doc.send(new GetCommand({ TableName: db.tableName, Key: integrationKeys.dispatchClaim(ORG, outboxId) }))).Item;
const auditActions = async (jobId: string) =>
  (
    (
      await db.doc.send(
        new QueryCommand({ TableName: db.tableName, IndexName: 'GSI2', KeyConditionExpression: 'GSI2PK = :pk', ExpressionAttributeValues: { ':pk': `ORG#${ORG}#AUDIT#integration_job#${jobId}` } }),
      )
    ).Items ?? []
  ).map((i) => i.action as string);

beforeAll(async () => {
  db = await createTestTable();
  await inUnitOfWork(db, (unit) =>
    createIntegration({ store: integrationsStore(db, unit, queue), credentials: credentialStore(unit, secrets), now: () => new Date(), newId: randomUUID, allowLoopbackHttp: true }, actor, {
      provider: 'payroll',
      displayName: 'Payroll',
      baseUrl: 'https://payroll.example.com/api',
      approvedJobKinds: ['PAYROLL_DISPATCH'],
      credentials: { token: 'token-for-tests' },
    }),
  );
});

describe('a crash after the provider accepted, before the bookkeeping', () => {
  const fake = new FakePayrollProvider();
  let outboxId: string;
  let jobId: string;

  beforeAll(async () => {
    ({ outboxId } = await publishedDispatch());
    jobId = await requestDispatch(outboxId);
  });

  it('leaves the job RUNNING with DELIVERING recorded, the outbox PENDING, and the provider holding one delivery', async () => {
    await expect(runIntegrationJob(crashing(fake, 'afterAccepted'), message(jobId))).rejects.toThrow('the worker process is gone');
    expect(await getJob(db, ORG, jobId)).toMatchObject({ status: 'RUNNING', delivering: true, attempts: 1 });
    expect((await getOutboxRecord(db, ORG, outboxId))?.status).toBe('PENDING');
    expect(fake.deliveries()).toHaveLength(1);
  });

  it('is not taken by another run while the dead run still holds its lease', async () => {
    await runIntegrationJob(ports(fake), message(jobId));
    expect((await getJob(db, ORG, jobId))?.status).toBe('RUNNING');
    expect(fake.requests).toBe(1);
  });

  it('is re-queued by the sweeper when the lease ends, and the next run records the delivery without sending again', async () => {
    sent.length = 0;
    expect(await requeueDueJobs({ store: sweeperStore(db), queue, now: later(3) })).toBeGreaterThanOrEqual(1);
    expect(sent.map((s) => s.message.jobId)).toContain(jobId);
    await runIntegrationJob(ports(fake, later(3)), message(jobId));

    expect(fake.requests).toBe(1);
    expect(fake.deliveries()).toHaveLength(1);
    expect(fake.duplicatesIgnored).toBe(0);
    expect(await getJob(db, ORG, jobId)).toMatchObject({ status: 'SUCCEEDED', attempts: 2, delivering: true, deliveredAt: expect.any(String), error: null });
    expect(await getOutboxRecord(db, ORG, outboxId)).toMatchObject({ status: 'SENT', dispatchJobId: jobId });
    expect(await claim(outboxId)).toMatchObject({ state: 'DONE', jobId });
    expect((await auditActions(jobId)).filter((a) => a === 'integration_job.payroll_delivered')).toHaveLength(1);
    // Finished: out of the due list, and a late message does nothing.
    await runIntegrationJob(ports(fake, later(10)), message(jobId));
    expect(fake.requests).toBe(1);
  });
});

describe('a crash after DELIVERING was recorded, before the send', () => {
  it('asks the provider, which has nothing, and sends once', async () => {
    const fake = new FakePayrollProvider();
    const { outboxId } = await publishedDispatch();
    const jobId = await requestDispatch(outboxId);
    await expect(runIntegrationJob(crashing(fake, 'beforeSend'), message(jobId))).rejects.toThrow();
    expect(fake.requests).toBe(0);
    await runIntegrationJob(ports(fake, later(3)), message(jobId));
    expect(fake.deliveries()).toHaveLength(1);
    expect(await getOutboxRecord(db, ORG, outboxId)).toMatchObject({ status: 'SENT', dispatchJobId: jobId });
  });
});

describe('a provider whose lookup lags behind its bookings', () => {
  it('gets the delivery again under the same idempotency key and books it once', async () => {
    const fake = new FakePayrollProvider();
    const { outboxId } = await publishedDispatch();
    const jobId = await requestDispatch(outboxId);
    await expect(runIntegrationJob(crashing(fake, 'afterAccepted'), message(jobId))).rejects.toThrow();
    await runIntegrationJob(ports(fake, later(3), { lookupLags: true }), message(jobId));
    expect(fake.requests).toBe(2);
    expect(fake.deliveries()).toHaveLength(1);
    expect(fake.duplicatesIgnored).toBe(1);
    expect((await getJob(db, ORG, jobId))?.status).toBe('SUCCEEDED');
  });
});

describe('staleness', () => {
  const markStale = (manifestId: string) =>
    db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: reportKeys.manifest(ORG, manifestId),
        UpdateExpression: 'SET stale = :s ADD version :one',
        ExpressionAttributeValues: { ':s': { at: new Date().toISOString(), entryId: randomUUID(), revision: 2, requestId: 'r' }, ':one': 1 },
      }),
    );

  it('never sends a manifest that went stale before the send: FAILED, the claim released, the record PENDING', async () => {
    const fake = new FakePayrollProvider();
    const { manifest, outboxId } = await publishedDispatch();
    const jobId = await requestDispatch(outboxId);
    await markStale(manifest.id);
    await runIntegrationJob(ports(fake), message(jobId));
    expect(fake.requests).toBe(0);
    expect(await getJob(db, ORG, jobId)).toMatchObject({ status: 'FAILED', error: { code: 'EXPORT_MANIFEST_STALE' } });
    expect((await getOutboxRecord(db, ORG, outboxId))?.status).toBe('PENDING');
    expect(await claim(outboxId)).toMatchObject({ state: 'RELEASED' });
  });

  it('records a delivery that happened before the manifest went stale (it was sent; nothing is sent again)', async () => {
    const fake = new FakePayrollProvider();
    const { manifest, outboxId } = await publishedDispatch();
    const jobId = await requestDispatch(outboxId);
    await expect(runIntegrationJob(crashing(fake, 'afterAccepted'), message(jobId))).rejects.toThrow();
    await markStale(manifest.id);
    await runIntegrationJob(ports(fake, later(3)), message(jobId));
    expect(fake.requests).toBe(1);
    expect(await getOutboxRecord(db, ORG, outboxId)).toMatchObject({ status: 'SENT', dispatchJobId: jobId });
  });
});

describe('retries with backoff', () => {
  it('tries a provider that keeps answering 503 MAX_ATTEMPTS times, waiting longer each time, then fails with a safe summary', async () => {
    const fake = new FakePayrollProvider();
    fake.failNext(503, 10);
    const { outboxId } = await publishedDispatch();
    const jobId = await requestDispatch(outboxId);
    let clock = Date.now();
    const waits: number[] = [];
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      sent.length = 0;
      await runIntegrationJob(ports(fake, () => new Date(clock)), message(jobId));
      const job = (await getJob(db, ORG, jobId))!;
      expect(job.attempts).toBe(attempt);
      if (attempt < MAX_ATTEMPTS) {
        expect(job).toMatchObject({ status: 'QUEUED', error: { code: 'PROVIDER_UNAVAILABLE', message: 'The provider answered HTTP 503.' } });
        const wait = Date.parse(job.nextAttemptAt) - clock;
        waits.push(wait);
        expect(sent).toEqual([{ message: message(jobId), delaySeconds: Math.ceil(wait / 1000) }]);
        // Not due before its time.
        await runIntegrationJob(ports(fake, () => new Date(clock + wait - 1_000)), message(jobId));
        expect((await getJob(db, ORG, jobId))?.attempts).toBe(attempt);
        clock += wait;
      }
    }
    expect(waits).toEqual([30_000, 60_000, 120_000, 240_000]);
    const failed = (await getJob(db, ORG, jobId))!;
    expect(failed).toMatchObject({ status: 'FAILED', error: { code: 'PROVIDER_UNAVAILABLE' } });
    expect(failed.error!.message).toMatch(/Gave up after 5 attempts/);
    expect(fake.deliveries()).toHaveLength(0);
    expect(await claim(outboxId)).toMatchObject({ state: 'RELEASED' });
  });

  it('runs a job once when two deliveries of its message arrive at the same time', async () => {
    const fake = new FakePayrollProvider();
    const { outboxId } = await publishedDispatch();
    const jobId = await requestDispatch(outboxId);
    await Promise.all([runIntegrationJob(ports(fake), message(jobId)), runIntegrationJob(ports(fake), message(jobId))]);
    expect(fake.requests).toBe(1);
    expect((await getJob(db, ORG, jobId))?.status).toBe('SUCCEEDED');
  });
});

describe('a provider host that resolves to an address egress refuses', () => {
  it('fails the job at once with a safe summary (no host, no address), sends nothing and releases the claim', async () => {
    const { outboxId } = await publishedDispatch();
    const jobId = await requestDispatch(outboxId);
    // The integration's https://payroll.example.com/api now resolves to the instance metadata service.
    const resolve = jest.fn(async () => [{ address: '169.254.169.254', family: 4 }]);
    sent.length = 0;
    const { logs } = await withCapturedLogs(() => runIntegrationJob({ ...ports(new FakePayrollProvider()), provider: httpProviderClient({ resolve }) }, message(jobId)));
    expect(resolve).toHaveBeenCalledWith('payroll.example.com');
    const failed = (await getJob(db, ORG, jobId))!;
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 1, delivering: true, error: { code: 'PROVIDER_ADDRESS_REFUSED' } });
    expect(JSON.stringify(failed.error)).not.toMatch(/payroll\.example|169\.254/);
    expect(logs).toMatch(/ADDRESS_REFUSED/);
    expect(logs).not.toMatch(/payroll\.example|169\.254|token-for-tests/);
    expect(sent).toEqual([]);
    expect((await getOutboxRecord(db, ORG, outboxId))?.status).toBe('PENDING');
    expect(await claim(outboxId)).toMatchObject({ state: 'RELEASED' });
    expect(await auditActions(jobId)).toContain('integration_job.failed');
  });
});
