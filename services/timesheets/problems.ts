import { conflict, defineProblems } from '../shared/errors';

/** The timesheets area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  TIME_ENTRY_OVERLAP: conflict('Time entry overlaps another entry'),
  TIME_ENTRY_VOIDED: conflict('Time entry is voided'),
});
