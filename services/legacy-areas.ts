import type { z } from 'zod';
import type { AreaDocs, OperationDoc } from './openapi/types';
import { reportsDocs } from './reports/openapi';
import { type AreaDefinition, type FunctionDefinition, type HttpMethod, type RouteContract } from './shared/area';
import type { Scope } from './shared/auth/scopes';
import type { ErrorCode } from './shared/errors';
import type { FunctionPermissions } from './shared/permissions';

/**
 * TEMPORARY, while the area kit is rolled out (issue 10): the areas not yet declared in
 * their own `area.ts`, built from their old route rows and OpenAPI docs so that the registry
 * already drives the stack, the local gateway and the OpenAPI document. Each migrated area
 * replaces its entry here with its `area.ts`; this file goes when the list is empty.
 */

type Row = readonly [HttpMethod, string, string, readonly Scope[], string];

function legacyArea(name: string, options: { api?: 'public' | 'scim'; description: string; permissions: FunctionPermissions; auditEntityTypes: string[]; docs?: AreaDocs; rows: Row[]; textParams?: string[]; functions?: FunctionDefinition[] }): AreaDefinition {
  const schemaByRef = options.docs?.schemas ?? {};
  const routes: Record<string, RouteContract> = {};
  for (const [method, path, operation, scopes, summary] of options.rows) {
    const doc: OperationDoc | undefined = options.docs?.operations[operation];
    routes[operation] = {
      method,
      path,
      scopes,
      summary,
      description: doc?.description ?? summary,
      ...(options.textParams ? { textParams: options.textParams } : {}),
      ...(doc?.query ? { query: doc.query } : {}),
      ...(doc?.body ? { body: doc.body } : {}),
      ...(doc?.headers?.['Idempotency-Key'] ? { idempotencyKey: doc.headers['Idempotency-Key'] } : {}),
      ...(doc?.headers?.['If-Match'] ? { ifMatch: doc.headers['If-Match'] } : {}),
      success: doc
        ? {
            status: doc.success.status,
            description: doc.success.description,
            ...(doc.success.ref ? { schema: schemaByRef[doc.success.ref] as z.ZodType } : {}),
            ...(doc.success.headers ? { headers: doc.success.headers } : {}),
            ...(doc.success.content ? { content: doc.success.content } : {}),
          }
        : { status: 200, description: summary },
      problems: (doc?.problems ?? []) as ErrorCode[],
    };
  }
  return {
    name,
    api: options.api ?? 'public',
    description: options.description,
    permissions: options.permissions,
    auditEntityTypes: options.auditEntityTypes,
    schemas: schemaByRef,
    routes,
    ...(options.functions ? { functions: options.functions } : {}),
  };
}

export const LEGACY_AREAS: readonly AreaDefinition[] = [
  legacyArea('reports', {
    description: 'Exports (CSV, PDF, monthly report, payroll dispatch), their manifests and staleness.',
    // Report jobs and manifests: requests a job (queue), reads manifests, streams files (bucket).
    permissions: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'DeleteItem', 'ConditionCheckItem'], cursorSecret: true, restrictedDataKey: false },
    auditEntityTypes: ['report_job', 'export_manifest'],
    docs: reportsDocs,
    functions: [
      {
        name: 'reports-worker',
        description: 'Export generation',
        timeoutSeconds: 300,
        // Generates exports: reads entries, opens and publishes manifests, writes files and the payroll outbox.
        permissions: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem', 'BatchWriteItem'], cursorSecret: false, restrictedDataKey: false },
      },
    ],
    rows: [
      ['POST', '/reports/generation-jobs', 'createReportJob', ['reports:write'], 'Request an export (CSV, PDF, monthly report or payroll dispatch)'],
      ['GET', '/reports/generation-jobs/{jobId}', 'getReportJob', ['reports:read'], 'Progress and result of an export request'],
      ['GET', '/reports', 'listReports', ['reports:read'], 'Export manifests, newest first'],
      ['GET', '/reports/outbox', 'listPayrollOutbox', ['reports:read'], 'Payroll dispatches waiting for the integration job'],
      ['GET', '/reports/{manifestId}', 'getReport', ['reports:read'], 'One export manifest with the revisions it contains'],
      ['GET', '/reports/files/{manifestId}', 'downloadReport', ['reports:read'], 'The file of an export'],
    ],
  }),
];

/** The declaration of a legacy area, for its createHandler. */
export function legacyAreaNamed(name: string): AreaDefinition {
  const area = LEGACY_AREAS.find((a) => a.name === name);
  if (!area) throw new Error(`No legacy area ${name}.`);
  return area;
}
