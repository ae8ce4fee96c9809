import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { requeueStrandedJobs, runReportJob } from '../../services/reports/domain-worker';
import { handler as workerHandler } from '../../services/reports/handler-worker';
import { reportKeys, type JobMessage } from '../../services/reports/model';
import { getJob, takeJob } from '../../services/reports/store-jobs';
import { jobQueue, replaceLocalJobQueue } from '../../services/reports/store-queue';
import { sweeperStore } from '../../services/reports/store-sweeper';
import { workerPorts } from '../../services/reports/store-worker';
import { call, startApi, type ApiFixture } from '../support/api';

/**
 * Issue 10 item 8 and issue 11 item 10: a job whose queue message was never sent still
 * completes (the sweeper sends it again), a message for a job that already started runs
 * nothing twice, and the job and the manifest answer strong ETags.
 */
let api: ApiFixture;
let admin: string;
let base: string;

beforeAll(async () => {
  api = await startApi();
  admin = api.demo.keys.admin;
  base = api.orgUrl();
});
afterAll(async () => {
  replaceLocalJobQueue(undefined);
  await api.close();
});

const EMP_A = '1b2c3d4e-5f60-4718-89a0-b1c2d3e4f501';
const LOC = '4e5f6071-8293-4a4b-9cd3-e4f506070801';
const MAY = { from: '2026-05-01T00:00:00Z', to: '2026-06-01T00:00:00Z' };
const IN_3_MINUTES = () => new Date(Date.now() + 3 * 60_000);
const sweep = (now = IN_3_MINUTES) => requeueStrandedJobs({ store: sweeperStore(api.db), queue: jobQueue(), now });

/** Requests an export while the queue refuses every message: answered 202, the job stays QUEUED. */
async function requestWithFailingQueue(body: Record<string, unknown>): Promise<string> {
  const sent: JobMessage[] = [];
  replaceLocalJobQueue({
    send: async (message) => {
      sent.push(message);
      throw new Error('SQS is unavailable');
    },
  });
  try {
    const res = await call('POST', `${base}/reports/generation-jobs`, { token: admin, idempotencyKey: randomUUID(), body });
    expect(res.status).toBe(202);
    expect(sent).toEqual([{ organizationId: api.demo.organizationId, jobId: res.body.id }]);
    return res.body.id as string;
  } finally {
    replaceLocalJobQueue(undefined);
  }
}

