import { defineProblems } from '../shared/errors';

/** The customers area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  CUSTOMER_ACCESS_ACTIVE: { status: 409, title: 'Customer access is already active' },
  CUSTOMER_ACCESS_REVOKED: { status: 409, title: 'Customer access is revoked' },
  CUSTOMER_ACCESS_EXPIRED: { status: 409, title: 'Customer access has expired' },
  FEEDBACK_ACKNOWLEDGED: { status: 409, title: 'Feedback is already acknowledged' },
  FEEDBACK_RESOLVED: { status: 409, title: 'Feedback is resolved' },
});
