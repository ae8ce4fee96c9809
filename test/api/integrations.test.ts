import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { runIntegrationJob } from '../../services/integrations/domain-worker';
import { replaceLocalIntegrationQueue } from '../../services/integrations/store-queue';
import { workerPorts } from '../../services/integrations/store-worker';
import type { QueuedJob } from '../../services/shared/queue-worker';
import { fakePayroll } from '../../services/local/fake-payroll';
import { call, countByType, expectProblem, startApi, type ApiFixture } from '../support/api';
import { withCapturedLogs } from '../support/logs';

/**
 * Issue 17, integrations: connecting providers with credentials that never come back, jobs
 * of approved kinds only, and the whole payroll path through the local gateway: correction ->
 * stale manifest -> replacement -> dispatch job -> the fake provider received revision 2,
 * exactly once; retries with backoff and rejections with a safe error summary.
 */
const SECRET_DIR = mkdtempSync(join(tmpdir(), 'wfm-secrets-'));
process.env.LOCAL_SECRET_STORE_DIR = SECRET_DIR;
process.env.INTEGRATIONS_ALLOW_LOOPBACK_HTTP = 'true';

const TOKEN = 'prov-token-Zq81-never-shown';
const EMP = '1b2c3d4e-5f60-4718-89a0-b1c2d3e4f501';
const LOC = '4e5f6071-8293-4a4b-9cd3-e4f506070801';

let api: ApiFixture;
let admin: string;
let base: string;
let payroll: { id: string; etag: string };

beforeAll(async () => {
  api = await startApi();
  admin = api.demo.keys.admin;
  base = api.orgUrl();
  fakePayroll.reset();
});
afterAll(() => api.close());

/** The secret-store documents of the demo organization's integrations. */
function secretFiles(): string[] {
  const walk = (path: string): string[] => (statSync(path).isDirectory() ? readdirSync(path).flatMap((n) => walk(join(path, n))) : [path]);
  return walk(join(SECRET_DIR, 'integrations', api.demo.organizationId));
}

const post = (path: string, body: unknown) => call('POST', `${base}${path}`, { token: admin, idempotencyKey: randomUUID(), body });

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out');
}

const job = (id: string) => call('GET', `${base}/integrations/jobs/${id}`, { token: admin });
const finishedJob = async (id: string) => (await until(() => job(id), (r) => r.body.status === 'SUCCEEDED' || r.body.status === 'FAILED')).body;
const reportJob = (id: string) => call('GET', `${base}/reports/generation-jobs/${id}`, { token: admin });

async function payrollExport(body: Record<string, unknown>): Promise<{ manifestId: string; outboxId: string }> {
  const res = await post('/reports/generation-jobs', { kind: 'PAYROLL_DISPATCH', ...body });
  expect(res.status).toBe(202);
  const done = (await until(() => reportJob(res.body.id), (r) => r.body.status === 'SUCCEEDED' || r.body.status === 'FAILED')).body;
  expect(done.status).toBe('SUCCEEDED');
  const outbox = await call('GET', `${base}/reports/outbox?limit=200`, { token: admin });
  const record = outbox.body.items.find((r: { manifestId: string }) => r.manifestId === done.manifestId);
  return { manifestId: done.manifestId, outboxId: record.id };
}

async function createEntry(startedAt: string, endedAt: string) {
  const res = await post('/timesheets', { employeeId: EMP, context: { kind: 'REGISTERED_LOCATION', locationId: LOC }, startedAt, endedAt, breakMinutes: 0, reason: 'integrations test' });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, etag: res.headers.get('etag')! };
}

const dispatch = (outboxRecordId: string, idempotencyKey = randomUUID()) =>
  call('POST', `${base}/integrations/providers/payroll/jobs`, { token: admin, idempotencyKey, body: { kind: 'PAYROLL_DISPATCH', outboxRecordId } });

