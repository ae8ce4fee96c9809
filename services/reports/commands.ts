import { auditItem } from '../audit/model';
import { employeeKeys } from '../employees/public';
import { locationKeys } from '../locations/public';
import type { Principal } from '../shared/auth/principal';
import type { Db } from '../shared/ddb/client';
import { batchGet } from '../shared/ddb/read';
import { commit, type TxItem } from '../shared/ddb/transaction';
import { ValidationError, type FieldError } from '../shared/errors';
import { periodErrors, type Period, type ReportKind, type ReportScope } from './domain';
import { getManifest, putNewJob, type ReportJob } from './store';

export interface ReportDeps {
  readonly db: Db;
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
 *    location in scope must belong to the organization (422 pointing at it).
 * 3. Commit the job, its audit entry and the caller's idempotency record in one transaction.
 */
export async function requestReport(
  deps: ReportDeps,
  actor: { readonly principal: Principal; readonly requestId: string },
  req: ReportRequest,
  extra: (job: ReportJob) => Promise<readonly TxItem[]>,
): Promise<ReportJob> {
  const org = actor.principal.organizationId;
  const { period, scope } = req.replacesManifestId ? await replacementTarget(deps.db, org, req) : await checkedScope(deps.db, org, req);
  const now = deps.now().toISOString();
  const job: ReportJob = {
    id: deps.newId(),
    organizationId: org,
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
    createdAt: now,
    updatedAt: now,
  };
  await commit(deps.db, [
    putNewJob(job),
    auditItem({
      id: deps.newId(),
      organizationId: org,
      occurredAt: now,
      actor: { type: 'API_KEY', keyId: actor.principal.keyId, label: actor.principal.keyLabel },
      action: req.replacesManifestId ? 'report_job.replacement_requested' : 'report_job.requested',
      entity: { type: 'report_job', id: job.id },
      references: { kind: job.kind, ...(job.replacesManifestId ? { replacesManifestId: job.replacesManifestId } : {}) },
      after: { periodFrom: period.from, periodTo: period.to, employees: scope.employeeIds.length, locations: scope.locationIds.length },
      requestId: actor.requestId,
    }),
    ...(await extra(job)),
  ]);
  return job;
}

async function replacementTarget(db: Db, org: string, req: ReportRequest): Promise<{ period: Period; scope: ReportScope }> {
  const fail = (pointer: string, detail: string): never => {
    throw new ValidationError([{ pointer, detail }]);
  };
  if (req.kind !== 'PAYROLL_DISPATCH') fail('/replacesManifestId', 'Only a PAYROLL_DISPATCH replaces a manifest; internal reports are simply requested again.');
  if (req.period || req.employeeIds || req.locationIds) {
    fail(req.period ? '/period' : req.employeeIds ? '/employeeIds' : '/locationIds', 'A replacement takes the period and scope of the manifest it replaces; leave them out.');
  }
  const stale = await getManifest(db, org, req.replacesManifestId!);
  if (!stale || stale.status !== 'PUBLISHED') return fail('/replacesManifestId', `Manifest ${req.replacesManifestId} does not exist in this organization.`);
  if (stale.kind !== 'PAYROLL_DISPATCH') fail('/replacesManifestId', `Manifest ${stale.id} is a ${stale.kind}, not a PAYROLL_DISPATCH.`);
  if (!stale.stale) fail('/replacesManifestId', `Manifest ${stale.id} is not stale: its payroll dispatch is still correct, nothing to replace.`);
  if (stale.replacedByManifestId) fail('/replacesManifestId', `Manifest ${stale.id} was already replaced by ${stale.replacedByManifestId}.`);
  return { period: stale.period, scope: stale.scope };
}

async function checkedScope(db: Db, org: string, req: ReportRequest): Promise<{ period: Period; scope: ReportScope }> {
  if (!req.period) throw new ValidationError([{ pointer: '/period', detail: 'period is required: { from, to } (from inclusive, to exclusive).' }]);
  const errors: FieldError[] = [...periodErrors(req.kind, req.period)];
  const employeeIds = [...new Set(req.employeeIds ?? [])];
  const locationIds = [...new Set(req.locationIds ?? [])];
  const keys = [...employeeIds.map((id) => employeeKeys.employee(org, id)), ...locationIds.map((id) => locationKeys.location(org, id))];
  const found = keys.length > 0 ? await batchGet(db, keys) : [];
  employeeIds.forEach((id, i) => {
    if (!found[i]) errors.push({ pointer: `/employeeIds/${(req.employeeIds ?? []).indexOf(id)}`, detail: `Employee ${id} does not exist in this organization.` });
  });
  locationIds.forEach((id, i) => {
    if (!found[employeeIds.length + i]) errors.push({ pointer: `/locationIds/${(req.locationIds ?? []).indexOf(id)}`, detail: `Location ${id} does not exist in this organization.` });
  });
  if (errors.length > 0) throw new ValidationError(errors);
  return { period: req.period, scope: { employeeIds, locationIds } };
}
