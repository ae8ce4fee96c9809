import type { SealedValue } from '../shared/crypto/restricted';
import type { Db } from '../shared/ddb/client';
import { collect, getOne, positionRange } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import { eventFromItem, eventKeys, eventToItem, type VerificationState, type WorkEvent } from './model';

/** The DynamoDB adapter of work events: reads for the API, append items for the evidence channel. */

export const EVENT_LABEL = 'workEvent';

export const getWorkEvent = (db: Db, org: string, id: string): Promise<WorkEvent | undefined> => getOne(db, eventKeys.event(org, id), eventFromItem);

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
