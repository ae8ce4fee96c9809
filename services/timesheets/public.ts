/**
 * What other areas may use of time entries (their declared port): the evidence channel
 * projects scans into SCANNED entries (projectScan on the timesheets store, with the same
 * revision items the API writes); exports read entries per employee from the consistent
 * timeline; planning compares shifts with the effective entries overlapping them; the
 * operator's backfill of day items (services/cli).
 */
export { auditSnapshot, intervalErrors, workedMinutes, type TimesheetPorts } from './domain';
export { projectScan, type Scan, type ScanProjection } from './domain-scans';
export { entryFromItem, entryKeys, guardFromItem, type TimeEntry } from './model';
export { ENTRY_LABEL, GUARD_LABEL, revisionItems, STATS_LABEL, timesheetsStore, type ExportsPort } from './store';
export { indexEmployeeDays, unindexedGuards, type BackfillOutcome, type Unindexed } from './store-backfill';
export { effectiveEntriesOverlapping, entriesOfEmployeeStartingIn } from './store-lists';
/** The dashboard counts OPEN entries (services/overview). */
export { countOpenEntries } from './store-counts';
