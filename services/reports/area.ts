import { defineArea } from '../shared/area';
import { jobRoute, listRoute, readRoute } from '../shared/route-shapes';
import { pageSchema } from '../shared/schemas/fields';
import { PROBLEMS } from './problems';
import { createJobBodySchema, fileDownloadResponseSchema, jobResponseSchema, manifestResponseSchema, manifestSummarySchema, outboxResponseSchema, pageQuery } from './schemas';

/** Exports (CSV, PDF, monthly report, payroll dispatch), their manifests, the payroll outbox, and the worker behind them. */
export const reportsArea = defineArea({
  name: 'reports',
  api: 'public',
  description: 'Exports (CSV, PDF, monthly report, payroll dispatch), their manifests and staleness.',
  // Report jobs and manifests: requests a job (queue), reads manifests, streams files (bucket).
  permissions: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'DeleteItem', 'ConditionCheckItem'], cursorSecret: true, restrictedDataKey: false, reportsBucket: [{ prefix: 'reports/', actions: ['s3:GetObject'] }], jobQueues: ['reports'] },
  auditEntityTypes: ['report_job', 'export_manifest'],
  problems: PROBLEMS,
  schemas: {
    ReportJob: jobResponseSchema,
    ExportManifest: manifestResponseSchema,
    ExportManifestSummary: manifestSummarySchema,
    ExportManifestList: pageSchema(manifestSummarySchema),
    PayrollOutboxRecord: outboxResponseSchema,
    PayrollOutboxList: pageSchema(outboxResponseSchema),
    ExportFileDownload: fileDownloadResponseSchema,
  },
  functions: [
    {
      name: 'reports-worker',
      entry: 'services/reports/handler-worker.ts',
      description: 'Export generation',
      timeoutSeconds: 300,
      // The PDF font (DejaVu Sans: names with diacritics), read beside the bundle (store-fonts.ts).
      assets: { 'DejaVuSans.ttf': 'node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf', 'DejaVuSans-Bold.ttf': 'node_modules/dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf' },
      // Generates exports: reads entries, opens and publishes manifests, writes files and the payroll outbox.
      permissions: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem', 'BatchWriteItem'], cursorSecret: false, restrictedDataKey: false, reportsBucket: [{ prefix: 'reports/', actions: ['s3:PutObject'] }] },
    },
    {
      name: 'reports-sweeper',
      entry: 'services/reports/handler-sweeper.ts',
      description: 'Re-queues stranded export jobs',
      timeoutSeconds: 60,
      // Reads the due list of queued jobs (GSI1) and moves a job's due time on; sends to the queue.
      permissions: { table: ['Query', 'UpdateItem'], cursorSecret: false, restrictedDataKey: false, jobQueues: ['reports'] },
    },
  ],
  routes: {
    createReportJob: jobRoute({
      path: '/reports/generation-jobs',
      scopes: ['reports:write'],
      summary: 'Request an export (CSV, PDF, monthly report or payroll dispatch)',
      description:
        'Requests an export of the CLOSED entries that start in the period (from inclusive, to exclusive), for every employee and location or the ones listed. ' +
        'A replacement dispatch names a stale PAYROLL_DISPATCH manifest in replacesManifestId instead of a period: it is pinned to the current revisions and linked to the stale one. ' +
        'Payroll is sent once: a PAYROLL_DISPATCH that could hold an entry of an earlier, not abandoned one (periods overlap, scopes share an employee and a location) is 409 `PAYROLL_PERIOD_EXPORTED`, naming it in `manifestIds`. ' +
        'Answers 202 with the job; poll it for the manifest. A job whose queue message was lost is queued again within minutes.',
      body: createJobBodySchema,
      schema: jobResponseSchema,
      returns: 'The queued job.',
      problems: [PROBLEMS.PAYROLL_PERIOD_EXPORTED],
    }),
    getReportJob: readRoute({
      path: '/reports/generation-jobs/{jobId}',
      scopes: ['reports:read'],
      summary: 'Progress and result of an export request',
      description: 'Status, progress and result (manifestId or failureReason) of an export request. While RUNNING, `progress.processed` of `progress.total` employees rises (written when the run starts and in up to 20 steps). The ETag changes with every change of status or progress.',
      schema: jobResponseSchema,
      returns: 'The job.',
    }),
    listReports: listRoute({
      path: '/reports',
      scopes: ['reports:read'],
      summary: 'Export manifests, newest first',
      description: 'Published export manifests, newest first; stale ones stay listed and traceable.',
      query: pageQuery,
      schema: pageSchema(manifestSummarySchema),
      returns: 'A page of manifests.',
    }),
    listPayrollOutbox: listRoute({
      path: '/reports/outbox',
      scopes: ['reports:read'],
      summary: 'Payroll dispatches waiting for the integration job',
      description: 'Payroll dispatches waiting for the payroll integration job to send them. Payroll is never resent automatically.',
      query: pageQuery,
      schema: pageSchema(outboxResponseSchema),
      returns: 'A page of outbox records.',
    }),
    getReport: readRoute({
      path: '/reports/{manifestId}',
      scopes: ['reports:read'],
      summary: 'One export manifest with the revisions it contains',
      description:
        'One manifest: kind, period, scope, the exact revisions it contains, content hash, staleness and replacement links. The ETag changes when the manifest goes stale or is replaced.',
      schema: manifestResponseSchema,
      returns: 'The manifest.',
    }),
    downloadReport: {
      method: 'GET',
      path: '/reports/files/{manifestId}',
      scopes: ['reports:read'],
      summary: 'The file of an export',
      description:
        'Redirects (302) to a presigned GET of the file in the private export bucket, valid 5 minutes: CSV (UTF-8 with BOM, RFC 4180, header row) or PDF, answered with its file name (Content-Disposition: attachment) and content type. The body says the same for clients that do not follow redirects (`download.url`). The API never streams the bytes (API Gateway and Lambda cap responses at 6 MB and turn binary into base64 unless the client asks for it); the URL is a secret until it expires. The ETag is the file hash (`fileHash` of the manifest). `curl -L` fetches the file.',
      success: { status: 302, description: 'Found: the file is at `Location`.', schema: fileDownloadResponseSchema, headers: ['Location', 'ETag'] },
      noStore: true,
      problems: [],
    },
  },
});