describe('connecting a provider', () => {
  it('creates the payroll integration; the credentials go to the secret store and never come back', async () => {
    const res = await post('/integrations', {
      provider: 'payroll',
      displayName: 'Fake payroll',
      baseUrl: `${api.gateway.url}/_fake/payroll/`,
      approvedJobKinds: ['PAYROLL_DISPATCH', 'CONNECTION_CHECK'],
      credentials: { token: TOKEN },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ provider: 'payroll', status: 'ACTIVE', credentialsSet: true, baseUrl: `${api.gateway.url}/_fake/payroll`, approvedJobKinds: ['PAYROLL_DISPATCH', 'CONNECTION_CHECK'] });
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/integrations/${res.body.id}`);
    expect(res.text).not.toContain(TOKEN);
    payroll = { id: res.body.id, etag: res.headers.get('etag')! };

    const files = secretFiles();
    expect(files).toHaveLength(1);
    expect(files[0]).toContain(join(api.demo.organizationId, payroll.id));
    expect(statSync(files[0]!).mode & 0o777).toBe(0o600);
    expect(readFileSync(files[0]!, 'utf8')).toContain(TOKEN);
  });

  it('keeps the credentials out of the table, the audit trail and every read', async () => {
    const items = (await api.db.doc.send(new ScanCommand({ TableName: api.db.tableName }))).Items ?? [];
    expect(JSON.stringify(items)).not.toContain(TOKEN);
    const audit = await call('GET', `${base}/audit?limit=200`, { token: admin });
    expect(audit.text).not.toContain(TOKEN);
    expect(audit.body.items.find((a: { action: string }) => a.action === 'integration.created')).toMatchObject({ entity: { type: 'integration', id: payroll.id } });
    for (const path of ['/integrations', `/integrations/${payroll.id}`]) expect((await call('GET', `${base}${path}`, { token: admin })).text).not.toContain(TOKEN);
  });

  it('replaces the credentials with PUT (If-Match), audited by name only, and never logs them', async () => {
    const { result: res, logs } = await withCapturedLogs(() =>
      call('PUT', `${base}/integrations/providers/payroll/credentials`, { token: admin, idempotencyKey: randomUUID(), ifMatch: payroll.etag, body: { credentials: { token: `${TOKEN}-2` } } }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ credentialsSet: true, credentialsUpdatedAt: expect.any(String) });
    expect(res.text).not.toContain(TOKEN);
    expect(logs).not.toContain(TOKEN);
    payroll.etag = res.headers.get('etag')!;
    const audit = await call('GET', `${base}/audit?limit=200`, { token: admin });
    expect(audit.text).not.toContain(TOKEN);
    expect(audit.body.items.find((a: { action: string }) => a.action === 'integration.credentials_set')).toMatchObject({ changedAttributes: ['credentials'] });
    const stale = await call('PUT', `${base}/integrations/providers/payroll/credentials`, { token: admin, idempotencyKey: randomUUID(), ifMatch: '"integration:x:v1"', body: { credentials: { token: TOKEN } } });
    expectProblem(stale, 412, 'ETAG_MISMATCH');
    // The replaced credentials left the store: one document, the new token.
    expect(secretFiles().map((f) => readFileSync(f, 'utf8'))).toEqual([expect.stringContaining(`${TOKEN}-2`)]);
  });

  it('of two credential PUTs at the same version, the one answered 412 leaves nothing: the store keeps the 200\'s token', async () => {
    for (let round = 0; round < 3; round += 1) {
      const put = (token: string) => call('PUT', `${base}/integrations/providers/payroll/credentials`, { token: admin, idempotencyKey: randomUUID(), ifMatch: payroll.etag, body: { credentials: { token } } });
      const tokens = [`${TOKEN}-race${round}a`, `${TOKEN}-race${round}b`];
      const answers = await Promise.all(tokens.map(put));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
      const winner = answers.findIndex((a) => a.status === 200);
      payroll.etag = answers[winner]!.headers.get('etag')!;
      expect(secretFiles().map((f) => readFileSync(f, 'utf8'))).toEqual([expect.stringContaining(tokens[winner]!)]);
    }
  });

  it('refuses a token no HTTP header can carry (422 at /credentials/token, the value never echoed) and writes nothing', async () => {
    const SECRET = 'SUPERSECRET';
    const unsendable = [`${SECRET}\r\nX-Injected: yes`, `${SECRET}\nmore`, `${SECRET}\tTAB1`, `${SECRET} spaced`, ` ${SECRET}`, `${SECRET}\u007fDEL`, `${SECRET}\u00e9t\u00e9`, `${SECRET}\u0000NUL`];
    const secretsBefore = secretFiles().map((f) => [f, readFileSync(f, 'utf8')]);
    const itemsBefore = await countByType(api.db);
    const integrationBefore = await call('GET', `${base}/integrations/${payroll.id}`, { token: admin });
    const { result: answers, logs } = await withCapturedLogs(async () => {
      const out = [];
      for (const token of unsendable) {
        out.push(await post('/integrations', { provider: 'accounting', displayName: 'Books', baseUrl: 'https://books.example.com', approvedJobKinds: [], credentials: { token } }));
        out.push(await call('PUT', `${base}/integrations/providers/payroll/credentials`, { token: admin, idempotencyKey: randomUUID(), ifMatch: payroll.etag, body: { credentials: { token } } }));
      }
      return out;
    });
    for (const res of answers) {
      expectProblem(res, 422, 'VALIDATION_ERROR');
      expect(res.body.errors).toEqual([{ pointer: '/credentials/token', detail: expect.stringContaining('printable ASCII') }]);
      expect(res.text).not.toContain(SECRET);
      expect(JSON.stringify([...res.headers])).not.toContain(SECRET);
    }
    expect(logs).not.toContain(SECRET);
    // Nothing written: no integration, audit entry or idempotency record; the secret store as it was; the payroll integration unchanged.
    expect(await countByType(api.db)).toEqual(itemsBefore);
    expect(secretFiles().map((f) => [f, readFileSync(f, 'utf8')])).toEqual(secretsBefore);
    const integrationAfter = await call('GET', `${base}/integrations/${payroll.id}`, { token: admin });
    expect({ etag: integrationAfter.headers.get('etag'), body: integrationAfter.body }).toEqual({ etag: integrationBefore.headers.get('etag'), body: integrationBefore.body });
    expect((await call('GET', `${base}/integrations`, { token: admin })).body.items.map((i: { provider: string }) => i.provider)).not.toContain('accounting');
    // The whole printable range but the space is accepted (a bearer token may carry any of it).
    const printable = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    const accepted = await call('PUT', `${base}/integrations/providers/payroll/credentials`, { token: admin, idempotencyKey: randomUUID(), ifMatch: payroll.etag, body: { credentials: { token: printable } } });
    expect(accepted.status).toBe(200);
    const restored = await call('PUT', `${base}/integrations/providers/payroll/credentials`, { token: admin, idempotencyKey: randomUUID(), ifMatch: accepted.headers.get('etag')!, body: { credentials: { token: TOKEN } } });
    expect(restored.status).toBe(200);
    payroll.etag = restored.headers.get('etag')!;
  });

  it('connects one integration per provider, https egress only, supported kinds only', async () => {
    expectProblem(await post('/integrations', { provider: 'payroll', displayName: 'Again', baseUrl: 'https://payroll.example.com', approvedJobKinds: [] }), 409, 'INTEGRATION_EXISTS');
    const plain = await post('/integrations', { provider: 'accounting', displayName: 'Books', baseUrl: 'http://books.example.com', approvedJobKinds: [] });
    expectProblem(plain, 422, 'VALIDATION_ERROR');
    expect(plain.body.errors).toEqual([expect.objectContaining({ pointer: '/baseUrl' })]);
    expectProblem(await post('/integrations', { provider: 'accounting', displayName: 'Books', baseUrl: 'https://10.0.0.8/api', approvedJobKinds: [] }), 422, 'VALIDATION_ERROR');
    const kind = await post('/integrations', { provider: 'accounting', displayName: 'Books', baseUrl: 'https://books.example.com', approvedJobKinds: ['PAYROLL_DISPATCH'] });
    expectProblem(kind, 422, 'VALIDATION_ERROR');
    expect(kind.body.errors).toEqual([expect.objectContaining({ pointer: '/approvedJobKinds/0' })]);
  });
});

describe('jobs of approved kinds', () => {
  it('refuses a kind the integration did not approve (422), an unknown provider (404), and a provider without credentials (409)', async () => {
    const hr = await post('/integrations', { provider: 'hr', displayName: 'HR', baseUrl: 'https://hr.example.com', approvedJobKinds: [] });
    expect(hr.status).toBe(201);
    const refused = await call('POST', `${base}/integrations/providers/hr/jobs`, { token: admin, idempotencyKey: randomUUID(), body: { kind: 'CONNECTION_CHECK' } });
    expectProblem(refused, 422, 'VALIDATION_ERROR');
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/kind' })]);
    expectProblem(await call('POST', `${base}/integrations/providers/crm/jobs`, { token: admin, idempotencyKey: randomUUID(), body: { kind: 'CONNECTION_CHECK' } }), 404, 'RESOURCE_NOT_FOUND');
    const approved = await call('PATCH', `${base}/integrations/${hr.body.id}`, { token: admin, idempotencyKey: randomUUID(), ifMatch: hr.headers.get('etag')!, body: { approvedJobKinds: ['CONNECTION_CHECK'] } });
    expect(approved.status).toBe(200);
    expectProblem(await call('POST', `${base}/integrations/providers/hr/jobs`, { token: admin, idempotencyKey: randomUUID(), body: { kind: 'CONNECTION_CHECK' } }), 409, 'INTEGRATION_CREDENTIALS_MISSING');
  });

  it('runs a connection check QUEUED -> SUCCEEDED', async () => {
    const res = await call('POST', `${base}/integrations/providers/payroll/jobs`, { token: admin, idempotencyKey: randomUUID(), body: { kind: 'CONNECTION_CHECK' } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'QUEUED', kind: 'CONNECTION_CHECK', attempts: 0, error: null });
    expect(await finishedJob(res.body.id)).toMatchObject({ status: 'SUCCEEDED', attempts: 1, progress: { step: 'DONE', percent: 100 } });
  });
});

describe('the payroll path: correction -> stale -> replacement -> dispatch -> provider received revision 2', () => {
  const JUNE = { from: '2026-06-01T00:00:00Z', to: '2026-07-01T00:00:00Z' };
  let entry: { id: string; etag: string };
  let first: { manifestId: string; outboxId: string };
  let replacement: { manifestId: string; outboxId: string };
  let jobId: string;

  beforeAll(async () => {
    entry = await createEntry('2026-06-02T08:00:00Z', '2026-06-02T16:00:00Z');
    first = await payrollExport({ period: JUNE });
  });

  it('never sends a stale manifest', async () => {
    const corrected = await call('PATCH', `${base}/timesheets/${entry.id}`, { token: admin, idempotencyKey: randomUUID(), ifMatch: entry.etag, body: { reason: 'fix', endedAt: '2026-06-02T17:00:00Z' } });
    expect(corrected.body.staleExportManifestIds).toEqual([first.manifestId]);
    const res = await dispatch(first.outboxId);
    expectProblem(res, 409, 'EXPORT_MANIFEST_STALE');
    expect(res.body.manifestId).toBe(first.manifestId);
    expect(fakePayroll.requests).toBe(0);
  });

  it('dispatches the replacement exactly once, pinned to revision 2', async () => {
    replacement = await payrollExport({ replacesManifestId: first.manifestId });
    const key = randomUUID();
    const res = await dispatch(replacement.outboxId, key);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'QUEUED', outboxRecordId: replacement.outboxId, manifestId: replacement.manifestId, deliveryId: replacement.outboxId });
    jobId = res.body.id;
    const done = await finishedJob(jobId);
    expect(done).toMatchObject({ status: 'SUCCEEDED', attempts: 1, error: null, deliveredAt: expect.any(String) });

    // What the provider received, as the curl walk-through reads it.
    const received = await fetch(`${api.gateway.url}/_fake/payroll/deliveries`).then((r) => r.json() as Promise<{ items: { manifestId: string; entries: unknown[]; fileSha256: string; contentHash: string; replacesManifestId: string }[]; duplicatesIgnored: number }>);
    expect(received.items).toHaveLength(1);
    expect(received.items[0]).toMatchObject({ manifestId: replacement.manifestId, replacesManifestId: first.manifestId, entries: [{ id: entry.id, revision: 2 }] });
    expect(received.items[0].fileSha256).toBe(received.items[0].contentHash);
    expect(received.duplicatesIgnored).toBe(0);

    const outbox = await call('GET', `${base}/reports/outbox?limit=200`, { token: admin });
    expect(outbox.body.items.find((r: { id: string }) => r.id === replacement.outboxId)).toMatchObject({ status: 'SENT', dispatchJobId: jobId, sentAt: expect.any(String) });
    expect(outbox.body.items.find((r: { id: string }) => r.id === first.outboxId)).toMatchObject({ status: 'PENDING', dispatchJobId: null });

    // The same request again is the same job (idempotent); a new request is refused.
    const replay = await dispatch(replacement.outboxId, key);
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.body.id).toBe(jobId);
    expectProblem(await dispatch(replacement.outboxId), 409, 'OUTBOX_RECORD_SENT');
    expect(fakePayroll.deliveries()).toHaveLength(1);
  });

  it('audits the delivery on the job, with the records it moved', async () => {
    const audit = await call('GET', `${base}/audit?limit=200`, { token: admin });
    const entry = audit.body.items.find((a: { action: string; entity: { id: string } }) => a.action === 'integration_job.payroll_delivered' && a.entity.id === jobId);
    expect(entry).toMatchObject({ actor: { type: 'SYSTEM', label: 'Integration worker' }, references: { outboxRecordId: replacement.outboxId, manifestId: replacement.manifestId } });
    expect(audit.text).not.toContain(TOKEN);
  });

  it('lists the jobs newest first', async () => {
    const list = await call('GET', `${base}/integrations/jobs?limit=1`, { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0].id).toBe(jobId);
    expect(list.body.nextCursor).toEqual(expect.any(String));
  });
});

describe('retries and rejections', () => {
  const JULY = { from: '2026-07-01T00:00:00Z', to: '2026-08-01T00:00:00Z' };
  const AUGUST = { from: '2026-08-01T00:00:00Z', to: '2026-09-01T00:00:00Z' };

  it('tries a provider that answered 503 again after the backoff, and delivers once', async () => {
    await createEntry('2026-07-03T08:00:00Z', '2026-07-03T12:00:00Z');
    const record = await payrollExport({ period: JULY });
    fakePayroll.failNext(503, 1);
    const res = await dispatch(record.outboxId);
    const waiting = (await until(() => job(res.body.id), (r) => r.body.attempts === 1 && r.body.status === 'QUEUED')).body;
    expect(waiting).toMatchObject({ error: { code: 'PROVIDER_UNAVAILABLE', message: 'The provider answered HTTP 503.' }, nextAttemptAt: expect.any(String) });
    const backoff = Date.parse(waiting.nextAttemptAt) - Date.parse(waiting.updatedAt);
    expect(backoff).toBeGreaterThanOrEqual(15_000);
    expect(backoff).toBeLessThanOrEqual(30_000);

    // Not before its time; then, once due (the clock moved past the backoff), it succeeds.
    const later = { ...workerPorts({ db: api.db }), now: () => new Date(Date.now() + 60_000) };
    await runIntegrationJob(workerPorts({ db: api.db }), { organizationId: api.demo.organizationId, jobId: res.body.id });
    expect((await job(res.body.id)).body.status).toBe('QUEUED');
    await runIntegrationJob(later, { organizationId: api.demo.organizationId, jobId: res.body.id });
    expect((await job(res.body.id)).body).toMatchObject({ status: 'SUCCEEDED', attempts: 2, error: null });
    expect(fakePayroll.deliveries().filter((d) => d.outboxRecordId === record.outboxId)).toHaveLength(1);
  });

  it('fails a job at once (FAILED, not retried as INTERNAL_ERROR) when the stored token cannot be sent in a header (stored before writes refused it)', async () => {
    const [file] = secretFiles();
    const original = readFileSync(file!, 'utf8');
    const bad = 'SUPERSECRET\r\nX-Injected: yes';
    writeFileSync(file!, `${JSON.stringify({ value: JSON.stringify({ token: bad }) })}\n`, { mode: 0o600 });
    try {
      const res = await call('POST', `${base}/integrations/providers/payroll/jobs`, { token: admin, idempotencyKey: randomUUID(), body: { kind: 'CONNECTION_CHECK' } });
      expect(res.status).toBe(202);
      const failed = await finishedJob(res.body.id);
      expect(failed).toMatchObject({ status: 'FAILED', attempts: 1, nextAttemptAt: null, error: { code: 'INTEGRATION_CREDENTIALS_INVALID', message: expect.stringContaining('cannot be sent in an HTTP header') } });
      expect(JSON.stringify(failed)).not.toContain('SUPERSECRET');
    } finally {
      writeFileSync(file!, original, { mode: 0o600 });
    }
  });

  it('fails at once when the provider rejects, with a safe summary, and lets a new job try again', async () => {
    await createEntry('2026-08-04T08:00:00Z', '2026-08-04T12:00:00Z');
    const record = await payrollExport({ period: AUGUST });
    fakePayroll.failNext(401, 1);
    // The first job's message is held until the second dispatch is answered: a rejection is
    // quick, and a job already FAILED no longer holds the record.
    const held: QueuedJob[] = [];
    replaceLocalIntegrationQueue({ send: async (message) => void held.push(message) });
    let res: Awaited<ReturnType<typeof dispatch>>;
    try {
      res = await dispatch(record.outboxId);
      expect(res.status).toBe(202);
      expectProblem(await dispatch(record.outboxId), 409, 'OUTBOX_RECORD_IN_DISPATCH');
    } finally {
      replaceLocalIntegrationQueue(undefined);
    }
    expect(held).toEqual([{ organizationId: api.demo.organizationId, jobId: res.body.id }]);
    await runIntegrationJob(workerPorts({ db: api.db }), held[0]);
    const failed = await finishedJob(res.body.id);
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 1, error: { code: 'PROVIDER_REJECTED', message: 'The provider rejected the request (HTTP 401). Check the integration credentials.' } });
    expect(JSON.stringify(failed)).not.toMatch(/injected|unauthorized/);
    const again = await dispatch(record.outboxId);
    expect(again.status).toBe(202);
    expect(await finishedJob(again.body.id)).toMatchObject({ status: 'SUCCEEDED', deliveryId: record.outboxId });
    expect(fakePayroll.deliveries().filter((d) => d.outboxRecordId === record.outboxId)).toHaveLength(1);
  });
});