async function finished(jobId: string) {
  for (let i = 0; i < 200; i += 1) {
    const res = await call('GET', `${base}/reports/generation-jobs/${jobId}`, { token: admin });
    if (res.body.status === 'SUCCEEDED' || res.body.status === 'FAILED') return res;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${jobId} did not finish`);
}

const jobItem = async (jobId: string) => (await api.db.doc.send(new GetCommand({ TableName: api.db.tableName, Key: reportKeys.job(api.demo.organizationId, jobId) }))).Item!;
const dueList = async () =>
  (await api.db.doc.send(new QueryCommand({ TableName: api.db.tableName, IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :due', ExpressionAttributeValues: { ':due': reportKeys.duePartition } }))).Items ?? [];
const publishedCount = async () => (await call('GET', `${base}/reports?limit=200`, { token: admin })).body.items.length as number;

describe('a job whose queue message was never sent', () => {
  let jobId: string;

  beforeAll(async () => {
    const entry = await call('POST', `${base}/timesheets`, {
      token: admin,
      idempotencyKey: randomUUID(),
      body: { employeeId: EMP_A, context: { kind: 'REGISTERED_LOCATION', locationId: LOC }, startedAt: '2026-05-04T08:00:00Z', endedAt: '2026-05-04T12:00:00Z', breakMinutes: 0, reason: 'sweeper test' },
    });
    expect(entry.status).toBe(201);
    jobId = await requestWithFailingQueue({ kind: 'TIMESHEET_CSV', period: MAY });
  });

  it('stays QUEUED and in the due list, with its request audited', async () => {
    await new Promise((r) => setTimeout(r, 200));
    const res = await call('GET', `${base}/reports/generation-jobs/${jobId}`, { token: admin });
    expect(res.body).toMatchObject({ id: jobId, status: 'QUEUED', manifestId: null });
    expect((await dueList()).map((i) => i.id)).toContain(jobId);
    const audit = await call('GET', `${base}/audit?limit=50`, { token: admin });
    expect(audit.body.items.some((a: { action: string; entity: { id: string } }) => a.action === 'report_job.requested' && a.entity.id === jobId)).toBe(true);
  });

  it('is left alone by the sweeper until it is older than the bound', async () => {
    expect(await sweep(() => new Date())).toBe(0);
    expect((await getJob(api.db, api.demo.organizationId, jobId))?.status).toBe('QUEUED');
  });

  it('completes once the sweeper sends it again, and leaves the due list', async () => {
    expect(await sweep()).toBe(1);
    const done = await finished(jobId);
    expect(done.body).toMatchObject({ status: 'SUCCEEDED', failureReason: null, manifestId: expect.any(String) });
    const manifest = await call('GET', `${base}/reports/${done.body.manifestId}`, { token: admin });
    expect(manifest.status).toBe(200);
    expect(manifest.body.entryCount).toBe(1);
    const item = await jobItem(jobId);
    expect(item.GSI1PK).toBeUndefined();
    expect((await dueList()).map((i) => i.id)).not.toContain(jobId);
    // Nothing left to sweep.
    expect(await sweep()).toBe(0);
  });

  it('runs nothing twice when its message arrives again after it finished', async () => {
    const before = await call('GET', `${base}/reports/generation-jobs/${jobId}`, { token: admin });
    const manifests = await publishedCount();
    const event = { Records: [{ messageId: 'again', body: JSON.stringify({ organizationId: api.demo.organizationId, jobId }) }] } as unknown as SQSEvent;
    expect(await workerHandler(event)).toEqual({ batchItemFailures: [] });
    const after = await call('GET', `${base}/reports/generation-jobs/${jobId}`, { token: admin });
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(await publishedCount()).toBe(manifests);
  });
});

describe('a job that a run already started', () => {
  it('is not started a second time by a re-sent message, nor re-queued by the sweeper', async () => {
    const jobId = await requestWithFailingQueue({ kind: 'MONTHLY_REPORT', period: MAY });
    const org = api.demo.organizationId;
    const queued = await getJob(api.db, org, jobId);
    // A worker took it (and is still generating it).
    const now = new Date().toISOString();
    expect(await takeJob(api.db, queued!, 'first-run', now, new Date(Date.now() - 6 * 60_000).toISOString())).toBe(true);
    const monthIndex = async () =>
      (await api.db.doc.send(new QueryCommand({ TableName: api.db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': reportKeys.monthIndex(org, '2026-05', '').PK } }))).Items ?? [];
    const manifestsBefore = (await monthIndex()).length;

    await runReportJob(workerPorts(), { organizationId: org, jobId });

    const job = await getJob(api.db, org, jobId);
    expect(job).toMatchObject({ status: 'RUNNING', runId: 'first-run', manifestId: null });
    expect((await monthIndex()).length).toBe(manifestsBefore);
    expect(await sweep()).toBe(0);
  });
});

describe('ETags of a job and of a manifest (GET one: 200 + ETag)', () => {
  it('answers a strong ETag for the job that moves on with it', async () => {
    const res = await call('POST', `${base}/reports/generation-jobs`, { token: admin, idempotencyKey: randomUUID(), body: { kind: 'TIMESHEET_CSV', period: MAY } });
    expect(res.status).toBe(202);
    const done = await finished(res.body.id);
    expect(done.headers.get('etag')).toMatch(new RegExp(`^"report-job:${res.body.id}:v\\d+"$`));
    // QUEUED (v1) -> RUNNING -> SUCCEEDED: a later version than the queued job's.
    expect(done.headers.get('etag')).not.toBe(`"report-job:${res.body.id}:v1"`);
  });

  it('answers a strong ETag for the manifest that changes when it goes stale', async () => {
    const entry = await call('POST', `${base}/timesheets`, {
      token: admin,
      idempotencyKey: randomUUID(),
      body: { employeeId: EMP_A, context: { kind: 'REGISTERED_LOCATION', locationId: LOC }, startedAt: '2026-05-11T08:00:00Z', endedAt: '2026-05-11T12:00:00Z', breakMinutes: 0, reason: 'etag test' },
    });
    expect(entry.status).toBe(201);
    const job = await call('POST', `${base}/reports/generation-jobs`, { token: admin, idempotencyKey: randomUUID(), body: { kind: 'TIMESHEET_CSV', period: MAY } });
    const manifestId = (await finished(job.body.id)).body.manifestId as string;
    const current = await call('GET', `${base}/reports/${manifestId}`, { token: admin });
    expect(current.status).toBe(200);
    expect(current.headers.get('etag')).toMatch(new RegExp(`^"export-manifest:${manifestId}:v\\d+"$`));
    expect((await call('GET', `${base}/reports/${manifestId}`, { token: admin })).headers.get('etag')).toBe(current.headers.get('etag'));

    const corrected = await call('PATCH', `${base}/timesheets/${entry.body.id}`, { token: admin, idempotencyKey: randomUUID(), ifMatch: entry.headers.get('etag')!, body: { breakMinutes: 10, reason: 'fix' } });
    expect(corrected.status).toBe(200);
    const stale = await call('GET', `${base}/reports/${manifestId}`, { token: admin });
    expect(stale.body.status).toBe('STALE');
    expect(stale.headers.get('etag')).toMatch(new RegExp(`^"export-manifest:${manifestId}:v\\d+"$`));
    expect(stale.headers.get('etag')).not.toBe(current.headers.get('etag'));
  });
});
