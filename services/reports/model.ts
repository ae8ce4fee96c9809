import * as z from 'zod';
import type { Key } from '../shared/ddb/read';

/**
 * The entities of the reports area as stored: each type is the output of its item schema,
 * and items are parsed with it on read (keys and index attributes are dropped; a malformed
 * item fails loudly). Keys (docs/areas/reports.md lists the access patterns):
 *   job             PK ORG#<org>#RJOB#<id>        SK RJOB
 *                   GSI1 RJOB#DUE / <dueAt>#<org>#<id>   while QUEUED: the sweeper's due list
 *   manifest        PK ORG#<org>#MAN#<id>         SK MAN         GSI1 ORG#<org>#MANIFESTS / <createdAt>#<id> once published
 *                   GSI2 ORG#<org>#MANIFESTS#STALE / <staleAt>#<id>  once stale and not replaced (sparse: the
 *                   dashboard's stale exports), then ORG#<org>#MANIFESTS#SETTLED when replaced or abandoned
 *   manifest entry  PK ORG#<org>#MAN#<id>         SK E#<entryId> (the exact revision exported)
 *   month index     PK ORG#<org>#MANIDX#<YYYY-MM> SK MAN#<id>    (period, scope, status: the key lookup of staleness)
 *   export fence    PK ORG#<org>                  SK EXPORTS     (version + months that have manifests)
 *   outbox          PK ORG#<org>#OUTBOX#<id>      SK OUTBOX      GSI1 ORG#<org>#OUTBOX / <createdAt>#<id>
 */

export const REPORT_KINDS = ['TIMESHEET_CSV', 'TIMESHEET_PDF', 'MONTHLY_REPORT', 'PAYROLL_DISPATCH'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/** [from, to), UTC. */
const periodSchema = z.object({ from: z.string(), to: z.string() }).readonly();
export type Period = z.output<typeof periodSchema>;

/** Empty lists mean "every employee" / "every location". */
const scopeSchema = z.object({ employeeIds: z.array(z.string()).readonly(), locationIds: z.array(z.string()).readonly() }).readonly();
export type ReportScope = z.output<typeof scopeSchema>;

const requesterSchema = z.object({ keyId: z.string(), label: z.string() }).readonly();
export type Requester = z.output<typeof requesterSchema>;

/** What an export is of, the same on its job, its manifest and the manifest's month index. */
const exportSubject = { kind: z.enum(REPORT_KINDS), period: periodSchema, scope: scopeSchema };

export const JOB_STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A requested export and how far it got. */
export const reportJobSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    ...exportSubject,
    replacesManifestId: z.string().nullable(),
    status: z.enum(JOB_STATUSES),
    progress: z.object({ processedEmployees: z.number().int(), totalEmployees: z.number().int().nullable() }).readonly(),
    manifestId: z.string().nullable(),
    failureReason: z.string().nullable(),
    requestedBy: requesterSchema,
    requestId: z.string(),
    /** The run that holds the job (RUNNING): only it moves the job on. */
    runId: z.string().nullable().default(null),
    /** When that run took the job: a run older than the worker's lease may be taken over. */
    runningSince: z.string().nullable().default(null),
    /** Raised by every change: the job's ETag. */
    version: z.number().int().default(1),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .readonly();
export type ReportJob = z.output<typeof reportJobSchema>;

/** The first change that made a manifest's content stale. */
const stalenessSchema = z.object({ at: z.string(), entryId: z.string(), revision: z.number().int(), requestId: z.string() }).readonly();
export type Staleness = z.output<typeof stalenessSchema>;

export const MANIFEST_STATUSES = ['PENDING', 'PUBLISHED', 'ABANDONED'] as const;
export type ManifestStatus = (typeof MANIFEST_STATUSES)[number];

/** What one export contains, pinned to the revisions read. */
export const manifestSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    ...exportSubject,
    status: z.enum(MANIFEST_STATUSES),
    jobId: z.string(),
    entryCount: z.number().int(),
    /** sha256 of the content in machine form (the CSV rows): changes only with content (domain-files.ts). */
    contentHash: z.string().nullable(),
    /** sha256 of the file's bytes (a PDF also carries its manifest id and generated-at); absent on manifests published before it existed, whose file hash is `contentHash`. */
    fileHash: z.string().nullable().default(null),
    contentType: z.string().nullable(),
    byteSize: z.number().int().nullable(),
    fileKey: z.string().nullable(),
    requestedBy: requesterSchema,
    createdAt: z.string(),
    publishedAt: z.string().nullable(),
    /** `stale` and `replacedByManifestId` are absent until set, so conditions can test existence. */
    stale: stalenessSchema.nullable().default(null),
    replacesManifestId: z.string().nullable(),
    replacedByManifestId: z.string().nullable().default(null),
    /** Raised by publishing, a stale mark and a replacement: the manifest's ETag. */
    version: z.number().int().default(1),
  })
  .readonly();
export type Manifest = z.output<typeof manifestSchema>;

/** One entry revision a manifest holds. */
const manifestEntrySchema = z.object({ entryId: z.string(), revision: z.number().int() });
export interface ManifestEntry {
  readonly id: string;
  readonly revision: number;
}

/** A manifest as the month index shows it: what staleness needs, without a read of the manifest. */
export const monthIndexSchema = z
  .object({ manifestId: z.string(), ...exportSubject, status: z.enum(MANIFEST_STATUSES) })
  .readonly();
export type MonthIndexEntry = z.output<typeof monthIndexSchema>;

