import { conflict, defineProblems } from '../shared/errors';

/** The quality area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  INSPECTION_COMPLETED: conflict('Inspection is completed'),
});
