/**
 * What other areas may use of location tasks (their declared port): reading tasks by id and
 * the check a transaction carries when it references a task (exists, not archived).
 */
export { activeTaskCheck, getTasks, TASK_LABEL } from './store';
export type { Task } from './model';
