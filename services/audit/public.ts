/**
 * What other areas may use of the audit trail (its declared port): the pages of entries and
 * their allowlisted response, for the activity feed (services/overview).
 */
export { auditResponse, auditResponseSchema, entityPairRule } from './schemas';
export { listAuditEntries, listAuditEntriesOfTypes, type AuditPage } from './store';
