import { createHash, randomUUID } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { call, expectProblem, startApi, type ApiFixture } from '../support/api';
import { hasPoppler, pdfText, warnWithoutPoppler } from '../support/pdf';

warnWithoutPoppler('test/api/reports.test.ts');

/**
 * Issue 5: exports with manifests; corrections inside an export make it stale (response,
 * audit, manifest), corrections outside do not; voids do; a stale payroll dispatch is only
 * ever replaced explicitly, by a dispatch pinned to the current revisions and linked to it.
 */
let api: ApiFixture;
let admin: string;
let base: string;

beforeAll(async () => {
  api = await startApi();
  admin = api.demo.keys.admin;
  base = api.orgUrl();
});
afterAll(() => api.close());

const [EMP_A, EMP_B] = ['1b2c3d4e-5f60-4718-89a0-b1c2d3e4f501', '1b2c3d4e-5f60-4718-89a0-b1c2d3e4f502'];
const LOC = '4e5f6071-8293-4a4b-9cd3-e4f506070801';
const MARCH = { from: '2026-03-01T00:00:00Z', to: '2026-04-01T00:00:00Z' };

async function createEntry(employeeId: string, startedAt: string, endedAt: string) {
  const res = await call('POST', `${base}/timesheets`, {
    token: admin,
    idempotencyKey: randomUUID(),
    body: { employeeId, context: { kind: 'REGISTERED_LOCATION', locationId: LOC }, startedAt, endedAt, breakMinutes: 30, reason: 'report test' },
  });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, etag: res.headers.get('etag')! };
}

async function correct(entry: { id: string; etag: string }, body: Record<string, unknown>) {
  const res = await call('PATCH', `${base}/timesheets/${entry.id}`, { token: admin, idempotencyKey: randomUUID(), ifMatch: entry.etag, body: { reason: 'fix', ...body } });
  expect(res.status).toBe(200);
  entry.etag = res.headers.get('etag')!;
  return res;
}

async function requestExport(body: Record<string, unknown>) {
  const res = await call('POST', `${base}/reports/generation-jobs`, { token: admin, idempotencyKey: randomUUID(), body });
  expect(res.status).toBe(202);
  expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/reports/generation-jobs/${res.body.id}`);
  return res.body.id as string;
}

async function finished(jobId: string) {
  for (let i = 0; i < 200; i += 1) {
    const res = await call('GET', `${base}/reports/generation-jobs/${jobId}`, { token: admin });
    if (res.body.status === 'SUCCEEDED' || res.body.status === 'FAILED') return res.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${jobId} did not finish`);
}

/**
 * GET /reports/files/{id} answers 302 to a presigned GET of the private bucket (issue 12,
 * item 1): checked here, then the file is fetched from there without the API key, as
 * `curl -L` or any redirect-following client does.
 */
async function download(manifestId: string): Promise<Response> {
  // A client asks for the file's own type: the redirect answers whatever Accept says (no 406).
  const res = await fetch(`${base}/reports/files/${manifestId}`, { headers: { Authorization: `Bearer ${admin}`, Accept: 'text/csv, application/pdf' }, redirect: 'manual' });
  expect(res.status).toBe(302);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = (await res.json()) as { manifestId: string; download: { method: string; url: string; expiresAt: string } };
  const location = res.headers.get('location')!;
  expect(body).toMatchObject({ manifestId, download: { method: 'GET', url: location } });
  const url = new URL(location);
  expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
  expect(url.pathname).toContain(`/reports/${api.demo.organizationId}/${manifestId}.`);
  return fetch(location);
}

const manifest = async (id: string) => (await call('GET', `${base}/reports/${id}`, { token: admin })).body;

const auditOf = async (requestId: string) => {
  const res = await call('GET', `${base}/audit?limit=50`, { token: admin });
  return (res.body.items as { requestId: string; staleExportManifestIds: string[] }[]).find((a) => a.requestId === requestId);
};

