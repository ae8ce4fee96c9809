/**
 * What other areas may use of planning (its declared port): the evidence channel appends
 * visit confirmations (validated input, items with their existence checks, the append
 * itself); the seed does the same. The monthly report reads an employee's PUBLISHED shifts.
 * Feedback (services/customers) reads where a visit confirmation was made and checks in its
 * own transaction that it exists.
 */
export { publishedShiftsStartingIn } from './store';
export { ingestVisitConfirmation, visitConfirmationItems, visitEvidenceSchema, type VisitIngestDeps } from './store-visits';
export { getVisitConfirmation, VISIT_LABEL, visitConfirmationExistsCheck } from './store-visits';
export { shiftKeys, type Shift, type VisitConfirmation } from './model';
/** The dashboard counts employees on shift (services/overview). */
export { countEmployeesOnShift } from './store-counts';
/** Messages resolve a location's team from its published shifts (services/messages). */
export { employeesWithPublishedShifts } from './store-team';
