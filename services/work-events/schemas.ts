import * as z from 'zod';
import { limitParameter } from '../shared/http/query';
import { cursorParameter, fromBeforeTo, utc } from '../shared/schemas/fields';
import { instant, uuid } from '../shared/time';
import { responseOf } from '../shared/schemas/response';
import type { WorkEvent } from './model';

/** Query of GET /work-events (decisions: sorted by server timestamp; from inclusive, to exclusive). */
export const workEventListQuery = z
  .object({
    from: instant().optional(),
    to: instant().optional(),
    employeeId: uuid().optional(),
    verificationState: z.enum(['VERIFIED', 'REVIEW_REQUIRED'], { error: 'verificationState must be VERIFIED or REVIEW_REQUIRED.' }).optional(),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict()
  .superRefine(fromBeforeTo);

export const workEventResponseSchema = z
  .object({
    id: z.uuid(),
    employeeId: z.uuid(),
    locationId: z.uuid(),
    taskId: z.uuid().nullable(),
    type: z.enum(['CHECK_IN', 'CHECK_OUT']),
    clientTimestamp: utc(),
    serverTimestamp: utc(),
    offline: z.boolean(),
    verificationState: z.enum(['VERIFIED', 'REVIEW_REQUIRED']),
    timeEntryId: z.uuid().nullable().meta({ description: 'The SCANNED entry this event projected into.' }),
  })
  .meta({ id: 'WorkEvent' });

/** A work event as returned: never QR ids or secrets, device ids, positions or validation metadata. */
export const workEventResponse = (e: WorkEvent): z.infer<typeof workEventResponseSchema> => responseOf(workEventResponseSchema, e);
