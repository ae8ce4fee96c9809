/**
 * What other areas may use of reports (their declared port): the export fence every
 * timesheet write checks, and the staleness plan of a change to an entry; and, for the
 * integrations area's payroll dispatch job, the outbox record with its revision-pinned
 * manifest, the conditions of a dispatch request, and the outbox move to SENT. The export
 * files themselves (S3) are in public-files.ts, apart, so that importing this port never
 * brings the S3 client into a function.
 */
export { FENCE_LABEL, fenceFromItem, planStaleness, reportKeys, type ExportFence, type StalePlan } from './store-manifests';
/** The dashboard counts stale exports (services/overview). */
export { countStaleManifests } from './store-counts';
export { getManifest, getOutboxRecord, manifestCurrentCheck, manifestEntries, MANIFEST_CURRENT_LABEL, outboxPendingCheck, outboxSentItem, OUTBOX_LABEL } from './store-manifests';
export type { Manifest, ManifestEntry, OutboxRecord } from './model';
