import { defineProblems } from '../shared/errors';

/** The timesheets area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  TIME_ENTRY_OVERLAP: { status: 409, title: 'Time entry overlaps another entry' },
  TIME_ENTRY_VOIDED: { status: 409, title: 'Time entry is voided' },
});
