/**
 * What other areas may use of location tasks (their declared port): the key and parser of a
 * task (shifts read the tasks they reference together with their other references, in one
 * BatchGetItem) and the check a transaction carries when it references a task (exists, not
 * archived).
 */
export { activeTaskCheck, TASK_LABEL } from './store';
export { taskFromItem, taskKeys, type Task } from './model';
