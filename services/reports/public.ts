/**
 * What other areas may use of reports (their declared port): the export fence every
 * timesheet write checks, and the staleness plan of a change to an entry.
 */
export { FENCE_LABEL, fenceFromItem, planStaleness, reportKeys, type ExportFence, type StalePlan } from './store-manifests';
/** The dashboard counts stale exports (services/overview). */
export { countStaleManifests } from './store-counts';
