/**
 * What other areas may use of the organization (its declared port): the record with its
 * capability facts, the capability check timesheet writes carry, and the operator's writers.
 */
export {
  CAPABILITY_LABEL,
  getOrganization,
  listOrganizations,
  putOrganization,
  setTimesheetCorrections,
  timesheetCapabilityCheck,
  timesheetWritesEnabled,
  type Organization,
} from '../organizations/store';