/** The export fence of an organization: its version and the months that have manifests. */
export interface ExportFence {
  readonly organizationId: string;
  readonly version: number;
  readonly months: readonly string[];
}
const fenceSchema = z.object({ version: z.number().int(), months: z.array(z.string()) });

/** A payroll dispatch waiting for the payroll integration. */
export const outboxRecordSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    manifestId: z.string(),
    destination: z.literal('PAYROLL_PROVIDER'),
    status: z.enum(['PENDING', 'SENT']),
    replacesManifestId: z.string().nullable(),
    createdAt: z.string(),
    /** Set by the integrations area when its dispatch job delivered the manifest (status SENT). */
    sentAt: z.string().nullable().default(null),
    dispatchJobId: z.string().nullable().default(null),
  })
  .readonly();
export type OutboxRecord = z.output<typeof outboxRecordSchema>;

/** What the queue carries to the worker: which job to run. */
export interface JobMessage {
  readonly organizationId: string;
  readonly jobId: string;
}

/** The due list of queued jobs is one partition for every organization: the sweeper reads it once. */
const DUE_PARTITION = 'RJOB#DUE';

export const reportKeys = {
  job: (org: string, id: string): Key => ({ PK: `ORG#${org}#RJOB#${id}`, SK: 'RJOB' }),
  /** The position of a queued job in the due list: due at `dueAt`. */
  due: (dueAt: string, org: string, id: string) => ({ GSI1PK: DUE_PARTITION, GSI1SK: `${dueAt}#${org}#${id}` }),
  duePartition: DUE_PARTITION,
  manifest: (org: string, id: string): Key => ({ PK: `ORG#${org}#MAN#${id}`, SK: 'MAN' }),
  manifestEntry: (org: string, id: string, entryId: string): Key => ({ PK: `ORG#${org}#MAN#${id}`, SK: `E#${entryId}` }),
  monthIndex: (org: string, month: string, manifestId: string): Key => ({ PK: `ORG#${org}#MANIDX#${month}`, SK: `MAN#${manifestId}` }),
  fence: (org: string): Key => ({ PK: `ORG#${org}`, SK: 'EXPORTS' }),
  outbox: (org: string, id: string): Key => ({ PK: `ORG#${org}#OUTBOX#${id}`, SK: 'OUTBOX' }),
  manifestsByOrganization: (org: string) => `ORG#${org}#MANIFESTS`,
  /** GSI2 of a manifest once a change made it stale: the dashboard counts this partition (services/overview). */
  staleManifests: (org: string) => `ORG#${org}#MANIFESTS#STALE`,
  /** GSI2 of a stale manifest once replaced (or of an abandoned one): out of the stale partition for good. */
  settledManifests: (org: string) => `ORG#${org}#MANIFESTS#SETTLED`,
  outboxByOrganization: (org: string) => `ORG#${org}#OUTBOX`,
};

/** A new job: QUEUED, and in the due list from its creation on (the sweeper re-queues it if no worker takes it). */
export const jobToItem = (job: ReportJob): Record<string, unknown> => ({
  ...reportKeys.job(job.organizationId, job.id),
  ...(job.status === 'QUEUED' ? reportKeys.due(job.createdAt, job.organizationId, job.id) : {}),
  itemType: 'ReportJob',
  ...job,
});

/** A new PENDING manifest (without `stale` and `replacedByManifestId`, see manifestSchema). */
export function manifestToItem(m: Manifest): Record<string, unknown> {
  const { stale: _stale, replacedByManifestId: _replacedBy, ...fields } = m;
  return { ...reportKeys.manifest(m.organizationId, m.id), itemType: 'ExportManifest', ...fields };
}

export const monthIndexToItem = (m: Manifest, month: string): Record<string, unknown> => ({
  ...reportKeys.monthIndex(m.organizationId, month, m.id),
  itemType: 'ManifestIndex',
  manifestId: m.id,
  kind: m.kind,
  period: m.period,
  scope: m.scope,
  status: m.status,
});

export const manifestEntryToItem = (org: string, manifestId: string, e: ManifestEntry): Record<string, unknown> => ({
  ...reportKeys.manifestEntry(org, manifestId, e.id),
  itemType: 'ManifestEntry',
  entryId: e.id,
  revision: e.revision,
});

export const outboxToItem = (r: OutboxRecord): Record<string, unknown> => ({
  ...reportKeys.outbox(r.organizationId, r.id),
  GSI1PK: reportKeys.outboxByOrganization(r.organizationId),
  GSI1SK: `${r.createdAt}#${r.id}`,
  itemType: 'OutboxRecord',
  ...r,
});

export const fenceToItem = (fence: ExportFence): Record<string, unknown> => ({ ...reportKeys.fence(fence.organizationId), itemType: 'ExportFence', version: fence.version, months: fence.months });

export const jobFromItem = (item: Record<string, unknown>): ReportJob => reportJobSchema.parse(item);
export const manifestFromItem = (item: Record<string, unknown>): Manifest => manifestSchema.parse(item);
export const monthIndexFromItem = (item: Record<string, unknown>): MonthIndexEntry => monthIndexSchema.parse(item);
export const outboxFromItem = (item: Record<string, unknown>): OutboxRecord => outboxRecordSchema.parse(item);
export const manifestEntryFromItem = (item: Record<string, unknown>): ManifestEntry => {
  const e = manifestEntrySchema.parse(item);
  return { id: e.entryId, revision: e.revision };
};

/** The fence as read (none yet: version 0, no months). */
export const fenceFromItem = (org: string, item: Record<string, unknown> | undefined): ExportFence => {
  const f = item ? fenceSchema.parse(item) : { version: 0, months: [] };
  return { organizationId: org, version: f.version, months: f.months };
};
