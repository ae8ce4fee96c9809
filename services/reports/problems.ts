import { conflict, defineProblems } from '../shared/errors';

/** The reports area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  PAYROLL_PERIOD_EXPORTED: conflict('A payroll dispatch of this period and scope exists already'),
});
