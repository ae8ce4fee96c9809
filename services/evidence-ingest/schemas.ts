import * as z from 'zod';
import { instant, uuid } from '../shared/time';

/** What the scan service sends the evidence channel: a batch of one organization's scans. */

export const evidenceSchema = z
  .object({
    id: uuid().optional(),
    employeeId: uuid(),
    locationId: uuid(),
    taskId: uuid().nullable().optional(),
    type: z.enum(['CHECK_IN', 'CHECK_OUT']),
    clientTimestamp: instant(),
    offline: z.boolean(),
    verificationState: z.enum(['VERIFIED', 'REVIEW_REQUIRED']),
    /** Never returned by the API; stored sealed. */
    restricted: z
      .object({
        qrPublicId: z.string().max(200).optional(),
        deviceId: z.string().max(200).optional(),
        latitude: z.number().min(-90).max(90).optional(),
        longitude: z.number().min(-180).max(180).optional(),
        accuracyMeters: z.number().min(0).optional(),
        validation: z.record(z.string(), z.unknown()).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type EvidenceInput = z.input<typeof evidenceSchema>;
export type Evidence = z.output<typeof evidenceSchema>;

/** One invocation: each event is validated on its own, so one bad event does not stop the others. */
/** One delivery of the scan service: scan events and visit confirmations (planning's), each ingested on its own. */
export const batchSchema = z
  .object({ organizationId: uuid(), events: z.array(z.unknown()).max(100).default([]), visitConfirmations: z.array(z.unknown()).max(100).default([]) })
  .strict()
  .refine((b) => b.events.length + b.visitConfirmations.length > 0, { message: 'Send at least one event or visit confirmation.' });
