import { entityEtag } from '../shared/domain/etag';
import type { VisitConfirmation } from './model';

/**
 * Visit confirmations: proof that a visit at a location happened, appended by the internal
 * evidence channel and read-only on the API. Signatures, device ids, positions and contact
 * details never enter the confirmation: they are sealed apart (restricted evidence).
 */
export interface VisitInput {
  readonly id?: string;
  readonly locationId: string;
  readonly employeeIds: readonly string[];
  readonly shiftId?: string | null;
  readonly confirmedAt: string;
  readonly method: VisitConfirmation['method'];
  readonly verificationState: VisitConfirmation['verificationState'];
}

/** The ETag of a visit confirmation: appended once and never changed, so always version 1 (as payments and candidate messages). */
export const visitEtag = (v: Pick<VisitConfirmation, 'id'>): string => entityEtag('visit-confirmation', v.id, 1);

/** The confirmation as stored: only the allowlisted fields of the input. */
export const newVisitConfirmation = (organizationId: string, id: string, input: VisitInput, recordedAt: string): VisitConfirmation => ({
  id,
  organizationId,
  locationId: input.locationId,
  employeeIds: [...new Set(input.employeeIds)].sort(),
  shiftId: input.shiftId ?? null,
  confirmedAt: input.confirmedAt,
  method: input.method,
  verificationState: input.verificationState,
  recordedAt,
});
