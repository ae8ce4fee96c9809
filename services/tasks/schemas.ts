import * as z from 'zod';
import { limitParameter } from '../shared/http/query';
import { booleanParameter, cursorParameter, nothingToChange, nullableText, requiredName, sendsAField, utc } from '../shared/schemas/fields';
import { responseOf } from '../shared/schemas/response';
import { calendarDate } from '../shared/time';
import { WEEKDAYS, type Task } from './model';

/** Request and response shapes of location tasks. */

const weekly = z
  .object({
    kind: z.literal('WEEKLY'),
    weekdays: z
      .array(z.enum(WEEKDAYS, { error: `weekdays are ${WEEKDAYS.join(', ')}.` }))
      .min(1, { message: 'weekdays must name at least one day.' })
      .max(7)
      .refine((d) => new Set(d).size === d.length, { message: 'weekdays must not repeat a day.' })
      .transform((d) => [...d].sort((a, b) => WEEKDAYS.indexOf(a) - WEEKDAYS.indexOf(b))),
  })
  .strict();

const everyNDays = z
  .object({
    kind: z.literal('EVERY_N_DAYS'),
    everyDays: z.number().int({ message: 'everyDays must be a whole number.' }).min(1, { message: 'everyDays must be from 1 to 365.' }).max(365, { message: 'everyDays must be from 1 to 365.' }),
    startsOn: calendarDate('startsOn').meta({ description: 'The first day the task is due.' }),
  })
  .strict();

export const scheduleBody = z
  .discriminatedUnion('kind', [weekly, everyNDays], { error: 'schedule.kind must be WEEKLY (with weekdays) or EVERY_N_DAYS (with everyDays and startsOn).' })
  .nullable()
  .optional()
  .meta({ description: 'When the task recurs; null: on demand.' });

const taskFields = {
  instructions: nullableText('instructions', 4000),
  schedule: scheduleBody,
  estimatedMinutes: z
    .number()
    .int({ message: 'estimatedMinutes must be a whole number.' })
    .min(1, { message: 'estimatedMinutes must be from 1 to 1440.' })
    .max(1440, { message: 'estimatedMinutes must be from 1 to 1440.' })
    .nullable()
    .optional(),
};

export const createTaskBody = z.object({ title: requiredName('title'), ...taskFields }).strict();

export const updateTaskBody = z
  .object({
    title: requiredName('title').optional(),
    ...taskFields,
    archived: z.boolean({ error: 'archived must be true or false.' }).optional().meta({ description: '`false` restores an archived task; `true` archives it (as DELETE does).' }),
  })
  .strict()
  .refine(sendsAField, nothingToChange());

export const taskListQuery = z
  .object({
    archived: booleanParameter('archived', '`true` lists archived tasks instead of active ones; default `false`.'),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict();

const scheduleResponse = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('WEEKLY'), weekdays: z.array(z.enum(WEEKDAYS)) }),
    z.object({ kind: z.literal('EVERY_N_DAYS'), everyDays: z.number().int(), startsOn: z.string().meta({ format: 'date' }) }),
  ])
  .nullable();

export const taskResponseSchema = z
  .object({
    id: z.uuid(),
    locationId: z.uuid(),
    title: z.string(),
    instructions: z.string().nullable().meta({ description: 'Null when empty. Always present.' }),
    schedule: scheduleResponse.meta({ description: 'null: on demand. Always present.' }),
    estimatedMinutes: z.number().int().nullable(),
    archived: z.boolean(),
    archivedAt: utc().nullable(),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Task' });

export const taskResponse = (t: Task): z.infer<typeof taskResponseSchema> => responseOf(taskResponseSchema, t, {
  schedule: t.schedule === null ? null : t.schedule.kind === 'WEEKLY' ? { kind: 'WEEKLY', weekdays: [...t.schedule.weekdays] } : { kind: 'EVERY_N_DAYS', everyDays: t.schedule.everyDays, startsOn: t.schedule.startsOn },
});
