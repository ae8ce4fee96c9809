import { randomUUID } from 'node:crypto';
import type { Manifest } from '../../services/reports/model';
import { openManifest, publishManifestItems } from '../../services/reports/store-manifests';
import type { Db } from '../../services/shared/ddb/client';
import { commit } from '../../services/shared/ddb/transaction';

/** A PENDING organization-wide TIMESHEET_CSV manifest of one UTC month (`YYYY-MM`), as the worker builds it before opening it. */
export function monthManifest(organizationId: string, month: string): Manifest {
  const [y, m] = month.split('-').map(Number);
  return {
    id: randomUUID(),
    organizationId,
    kind: 'TIMESHEET_CSV',
    period: { from: new Date(Date.UTC(y, m - 1, 1)).toISOString(), to: new Date(Date.UTC(y, m, 1)).toISOString() },
    scope: { employeeIds: [], locationIds: [] },
    status: 'PENDING',
    jobId: randomUUID(),
    entryCount: 0,
    contentHash: null,
    fileHash: null,
    contentType: null,
    byteSize: null,
    fileKey: null,
    requestedBy: { keyId: 'test-fixture', label: 'Test fixture' },
    createdAt: new Date().toISOString(),
    publishedAt: null,
    stale: null,
    replacesManifestId: null,
    replacedByManifestId: null,
    version: 1,
  };
}

/** Publishes an opened manifest of `month` as the worker does (no file, no entry items). */
export const publishMonthManifest = (db: Db, m: Manifest, month: string): Promise<void> =>
  commit(db, publishManifestItems(m, [month], { entryCount: 1, contentHash: 'sha256:x', fileHash: 'sha256:x', contentType: 'text/csv; charset=utf-8', byteSize: 1, fileKey: `reports/${m.organizationId}/${m.id}.csv`, publishedAt: new Date().toISOString() }));

/** A manifest of `month` opened behind the export fence and published: its id. */
export async function publishedMonthManifest(db: Db, organizationId: string, month: string): Promise<string> {
  const m = monthManifest(organizationId, month);
  await openManifest(db, m, [month]);
  await publishMonthManifest(db, m, month);
  return m.id;
}
