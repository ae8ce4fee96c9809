/**
 * What other areas may use of time entries (their declared port): the evidence channel
 * projects scans into entries with the same revision items the API writes; exports read
 * entries per employee from the consistent timeline.
 */
export { auditSnapshot, intervalErrors, workedMinutes } from './domain';
export { entryFromItem, entryKeys, guardFromItem, type TimeEntry } from './model';
export { ENTRY_LABEL, GUARD_LABEL, revisionItems, STATS_LABEL } from './store';
export { entriesOfEmployeeStartingIn } from './store-lists';
