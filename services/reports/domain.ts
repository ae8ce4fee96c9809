import { auditEntry, type AuditEntry } from '../audit/model';
import type { Actor } from '../shared/domain/actor';
import { versionedEtag } from '../shared/domain/etag';
import { newRecord } from '../shared/domain/lifecycle';
import { AppError, ValidationError, type FieldError } from '../shared/errors';
import type { TimeEntry } from '../timesheets/public';
import type { JobMessage, Manifest, MonthIndexEntry, Period, ReportJob, ReportKind, ReportScope } from './model';
import { PROBLEMS } from './problems';

/**
 * Exports and their manifests: what an export contains, when a change makes it stale, and
 * the request of an export. Pure rules on ports: no HTTP, no DynamoDB. The worker's use
 * cases are in domain-worker.ts, the file formats in domain-files.ts.
 */
export { REPORT_KINDS, type Period, type ReportKind, type ReportScope } from './model';

export const MAX_PERIOD_DAYS: Readonly<Record<ReportKind, number>> = {
  TIMESHEET_CSV: 366,
  TIMESHEET_PDF: 366,
  MONTHLY_REPORT: 31,
  PAYROLL_DISPATCH: 31,
};

export const FILE_FORMAT: Readonly<Record<ReportKind, { readonly contentType: string; readonly extension: string }>> = {
  TIMESHEET_CSV: { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  TIMESHEET_PDF: { contentType: 'application/pdf', extension: 'pdf' },
  MONTHLY_REPORT: { contentType: 'application/pdf', extension: 'pdf' },
  PAYROLL_DISPATCH: { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
};

/** The period's problems: end not after start, or longer than the kind allows. */
export function periodErrors(kind: ReportKind, period: Period): FieldError[] {
  const from = Date.parse(period.from);
  const to = Date.parse(period.to);
  if (to <= from) return [{ pointer: '/period/to', detail: `period.to (${period.to}) must be after period.from (${period.from}).` }];
  const days = (to - from) / 86_400_000;
  const max = MAX_PERIOD_DAYS[kind];
  if (days > max) return [{ pointer: '/period/to', detail: `A ${kind} covers at most ${max} days; this period has ${Math.ceil(days)}.` }];
  return [];
}

/**
 * What an export contains: CLOSED entries that start inside the period (each entry belongs
 * to the period of its start, so consecutive exports never count it twice) of an employee
 * and a registered location in scope. OPEN entries have no worked time yet; VOIDED ones
 * count for nothing.
 */
export function includes(period: Period, scope: ReportScope, e: Pick<TimeEntry, 'state' | 'startedAt' | 'employeeId' | 'context'>): boolean {
  if (e.state !== 'CLOSED') return false;
  if (e.startedAt < period.from || e.startedAt >= period.to) return false;
  if (scope.employeeIds.length > 0 && !scope.employeeIds.includes(e.employeeId)) return false;
  if (scope.locationIds.length > 0 && (e.context.kind !== 'REGISTERED_LOCATION' || !scope.locationIds.includes(e.context.locationId))) return false;
  return true;
}

/**
 * A change from `before` to `after` changes an export's content when the entry was in it or
 * now falls into it (a new revision of an included entry is a change too).
 */
export const changesExport = (period: Period, scope: ReportScope, before: TimeEntry | undefined, after: TimeEntry): boolean =>
  (before !== undefined && includes(period, scope, before)) || includes(period, scope, after);

/** Two exports could hold one entry: their periods overlap and their scopes share an employee and a location (an empty list is every one). */
export function couldShareEntries(a: { readonly period: Period; readonly scope: ReportScope }, b: { readonly period: Period; readonly scope: ReportScope }): boolean {
  const share = (x: readonly string[], y: readonly string[]) => x.length === 0 || y.length === 0 || x.some((id) => y.includes(id));
  return Date.parse(a.period.from) < Date.parse(b.period.to) && Date.parse(b.period.from) < Date.parse(a.period.to) && share(a.scope.employeeIds, b.scope.employeeIds) && share(a.scope.locationIds, b.scope.locationIds);
}

/**
 * The payroll dispatches a new PAYROLL_DISPATCH of `period` and `scope` (not a replacement)
 * would send entries of again: every one, not abandoned, that could hold an entry it holds.
 * Payroll goes out once; a dispatch that a correction made stale is replaced, linked to it.
 */
export const payrollSentAgain = (index: readonly MonthIndexEntry[], period: Period, scope: ReportScope): string[] =>
  [...new Set(index.filter((m) => m.kind === 'PAYROLL_DISPATCH' && m.status !== 'ABANDONED' && couldShareEntries(m, { period, scope })).map((m) => m.manifestId))].sort();

/**
 * The refusal of a new PAYROLL_DISPATCH of `period` and `scope` among the manifests `covering`
 * its months: 409 PAYROLL_PERIOD_EXPORTED naming the dispatches (`manifestIds`) that already
 * hold its payroll, or undefined. Asked on request and again when the worker opens the manifest.
 */
export function payrollRefusal(covering: readonly MonthIndexEntry[], period: Period, scope: ReportScope): AppError | undefined {
  const manifestIds = payrollSentAgain(covering, period, scope);
  if (manifestIds.length === 0) return undefined;
  return new AppError(
    PROBLEMS.PAYROLL_PERIOD_EXPORTED,
    `Payroll of this period and scope was exported already (manifest ${manifestIds.join(', ')}) and payroll is sent once: dispatch that manifest's outbox record, or, once a correction made it stale, request a replacement with replacesManifestId.`,
    { extensions: { manifestIds } },
  );
}

export const monthOf = (instant: string): string => instant.slice(0, 7);

/** The UTC months (`YYYY-MM`) that [from, to) touches. */
export function monthsOf(period: Period): string[] {
  const months: string[] = [];
  const end = new Date(Date.parse(period.to) - 1);
  for (let d = new Date(Date.UTC(new Date(period.from).getUTCFullYear(), new Date(period.from).getUTCMonth(), 1)); d <= end; d.setUTCMonth(d.getUTCMonth() + 1)) {
    months.push(d.toISOString().slice(0, 7));
  }
  return months;
}

/** Strong ETags: raised by every change of the job (status, progress) or of the manifest (stale mark, replacement). */
export const jobEtag = versionedEtag<Pick<ReportJob, 'id' | 'version'>>('report-job');
export const manifestEtag = versionedEtag<Pick<Manifest, 'id' | 'version'>>('export-manifest');

// ---- requesting an export

/** How a job reaches the worker: a queue message after the commit (SQS in AWS, this process locally). */
export interface JobQueue {
  send(message: JobMessage): Promise<void>;
}

/** What requesting an export reads and stages. */
export interface ReportStore {
  getManifest(org: string, id: string): Promise<Manifest | undefined>;
  /** The manifests of every state that cover any of the months (the month index, consistent reads). */
  manifestsCovering(org: string, months: readonly string[]): Promise<MonthIndexEntry[]>;
  /** Which of the ids name an employee / a location of the organization. */
  existing(org: string, ids: { readonly employeeIds: readonly string[]; readonly locationIds: readonly string[] }): Promise<{ employees: ReadonlySet<string>; locations: ReadonlySet<string> }>;
  /** Stages the new job (QUEUED, in the due list) with its audit entry. */
  saveNewJob(job: ReportJob, audit: AuditEntry): void;
  /** Sends the job's message once the unit of work committed. */
  dispatchAfterCommit(message: JobMessage): void;
}

export interface ReportPorts {
  readonly store: ReportStore;
  readonly now: () => Date;
  readonly newId: () => string;
}

export interface ReportRequest {
  readonly kind: ReportKind;
  readonly period?: Period;
  readonly employeeIds?: readonly string[];
  readonly locationIds?: readonly string[];
  readonly replacesManifestId?: string;
}

/**
 * Requests an export. Input: kind, period and scope, or a stale payroll manifest to
 * replace; output: the QUEUED job (the worker does the rest).
 * 1. A replacement names a stale, not yet replaced PAYROLL_DISPATCH manifest of this
 *    organization and takes its period and scope; payroll is never resent otherwise.
 * 2. Otherwise the period must end after it starts and fit the kind; every employee and
 *    location in scope must belong to the organization (422 pointing at it); a payroll
 *    dispatch must not hold entries an earlier one holds (409 PAYROLL_PERIOD_EXPORTED; the
 *    worker checks again when it opens the manifest, behind the export fence).
 * 3. Stage the job (in the sweeper's due list) and its audit entry; after the commit, send
 *    its message. A send that fails leaves the job QUEUED and due: the sweeper sends it again.
 */
export async function requestReport(ports: ReportPorts, actor: Actor, req: ReportRequest): Promise<ReportJob> {
  const org = actor.principal.organizationId;
  const { period, scope } = req.replacesManifestId ? await replacementTarget(ports, org, req) : await checkedScope(ports, org, req);
  if (req.kind === 'PAYROLL_DISPATCH' && !req.replacesManifestId) {
    const refusal = payrollRefusal(await ports.store.manifestsCovering(org, monthsOf(period)), period, scope);
    if (refusal) throw refusal;
  }
  const now = ports.now().toISOString();
  const job: ReportJob = {
    ...newRecord(ports.newId(), org, now),
    kind: req.kind,
    period,
    scope,
    replacesManifestId: req.replacesManifestId ?? null,
    status: 'QUEUED',
    progress: { processedEmployees: 0, totalEmployees: scope.employeeIds.length > 0 ? scope.employeeIds.length : null },
    manifestId: null,
    failureReason: null,
    requestedBy: { keyId: actor.principal.keyId, label: actor.principal.keyLabel },
    requestId: actor.requestId,
    runId: null,
    runningSince: null,
  };
  ports.store.saveNewJob(
    job,
    auditEntry({
      id: ports.newId(),
      actor,
      occurredAt: now,
      action: req.replacesManifestId ? 'report_job.replacement_requested' : 'report_job.requested',
      entity: { type: 'report_job', id: job.id },
      references: { kind: job.kind, ...(job.replacesManifestId ? { replacesManifestId: job.replacesManifestId } : {}) },
      after: { periodFrom: period.from, periodTo: period.to, employees: scope.employeeIds.length, locations: scope.locationIds.length },
    }),
  );
  ports.store.dispatchAfterCommit({ organizationId: org, jobId: job.id });
  return job;
}

async function replacementTarget(ports: ReportPorts, org: string, req: ReportRequest): Promise<{ period: Period; scope: ReportScope }> {
  const fail = (pointer: string, detail: string): never => {
    throw new ValidationError([{ pointer, detail }]);
  };
  if (req.kind !== 'PAYROLL_DISPATCH') fail('/replacesManifestId', 'Only a PAYROLL_DISPATCH replaces a manifest; internal reports are simply requested again.');
  if (req.period || req.employeeIds || req.locationIds) {
    fail(req.period ? '/period' : req.employeeIds ? '/employeeIds' : '/locationIds', 'A replacement takes the period and scope of the manifest it replaces; leave them out.');
  }
  const stale = await ports.store.getManifest(org, req.replacesManifestId!);
  if (!stale || stale.status !== 'PUBLISHED') return fail('/replacesManifestId', `Manifest ${req.replacesManifestId} does not exist in this organization.`);
  if (stale.kind !== 'PAYROLL_DISPATCH') fail('/replacesManifestId', `Manifest ${stale.id} is a ${stale.kind}, not a PAYROLL_DISPATCH.`);
  if (!stale.stale) fail('/replacesManifestId', `Manifest ${stale.id} is not stale: its payroll dispatch is still correct, nothing to replace.`);
  if (stale.replacedByManifestId) fail('/replacesManifestId', `Manifest ${stale.id} was already replaced by ${stale.replacedByManifestId}.`);
  return { period: stale.period, scope: stale.scope };
}

async function checkedScope(ports: ReportPorts, org: string, req: ReportRequest): Promise<{ period: Period; scope: ReportScope }> {
  if (!req.period) throw new ValidationError([{ pointer: '/period', detail: 'period is required: { from, to } (from inclusive, to exclusive).' }]);
  const errors: FieldError[] = [...periodErrors(req.kind, req.period)];
  const employeeIds = [...new Set(req.employeeIds ?? [])];
  const locationIds = [...new Set(req.locationIds ?? [])];
  const found = employeeIds.length + locationIds.length > 0 ? await ports.store.existing(org, { employeeIds, locationIds }) : { employees: new Set<string>(), locations: new Set<string>() };
  for (const id of employeeIds) {
    if (!found.employees.has(id)) errors.push({ pointer: `/employeeIds/${(req.employeeIds ?? []).indexOf(id)}`, detail: `Employee ${id} does not exist in this organization.` });
  }
  for (const id of locationIds) {
    if (!found.locations.has(id)) errors.push({ pointer: `/locationIds/${(req.locationIds ?? []).indexOf(id)}`, detail: `Location ${id} does not exist in this organization.` });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return { period: req.period, scope: { employeeIds, locationIds } };
}
