import { conflict, defineProblems } from '../shared/errors';

/** The customers area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  CUSTOMER_ACCESS_ACTIVE: conflict('Customer access is already active'),
  CUSTOMER_ACCESS_REVOKED: conflict('Customer access is revoked'),
  CUSTOMER_ACCESS_EXPIRED: conflict('Customer access has expired'),
  CUSTOMER_ACCESS_GRANTED: conflict('Customer access is still granted'),
  CUSTOMER_ARCHIVED: conflict('Customer is archived'),
  CUSTOMER_CONTACT_UNLINKED: conflict('Contact is not linked to the customer'),
  FEEDBACK_ACKNOWLEDGED: conflict('Feedback is already acknowledged'),
  FEEDBACK_RESOLVED: conflict('Feedback is resolved'),
});
