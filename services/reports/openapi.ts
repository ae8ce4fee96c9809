import { listOf } from '../openapi/list';
import type { AreaDocs } from '../openapi/types';
import { createJobBodySchema, jobResponseSchema, manifestResponseSchema, manifestSummarySchema, outboxResponseSchema, pageQuery } from './schemas';

export const reportsDocs: AreaDocs = {
  schemas: {
    ReportJob: jobResponseSchema,
    ExportManifest: manifestResponseSchema,
    ExportManifestSummary: manifestSummarySchema,
    ExportManifestList: listOf(manifestSummarySchema),
    PayrollOutboxRecord: outboxResponseSchema,
    PayrollOutboxList: listOf(outboxResponseSchema),
  },
  operations: {
    createReportJob: {
      description:
        'Requests an export of the CLOSED entries that start in the period (from inclusive, to exclusive), for every employee and location or the ones listed. ' +
        'A replacement dispatch names a stale PAYROLL_DISPATCH manifest in replacesManifestId instead of a period: it is pinned to the current revisions and linked to the stale one. ' +
        'Answers 202 with the job; poll it for the manifest.',
      body: createJobBodySchema,
      headers: { 'Idempotency-Key': 'required' },
      success: { status: 202, description: 'The queued job.', ref: 'ReportJob', headers: ['Location', 'Idempotency-Replayed'] },
      problems: ['IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_REQUEST_IN_PROGRESS', 'VALIDATION_ERROR', 'MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'],
    },
    getReportJob: { description: 'Status, progress and result (manifestId or failureReason) of an export request.', success: { status: 200, description: 'The job.', ref: 'ReportJob' }, problems: ['RESOURCE_NOT_FOUND'] },
    listReports: { description: 'Published export manifests, newest first; stale ones stay listed and traceable.', query: pageQuery, success: { status: 200, description: 'A page of manifests.', ref: 'ExportManifestList' }, problems: ['VALIDATION_ERROR'] },
    listPayrollOutbox: {
      description: 'Payroll dispatches waiting for the payroll integration job to send them. Payroll is never resent automatically.',
      query: pageQuery,
      success: { status: 200, description: 'A page of outbox records.', ref: 'PayrollOutboxList' },
      problems: ['VALIDATION_ERROR'],
    },
    getReport: { description: 'One manifest: kind, period, scope, the exact revisions it contains, content hash, staleness and replacement links.', success: { status: 200, description: 'The manifest.', ref: 'ExportManifest' }, problems: ['RESOURCE_NOT_FOUND'] },
    downloadReport: {
      description: 'The file: CSV (UTF-8 with BOM, RFC 4180, header row) or PDF. The ETag is the manifest content hash.',
      success: {
        status: 200,
        description: 'The file.',
        headers: ['ETag', 'Content-Disposition'],
        content: { 'text/csv': { type: 'string' }, 'application/pdf': { type: 'string', contentMediaType: 'application/pdf' } },
      },
      problems: ['RESOURCE_NOT_FOUND'],
    },
  },
};
