import * as z from 'zod';
import { limitParameter } from '../shared/http/query';
import { presignedRequest } from '../shared/schemas/fields';
import { instant, uuid } from '../shared/time';
import { responseOf } from '../shared/schemas/response';
import { REPORT_KINDS, type Manifest, type ManifestEntry, type OutboxRecord, type ReportJob } from './model';

/** Wire shapes of the reports area: strict requests, and responses that list every member they show. */

/** `limit` and `cursor` of the reports lists. */
export const pageQuery = z.object({ limit: limitParameter(), cursor: z.string().max(2048).optional() }).strict();

export const createJobBodySchema = z
  .object({
    kind: z.enum(REPORT_KINDS, { error: `kind must be one of ${REPORT_KINDS.join(', ')}.` }),
    period: z.object({ from: instant(), to: instant() }).strict().optional(),
    employeeIds: z.array(uuid()).max(100, { message: 'At most 100 employeeIds; leave it out for every employee.' }).optional(),
    locationIds: z.array(uuid()).max(100, { message: 'At most 100 locationIds; leave it out for every location.' }).optional(),
    replacesManifestId: uuid().optional().meta({ description: 'A stale PAYROLL_DISPATCH manifest to replace (explicit, revision-pinned re-dispatch).' }),
  })
  .strict();

const utc = () => z.string().meta({ format: 'date-time' });
const periodSchema = z.object({ from: utc(), to: utc() });
const scopeSchema = z.object({ employeeIds: z.array(z.uuid()), locationIds: z.array(z.uuid()) });

export const jobResponseSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(REPORT_KINDS),
    status: z.enum(['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED']),
    period: periodSchema,
    scope: scopeSchema,
    replacesManifestId: z.uuid().nullable(),
    progress: z
      .object({
        processed: z.number().int().min(0).meta({ description: 'Employees whose entries the run has read so far; rises while the job is RUNNING.', examples: [120] }),
        total: z
          .number()
          .int()
          .min(0)
          .nullable()
          .meta({ description: 'Employees the export covers: known once the run started (null while QUEUED for an export of every employee).', examples: [480] }),
        processedEmployees: z.number().int().meta({ deprecated: true, description: 'Same as `processed`.', examples: [120] }),
        totalEmployees: z.number().int().nullable().meta({ deprecated: true, description: 'Same as `total`.', examples: [480] }),
      })
      .meta({ description: 'How far the export got: `processed` of `total` employees read. Written when the run starts and in up to 20 steps while it runs; a finished job shows processed = total.' }),
    manifestId: z.uuid().nullable(),
    failureReason: z.string().nullable(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'ReportJob' });

const manifestFields = {
  id: z.uuid(),
  kind: z.enum(REPORT_KINDS),
  status: z.enum(['CURRENT', 'STALE']).meta({ description: 'STALE once a create, correction or void changed what it contains.' }),
  period: periodSchema,
  scope: scopeSchema,
  entryCount: z.number().int(),
  contentHash: z.string().meta({
    description: 'sha256 of the content in machine form (the CSV rows; for CSV exports the file itself). Printed on every PDF page; changes only when the content changes, never with the generation time or manifest id.',
    examples: ['sha256:9f2c4e0b7d3a51e8c6f4a2d9b0e7c3f15a8d6e2b4c9f0a1d7e3b5c8f2a6d4e91'],
  }),
  fileHash: z.string().meta({ description: 'sha256 of the file as downloaded (the ETag of the download); equals contentHash for CSV exports.', examples: ['sha256:41d7b2c9e0f3a6d85b1c4e7f2a9d0c3b6e8f1a4d7c2b5e9f0a3d6c8b1e4f7a2d'] }),
  contentType: z.string(),
  byteSize: z.number().int(),
  jobId: z.uuid(),
  requestedBy: z.object({ label: z.string() }),
  createdAt: utc(),
  publishedAt: utc(),
  stale: z.object({ at: utc(), entryId: z.uuid(), revision: z.number().int(), requestId: z.string() }).nullable().meta({ description: 'The first change that made it stale.' }),
  replacesManifestId: z.uuid().nullable(),
  replacedByManifestId: z.uuid().nullable(),
  download: z.string().meta({ description: 'Path of the file.' }),
};

export const manifestSummarySchema = z.object(manifestFields).meta({ id: 'ExportManifestSummary' });
export const manifestResponseSchema = z
  .object({ ...manifestFields, entries: z.array(z.object({ id: z.uuid(), revision: z.number().int() })).meta({ description: 'The time entries and the exact revisions exported.' }) })
  .meta({ id: 'ExportManifest' });

export const outboxResponseSchema = z
  .object({
    id: z.uuid(),
    manifestId: z.uuid(),
    destination: z.literal('PAYROLL_PROVIDER'),
    status: z.enum(['PENDING', 'SENT']).meta({ description: 'SENT once the payroll integration job delivered it (exactly once).' }),
    replacesManifestId: z.uuid().nullable(),
    createdAt: utc(),
    sentAt: utc().nullable(),
    dispatchJobId: z.uuid().nullable().meta({ description: 'The integration job that delivered it.' }),
  })
  .meta({ id: 'PayrollOutboxRecord' });

export const fileDownloadResponseSchema = z
  .object({ manifestId: z.uuid(), contentHash: z.string(), download: presignedRequest('GET') })
  .meta({ id: 'ExportFileDownload', description: 'Where to fetch the file: a presigned GET, valid 5 minutes (also the Location of the 302).' });

const orgPath = (org: string) => `/v1/organizations/${org}`;

export const jobResponse = (j: ReportJob): z.infer<typeof jobResponseSchema> => responseOf(jobResponseSchema, j, {
  scope: { employeeIds: [...j.scope.employeeIds], locationIds: [...j.scope.locationIds] },
  progress: { processed: j.progress.processedEmployees, total: j.progress.totalEmployees, processedEmployees: j.progress.processedEmployees, totalEmployees: j.progress.totalEmployees },
});

export const jobPath = (j: Pick<ReportJob, 'organizationId' | 'id'>) => `${orgPath(j.organizationId)}/reports/generation-jobs/${j.id}`;

export const manifestSummary = (m: Manifest): z.infer<typeof manifestSummarySchema> => responseOf(manifestSummarySchema, m, {
  status: m.stale ? 'STALE' : 'CURRENT',
  scope: { employeeIds: [...m.scope.employeeIds], locationIds: [...m.scope.locationIds] },
  contentHash: m.contentHash ?? '',
  fileHash: m.fileHash ?? m.contentHash ?? '',
  contentType: m.contentType ?? '',
  byteSize: m.byteSize ?? 0,
  requestedBy: { label: m.requestedBy.label },
  publishedAt: m.publishedAt ?? m.createdAt,
  download: `${orgPath(m.organizationId)}/reports/files/${m.id}`,
});

export const manifestResponse = (m: Manifest, entries: readonly ManifestEntry[]): z.infer<typeof manifestResponseSchema> => ({
  ...manifestSummary(m),
  entries: entries.map((e) => ({ id: e.id, revision: e.revision })),
});

export const outboxResponse = (r: OutboxRecord): z.infer<typeof outboxResponseSchema> => responseOf(outboxResponseSchema, r);

export const fileDownloadResponse = (m: Manifest, download: z.infer<ReturnType<typeof presignedRequest>>): z.infer<typeof fileDownloadResponseSchema> => ({
  manifestId: m.id,
  contentHash: m.contentHash ?? '',
  download: { method: 'GET', url: download.url, headers: { ...download.headers }, expiresAt: download.expiresAt },
});
