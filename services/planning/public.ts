/**
 * What other areas may use of planning (its declared port): the evidence channel appends
 * visit confirmations (validated input, items with their existence checks, the append
 * itself); the seed does the same.
 */
export { ingestVisitConfirmation, visitConfirmationItems, visitEvidenceSchema, type VisitIngestDeps } from './store-visits';
export { shiftKeys, type Shift, type VisitConfirmation } from './model';
export { employeesWithPublishedShifts } from './store-team';
