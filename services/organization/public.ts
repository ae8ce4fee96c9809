/**
 * What other areas and the operator tools may use of the organization (its declared port):
 * the record with its capability facts and the capability rule, the capability check
 * timesheet writes carry in their transaction, the key of the organization item (for a batch
 * read), and the operator's writers (`npm run orgs`, the seed).
 */
export { settingsOf, timesheetWritesEnabled, versionOf } from './domain';
export { organizationFromItem, organizationKeys, type Organization, type OrganizationSettings } from './model';
export { CAPABILITY_LABEL, getOrganization, listOrganizations, putOrganization, setTimesheetCorrections, timesheetCapabilityCheck, type CapabilityChange } from './store';
