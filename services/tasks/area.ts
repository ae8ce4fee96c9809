import { defineArea } from '../shared/area';
import { createRoute, listRoute, readRoute, removeRoute, updateRoute } from '../shared/route-shapes';
import { READ_WRITE } from '../shared/permissions';
import { pageSchema } from '../shared/schemas/fields';
import { createTaskBody, taskListQuery, taskResponseSchema, updateTaskBody } from './schemas';

const NULLABLE = '`instructions`, `schedule` and `estimatedMinutes` are always present, `null` when empty.';

/** Location tasks: the recurring work at a location, referenced by shifts and work events. */
export const tasksArea = defineArea({
  name: 'tasks',
  api: 'public',
  description: 'Location tasks: the recurring work at a location (schedule, instructions, estimate).',
  // Tasks with the location's existence check, audit and idempotency records in one transaction.
  permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false },
  auditEntityTypes: ['task'],
  schemas: { Task: taskResponseSchema, TaskList: pageSchema(taskResponseSchema) },
  routes: {
    listTasks: listRoute({
      path: '/locations/{locationId}/tasks',
      scopes: ['tasks:read'],
      summary: "List a location's tasks",
      description: `Active tasks of the location by title (case-insensitive), then id; archived ones with \`archived=true\`. ${NULLABLE}`,
      query: taskListQuery,
      schema: pageSchema(taskResponseSchema),
      returns: 'A page of tasks.',
    }),
    createTask: createRoute({
      path: '/locations/{locationId}/tasks',
      scopes: ['tasks:write'],
      summary: 'Create a task at a location',
      description: `Creates a task at an active location of this organization (404 for another organization's, 422 for an archived one), atomically with its audit entry. ${NULLABLE}`,
      body: createTaskBody,
      schema: taskResponseSchema,
      returns: 'The created task.',
    }),
    getTask: readRoute({
      path: '/locations/{locationId}/tasks/{taskId}',
      scopes: ['tasks:read'],
      summary: 'Get one task',
      description: `One task of the location, archived or not. ${NULLABLE}`,
      schema: taskResponseSchema,
      returns: 'The task.',
    }),
    updateTask: updateRoute({
      path: '/locations/{locationId}/tasks/{taskId}',
      scopes: ['tasks:write'],
      summary: 'Update a task',
      description: `Changes the fields sent (partial; \`null\` clears a nullable field; \`archived: false\` restores). A change to the current values changes nothing (same ETag). ${NULLABLE}`,
      body: updateTaskBody,
      idempotencyKey: 'optional',
      schema: taskResponseSchema,
      returns: 'The task after the change.',
    }),
    archiveTask: removeRoute({
      path: '/locations/{locationId}/tasks/{taskId}',
      scopes: ['tasks:write'],
      summary: 'Archive a task',
      description:
        'Archives the task: it leaves the default list, stays readable by id (shifts and work events keep referencing it), cannot be added to shifts any more, and can be restored with PATCH `archived: false`. If-Match is optional and honoured when sent.',
      schema: taskResponseSchema,
      returns: 'The archived task.',
    }),
  },
});
