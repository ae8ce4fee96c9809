import { conflict, defineProblems } from '../shared/errors';

/** The planning area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  SHIFT_OVERLAP: conflict('Shift overlaps another published shift'),
  SHIFT_PUBLISHED: conflict('Shift is already published'),
  SHIFT_CANCELLED: conflict('Shift is cancelled'),
  SHIFT_EMPLOYEE_INACTIVE: conflict("Shift's employee is deactivated"),
  SHIFT_LOCATION_ARCHIVED: conflict("Shift's location is archived"),
  SHIFT_TASK_ARCHIVED: conflict("A task of the shift is archived"),
});
