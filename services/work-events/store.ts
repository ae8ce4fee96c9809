import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SealedValue } from '../shared/crypto/restricted';
import type { Db } from '../shared/ddb/client';
import { collect, positionRange, type Key } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';

/**
 * Work events: immutable scan evidence. Keys (docs/data-model.md):
 *   event       PK ORG#<org>#WE#<id>  SK WE
 *   restricted  PK ORG#<org>#WE#<id>  SK RESTRICTED   (sealed QR id, device, position, validation; no index keys)
 *   GSI1 ORG#<org>#WE                / <serverTimestamp>#<id>
 *   GSI2 ORG#<org>#EMP#<employee>#WE / <serverTimestamp>#<id>
 */
export type EventType = 'CHECK_IN' | 'CHECK_OUT';
export type VerificationState = 'VERIFIED' | 'REVIEW_REQUIRED';

export interface WorkEvent {
  readonly id: string;
  readonly organizationId: string;
  readonly employeeId: string;
  readonly locationId: string;
  readonly taskId: string | null;
  readonly type: EventType;
  readonly clientTimestamp: string;
  readonly serverTimestamp: string;
  readonly offline: boolean;
  readonly verificationState: VerificationState;
  /** The time entry this event projected into, if it did. */
  readonly timeEntryId: string | null;
}

export const eventKeys = {
  event: (org: string, id: string): Key => ({ PK: `ORG#${org}#WE#${id}`, SK: 'WE' }),
  restricted: (org: string, id: string): Key => ({ PK: `ORG#${org}#WE#${id}`, SK: 'RESTRICTED' }),
  byOrganization: (org: string) => `ORG#${org}#WE`,
  byEmployee: (org: string, employeeId: string) => `ORG#${org}#EMP#${employeeId}#WE`,
  position: (e: Pick<WorkEvent, 'serverTimestamp' | 'id'>) => `${e.serverTimestamp}#${e.id}`,
};

export const EVENT_LABEL = 'workEvent';

export function eventToItem(e: WorkEvent): Record<string, unknown> {
  const position = eventKeys.position(e);
  return {
    ...eventKeys.event(e.organizationId, e.id),
    GSI1PK: eventKeys.byOrganization(e.organizationId),
    GSI1SK: position,
    GSI2PK: eventKeys.byEmployee(e.organizationId, e.employeeId),
    GSI2SK: position,
    itemType: 'WorkEvent',
    ...e,
  };
}

/** Only the fields of WorkEvent leave the store; restricted data has its own item. */
export function eventFromItem(item: Record<string, unknown>): WorkEvent {
  return {
    id: item.id as string,
    organizationId: item.organizationId as string,
    employeeId: item.employeeId as string,
    locationId: item.locationId as string,
    taskId: (item.taskId as string | null | undefined) ?? null,
    type: item.type as EventType,
    clientTimestamp: item.clientTimestamp as string,
    serverTimestamp: item.serverTimestamp as string,
    offline: Boolean(item.offline),
    verificationState: item.verificationState as VerificationState,
    timeEntryId: (item.timeEntryId as string | null | undefined) ?? null,
  };
}

export async function getWorkEvent(db: Db, org: string, id: string): Promise<WorkEvent | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: eventKeys.event(org, id), ConsistentRead: true }));
  return out.Item ? eventFromItem(out.Item) : undefined;
}

/** Appending only: an event id is written once. */
export const putWorkEvent = (e: WorkEvent): TxItem => ({
  label: EVENT_LABEL,
  op: { Put: { Item: eventToItem(e), ConditionExpression: 'attribute_not_exists(PK)' } },
});

export const putRestrictedEventData = (org: string, id: string, sealed: SealedValue, capturedAt: string): TxItem => ({
  label: 'restrictedEvent',
  op: { Put: { Item: { ...eventKeys.restricted(org, id), itemType: 'RestrictedEvidence', kind: 'SCAN', sealed, capturedAt }, ConditionExpression: 'attribute_not_exists(PK)' } },
});

export interface EventFilter {
  readonly organizationId: string;
  readonly employeeId?: string;
  readonly verificationState?: VerificationState;
  readonly from?: string;
  readonly to?: string;
  readonly after?: string;
}

/** One page by server timestamp: one Query on GSI1 (organization) or GSI2 (employee). */
export async function listWorkEvents(db: Db, f: EventFilter, limit: number): Promise<{ items: WorkEvent[]; hasMore: boolean }> {
  const index = f.employeeId ? 'GSI2' : 'GSI1';
  const lo = [f.from, f.after ? `${f.after}~` : undefined].filter((v): v is string => v !== undefined).sort().pop();
  const range = positionRange(index, f.employeeId ? eventKeys.byEmployee(f.organizationId, f.employeeId) : eventKeys.byOrganization(f.organizationId), lo, f.to);
  if (!range) return { items: [], hasMore: false };
  const { key, values } = range;
  const { items } = await collect(
    db,
    {
      IndexName: index,
      KeyConditionExpression: key,
      ...(f.verificationState
        ? { FilterExpression: 'verificationState = :state', ExpressionAttributeValues: { ...values, ':state': f.verificationState } }
        : { ExpressionAttributeValues: values }),
    },
    limit + 1,
  );
  const events = items.map(eventFromItem);
  return { items: events.slice(0, limit), hasMore: events.length > limit };
}
