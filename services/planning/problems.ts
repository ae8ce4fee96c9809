import { defineProblems } from '../shared/errors';

/** The planning area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  SHIFT_OVERLAP: { status: 409, title: 'Shift overlaps another published shift' },
  SHIFT_PUBLISHED: { status: 409, title: 'Shift is already published' },
  SHIFT_CANCELLED: { status: 409, title: 'Shift is cancelled' },
});