describe('an export and what makes it stale', () => {
  let a: { id: string; etag: string };
  let b: { id: string; etag: string };
  let csvManifest: string;

  beforeAll(async () => {
    a = await createEntry(EMP_A, '2026-03-02T08:00:00+01:00', '2026-03-02T16:00:00+01:00');
    b = await createEntry(EMP_B, '2026-03-03T08:00:00+01:00', '2026-03-03T12:00:00+01:00');
    const job = await finished(await requestExport({ kind: 'TIMESHEET_CSV', period: MARCH }));
    expect(job).toMatchObject({ status: 'SUCCEEDED', failureReason: null, progress: { processedEmployees: expect.any(Number) } });
    csvManifest = job.manifestId;
  });

  it('records the exact revisions, a content hash of the file, and a spreadsheet-ready CSV', async () => {
    const m = await manifest(csvManifest);
    expect(m).toMatchObject({ kind: 'TIMESHEET_CSV', status: 'CURRENT', stale: null, period: { from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' }, entryCount: 2, requestedBy: { label: 'Demo key: admin' } });
    expect(m.entries).toEqual(expect.arrayContaining([{ id: a.id, revision: 1 }, { id: b.id, revision: 1 }]));
    const file = await download(csvManifest);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="timesheet_csv-2026-03-01-.{8}\.csv"/);
    const bytes = Buffer.from(await file.arrayBuffer());
    // A CSV is its content: the file hash and the content hash are the same.
    expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(m.contentHash);
    expect(m.fileHash).toBe(m.contentHash);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').split('\r\n');
    expect(lines[0]).toMatch(/^entry_id,revision,employee_id,employee_name,started_at,ended_at,break_minutes,worked_minutes/);
    expect(lines.filter((l) => l.includes(a.id))).toEqual([expect.stringContaining(`${a.id},1,${EMP_A},Ada Lindqvist,2026-03-02T07:00:00.000Z,2026-03-02T15:00:00.000Z,30,450`)]);
    expect(lines.at(-1)).toBe('');
  });

  it('lists it stale when a correction changes an entry in it: response, audit and manifest', async () => {
    const res = await correct(a, { breakMinutes: 45 });
    expect(res.body.staleExportManifestIds).toEqual([csvManifest]);
    expect((await auditOf(res.requestId!))?.staleExportManifestIds).toEqual([csvManifest]);
    expect(await manifest(csvManifest)).toMatchObject({ status: 'STALE', stale: { entryId: a.id, revision: 2, requestId: res.requestId } });
    // The stale manifest stays readable and keeps the revisions it holds.
    expect((await manifest(csvManifest)).entries).toEqual(expect.arrayContaining([{ id: a.id, revision: 1 }]));
  });

  it('does not list it for a correction outside its period', async () => {
    const may = await createEntry(EMP_A, '2026-05-04T08:00:00Z', '2026-05-04T12:00:00Z');
    const res = await correct(may, { endedAt: '2026-05-04T13:00:00Z' });
    expect(res.body.staleExportManifestIds).toEqual([]);
  });

  it('does not list an export of another employee for a correction of this one', async () => {
    const onlyB = (await finished(await requestExport({ kind: 'TIMESHEET_CSV', period: MARCH, employeeIds: [EMP_B] }))).manifestId;
    const res = await correct(a, { breakMinutes: 40 });
    expect(res.body.staleExportManifestIds).not.toContain(onlyB);
    expect((await manifest(onlyB)).status).toBe('CURRENT');
  });

  it('lists a new export when an entry moves into its period', async () => {
    const april = (await finished(await requestExport({ kind: 'MONTHLY_REPORT', period: { from: '2026-04-01T00:00:00Z', to: '2026-05-01T00:00:00Z' } }))).manifestId;
    const may = await createEntry(EMP_B, '2026-05-10T08:00:00Z', '2026-05-10T09:00:00Z');
    const res = await correct(may, { startedAt: '2026-04-30T08:00:00Z', endedAt: '2026-04-30T09:00:00Z' });
    expect(res.body.staleExportManifestIds).toEqual([april]);
  });

  it('lists it when an entry in it is voided', async () => {
    const fresh = (await finished(await requestExport({ kind: 'TIMESHEET_CSV', period: MARCH }))).manifestId;
    const res = await call('POST', `${base}/timesheets/${b.id}/void`, { token: admin, idempotencyKey: randomUUID(), ifMatch: b.etag, body: { reason: 'duplicate' } });
    expect(res.status).toBe(200);
    expect(res.body.staleExportManifestIds).toEqual(expect.arrayContaining([fresh]));
    expect(await manifest(fresh)).toMatchObject({ status: 'STALE', stale: { entryId: b.id, revision: 2 } });
  });
});

describe('payroll dispatch and its explicit replacement', () => {
  const APRIL_PAYROLL = { from: '2026-06-01T00:00:00Z', to: '2026-07-01T00:00:00Z' };
  let entry: { id: string; etag: string };
  let dispatch: string;

  beforeAll(async () => {
    entry = await createEntry(EMP_A, '2026-06-02T08:00:00Z', '2026-06-02T16:00:00Z');
    dispatch = (await finished(await requestExport({ kind: 'PAYROLL_DISPATCH', period: APRIL_PAYROLL }))).manifestId;
  });

  it('goes through the outbox, never straight to the provider', async () => {
    const outbox = await call('GET', `${base}/reports/outbox`, { token: admin });
    expect(outbox.body.items).toEqual(expect.arrayContaining([expect.objectContaining({ manifestId: dispatch, destination: 'PAYROLL_PROVIDER', status: 'PENDING', replacesManifestId: null })]));
  });

  it('is sent once: another dispatch that could hold its entries is 409 PAYROLL_PERIOD_EXPORTED naming it; one that cannot is accepted', async () => {
    const exportsBefore = (await call('GET', `${base}/reports/outbox`, { token: admin })).body.items.length;
    for (const body of [
      { kind: 'PAYROLL_DISPATCH', period: APRIL_PAYROLL },
      { kind: 'PAYROLL_DISPATCH', period: { from: '2026-06-15T00:00:00Z', to: '2026-07-10T00:00:00Z' } },
      { kind: 'PAYROLL_DISPATCH', period: APRIL_PAYROLL, employeeIds: [EMP_B] },
      { kind: 'PAYROLL_DISPATCH', period: APRIL_PAYROLL, locationIds: [LOC] },
    ]) {
      const res = await call('POST', `${base}/reports/generation-jobs`, { token: admin, idempotencyKey: randomUUID(), body });
      expectProblem(res, 409, 'PAYROLL_PERIOD_EXPORTED');
      expect(res.body.manifestIds).toEqual([dispatch]);
      expect(res.body.detail).toContain(`manifest ${dispatch}`);
    }
    // Internal reports of the period are simply requested again (here of another employee, so
    // that the correction below alters only the dispatch); so is payroll of the next period.
    expect((await finished(await requestExport({ kind: 'TIMESHEET_CSV', period: APRIL_PAYROLL, employeeIds: [EMP_B] }))).status).toBe('SUCCEEDED');
    expect((await finished(await requestExport({ kind: 'PAYROLL_DISPATCH', period: { from: '2026-07-01T00:00:00Z', to: '2026-07-02T00:00:00Z' } }))).status).toBe('SUCCEEDED');
    expect((await call('GET', `${base}/reports/outbox`, { token: admin })).body.items.length).toBe(exportsBefore + 1);
  });

  it('refuses to replace a dispatch that is not stale', async () => {
    const res = await call('POST', `${base}/reports/generation-jobs`, { token: admin, idempotencyKey: randomUUID(), body: { kind: 'PAYROLL_DISPATCH', replacesManifestId: dispatch } });
    expectProblem(res, 422, 'VALIDATION_ERROR');
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/replacesManifestId', detail: expect.stringMatching(/not stale/) })]);
  });

  it('after a correction, is replaced only on request, pinned to the current revisions and linked to the stale one', async () => {
    const corrected = await correct(entry, { endedAt: '2026-06-02T17:00:00Z' });
    expect(corrected.body.staleExportManifestIds).toEqual([dispatch]);
    const before = await call('GET', `${base}/reports/outbox`, { token: admin });
    expect(before.body.items.filter((r: { replacesManifestId: string }) => r.replacesManifestId === dispatch)).toEqual([]);

    const job = await finished(await requestExport({ kind: 'PAYROLL_DISPATCH', replacesManifestId: dispatch }));
    expect(job).toMatchObject({ status: 'SUCCEEDED', replacesManifestId: dispatch, period: { from: '2026-06-01T00:00:00.000Z' } });
    const replacement = await manifest(job.manifestId);
    expect(replacement).toMatchObject({ status: 'CURRENT', replacesManifestId: dispatch, entries: [{ id: entry.id, revision: 2 }] });
    expect(await manifest(dispatch)).toMatchObject({ status: 'STALE', replacedByManifestId: job.manifestId });
    const outbox = await call('GET', `${base}/reports/outbox`, { token: admin });
    expect(outbox.body.items).toEqual(expect.arrayContaining([expect.objectContaining({ manifestId: job.manifestId, replacesManifestId: dispatch, status: 'PENDING' })]));

    const again = await call('POST', `${base}/reports/generation-jobs`, { token: admin, idempotencyKey: randomUUID(), body: { kind: 'PAYROLL_DISPATCH', replacesManifestId: dispatch } });
    expect(again.body.errors).toEqual([expect.objectContaining({ detail: expect.stringMatching(/already replaced/) })]);

    // Later corrections name the replacement, never the replaced manifest (a client acting on
    // the list would be told it is already replaced), and the first stale mark stays as it was.
    const replacedBefore = await manifest(dispatch);
    const later = await correct(entry, { endedAt: '2026-06-02T17:30:00Z' });
    expect(later.body.staleExportManifestIds).toEqual([job.manifestId]);
    const latest = await correct(entry, { endedAt: '2026-06-02T17:45:00Z' });
    expect(latest.body.staleExportManifestIds).toEqual([job.manifestId]);
    expect(await manifest(dispatch)).toEqual(replacedBefore);
    expect(await manifest(job.manifestId)).toMatchObject({ status: 'STALE', stale: { entryId: entry.id, revision: 3 } });
  });
});

describe('files', () => {
  it('renders a timesheet PDF that a PDF reader opens, traceable to its manifest', async () => {
    const job = await finished(await requestExport({ kind: 'TIMESHEET_PDF', period: MARCH }));
    const res = await download(job.manifestId);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const pdf = await PDFDocument.load(bytes);
    expect(pdf.getPageCount()).toBeGreaterThanOrEqual(1);
    expect(pdf.getTitle()).toMatch(/^Timesheet – /);
    // The file carries its manifest id and generation time: its hash is the file hash; the
    // content hash (printed on it) covers the content only.
    const m = await manifest(job.manifestId);
    expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(m.fileHash);
    expect(m.contentHash).not.toBe(m.fileHash);
    if (hasPoppler) {
      const text = pdfText(bytes);
      expect(text).toContain('Ada Lindqvist');
      expect(text).toContain(`Manifest ${job.manifestId} · content ${m.contentHash}`);
    }
  });

  it('renders the monthly report as a PDF page per employee with its total', async () => {
    const job = await finished(await requestExport({ kind: 'MONTHLY_REPORT', period: MARCH, employeeIds: [EMP_A] }));
    const res = await download(job.manifestId);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(1);
    if (hasPoppler) {
      const text = pdfText(bytes);
      expect(text).toContain('Ada Lindqvist');
      expect(text).toMatch(/Total\s+\d+:\d\d/);
      expect(text).toContain('Employee: signature and date');
    }
  });
});

describe('bad input and failures', () => {
  const post = (body: unknown, idempotencyKey: string | null = randomUUID()) =>
    call('POST', `${base}/reports/generation-jobs`, { token: admin, body, ...(idempotencyKey === null ? {} : { idempotencyKey }) });

  it.each([
    [{ kind: 'EXCEL', period: MARCH }, '/kind'],
    [{ kind: 'MONTHLY_REPORT', period: { from: '2026-03-01T00:00:00Z', to: '2026-04-02T00:00:00Z' } }, '/period/to'],
    [{ kind: 'TIMESHEET_CSV', period: { from: MARCH.to, to: MARCH.from } }, '/period/to'],
    [{ kind: 'TIMESHEET_CSV' }, '/period'],
    [{ kind: 'TIMESHEET_CSV', period: MARCH, employeeIds: ['2c3d4e5f-6071-4829-9ab1-c2d3e4f50601'] }, '/employeeIds/0'],
    [{ kind: 'TIMESHEET_CSV', period: MARCH, locationIds: ['5f607182-93a4-4b5c-8de4-f50607080901'] }, '/locationIds/0'],
    [{ kind: 'TIMESHEET_CSV', replacesManifestId: randomUUID() }, '/replacesManifestId'],
    [{ kind: 'PAYROLL_DISPATCH', replacesManifestId: randomUUID() }, '/replacesManifestId'],
  ])('answers 422 for %j, pointing at %s', async (body, pointer) => {
    const res = await post(body);
    expectProblem(res, 422, 'VALIDATION_ERROR');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
  });

  it('needs an Idempotency-Key and replays with it', async () => {
    expectProblem(await post({ kind: 'TIMESHEET_CSV', period: MARCH }, null), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    const key = randomUUID();
    const first = await post({ kind: 'TIMESHEET_CSV', period: MARCH }, key);
    const second = await post({ kind: 'TIMESHEET_CSV', period: MARCH }, key);
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(second.body.id).toBe(first.body.id);
    expect((await finished(first.body.id)).status).toBe('SUCCEEDED');
  });

  it('marks a failed generation FAILED with a reason and publishes nothing', async () => {
    // The worker cannot write the file: the bucket is not there.
    const bucket = process.env.REPORTS_BUCKET;
    process.env.REPORTS_BUCKET = 'wfm-no-such-bucket';
    try {
      const before = (await call('GET', `${base}/reports?limit=200`, { token: admin })).body.items.length;
      const job = await finished(await requestExport({ kind: 'TIMESHEET_CSV', period: MARCH }));
      expect(job).toMatchObject({ status: 'FAILED', manifestId: null, failureReason: expect.stringMatching(/nothing was published/) });
      expect(job.failureReason).not.toMatch(/NoSuchBucket|wfm-no-such-bucket|S3|\/tmp/);
      expect((await call('GET', `${base}/reports?limit=200`, { token: admin })).body.items.length).toBe(before);
    } finally {
      process.env.REPORTS_BUCKET = bucket;
    }
  });

  it('keeps organizations apart', async () => {
    const other = api.demo.keys.otherOrganization;
    const any = (await call('GET', `${base}/reports`, { token: admin })).body.items[0].id;
    expectProblem(await call('GET', `${base}/reports/${any}`, { token: other }), 403, 'ACCESS_DENIED');
    expectProblem(await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}/reports/${any}`, { token: other }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await call('GET', `${base}/reports`, { token: api.demo.keys.timesheetsNoWorkEvents }), 403, 'SCOPE_REQUIRED');
  });
});
