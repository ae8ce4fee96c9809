import { entityEtag } from '../shared/domain/etag';
import * as z from 'zod';
import type { Key } from '../shared/ddb/read';

/**
 * Work events: immutable scan evidence, appended by the evidence channel (evidence-ingest)
 * and read-only through the API. Keys (docs/data-model.md):
 *   event       PK ORG#<org>#WE#<id>  SK WE
 *   restricted  PK ORG#<org>#WE#<id>  SK RESTRICTED   (sealed QR id, device, position, validation; no index keys)
 *   GSI1 ORG#<org>#WE                / <serverTimestamp>#<id>
 *   GSI2 ORG#<org>#EMP#<employee>#WE / <serverTimestamp>#<id>
 *   GSI3 ORG#<org>#WE#REVIEW         / <serverTimestamp>#<id>   REVIEW_REQUIRED events only (sparse:
 *        the dashboard's "evidence needing review" counts this partition, services/overview)
 */
export const workEventSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    employeeId: z.string(),
    locationId: z.string(),
    taskId: z.string().nullable().default(null),
    type: z.enum(['CHECK_IN', 'CHECK_OUT']),
    clientTimestamp: z.string(),
    serverTimestamp: z.string(),
    offline: z.boolean().default(false),
    verificationState: z.enum(['VERIFIED', 'REVIEW_REQUIRED']),
    /** The time entry this event projected into, if it did. */
    timeEntryId: z.string().nullable().default(null),
  })
  .readonly();
export type WorkEvent = z.output<typeof workEventSchema>;
export type EventType = WorkEvent['type'];
export type VerificationState = WorkEvent['verificationState'];

export const eventKeys = {
  event: (org: string, id: string): Key => ({ PK: `ORG#${org}#WE#${id}`, SK: 'WE' }),
  restricted: (org: string, id: string): Key => ({ PK: `ORG#${org}#WE#${id}`, SK: 'RESTRICTED' }),
  byOrganization: (org: string) => `ORG#${org}#WE`,
  byEmployee: (org: string, employeeId: string) => `ORG#${org}#EMP#${employeeId}#WE`,
  needingReview: (org: string) => `ORG#${org}#WE#REVIEW`,
  position: (e: Pick<WorkEvent, 'serverTimestamp' | 'id'>) => `${e.serverTimestamp}#${e.id}`,
};

export function eventToItem(e: WorkEvent): Record<string, unknown> {
  const position = eventKeys.position(e);
  return {
    ...eventKeys.event(e.organizationId, e.id),
    GSI1PK: eventKeys.byOrganization(e.organizationId),
    GSI1SK: position,
    GSI2PK: eventKeys.byEmployee(e.organizationId, e.employeeId),
    GSI2SK: position,
    ...(e.verificationState === 'REVIEW_REQUIRED' ? { GSI3PK: eventKeys.needingReview(e.organizationId), GSI3SK: position } : {}),
    itemType: 'WorkEvent',
    ...e,
  };
}

/** Only the fields of WorkEvent leave the store; restricted data has its own item. */
export const eventFromItem = (item: Record<string, unknown>): WorkEvent => workEventSchema.parse(item);

/** The ETag of a work event: scan evidence is immutable, so its version is always 1. */
export const workEventEtag = (e: Pick<WorkEvent, 'id'>): string => entityEtag('work-event', e.id, 1);
