/**
 * What other areas may use of time entries (their declared port): the evidence channel
 * projects scans into entries with the same revision items the API writes; exports read
 * entries per employee from the consistent timeline.
 */
export { revisionItems } from './commands';
export { auditSnapshot, intervalErrors, workedMinutes, type TimeEntry } from './domain';
export { ENTRY_LABEL, entriesOfEmployeeStartingIn, entryFromItem, entryKeys, GUARD_LABEL, guardFromItem, STATS_LABEL } from './store';
