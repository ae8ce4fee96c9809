import * as z from 'zod';
import { archivableFields } from '../shared/schemas/stored';

/**
 * Location tasks as stored: the type is the output of the item schema, and items are parsed
 * with it on read (keys dropped, a malformed item fails loudly). Keys (docs/areas/planning.md):
 *   task   PK ORG#<org>#TASK#<id>                          SK TASK
 *   GSI1   ORG#<org>#LOC#<loc>#TASKS          / <lower title>#<id>   active tasks of a location by title
 *   GSI1   ORG#<org>#LOC#<loc>#TASKS#ARCHIVED / <lower title>#<id>   archived ones
 * A task belongs to one location for life: shifts and work events reference it by id.
 */

export const WEEKDAYS = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** When the work recurs: on weekdays, every N days from a first day, or on demand (null). */
export const scheduleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('WEEKLY'), weekdays: z.array(z.enum(WEEKDAYS)).readonly() }).readonly(),
  z.object({ kind: z.literal('EVERY_N_DAYS'), everyDays: z.number().int(), startsOn: z.string() }).readonly(),
]);
export type Schedule = z.output<typeof scheduleSchema>;

export const taskSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    locationId: z.string(),
    title: z.string(),
    instructions: z.string().nullable().default(null),
    schedule: scheduleSchema.nullable().default(null),
    estimatedMinutes: z.number().int().nullable().default(null),
    ...archivableFields,
  })
  .readonly();
export type Task = z.output<typeof taskSchema>;

export const taskKeys = {
  task: (org: string, id: string) => ({ PK: `ORG#${org}#TASK#${id}`, SK: 'TASK' }),
  byLocation: (org: string, locationId: string, archived: boolean) => `ORG#${org}#LOC#${locationId}#TASKS${archived ? '#ARCHIVED' : ''}`,
};

export const taskToItem = (t: Task): Record<string, unknown> => ({
  ...taskKeys.task(t.organizationId, t.id),
  GSI1PK: taskKeys.byLocation(t.organizationId, t.locationId, t.archived),
  GSI1SK: `${t.title.toLowerCase()}#${t.id}`,
  itemType: 'Task',
  ...t,
});

export const taskFromItem = (item: Record<string, unknown>): Task => taskSchema.parse(item);
