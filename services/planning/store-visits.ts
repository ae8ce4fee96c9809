import * as z from 'zod';
import { employeeExistsCheck, EMPLOYEE_LABEL } from '../employees/public';
import { locationExistsCheck, LOCATION_LABEL } from '../locations/public';
import type { SealedValue } from '../shared/crypto/restricted';
import type { Db } from '../shared/ddb/client';
import { collect, getOne, positionRange } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import { inUnitOfWork } from '../shared/ddb/unit-of-work';
import { ValidationError } from '../shared/errors';
import { parseInput } from '../shared/http/validation';
import { instant, uuid } from '../shared/time';
import { newVisitConfirmation } from './domain-visits';
import { VERIFICATION_STATES, VISIT_METHODS, visitFromItem, visitKeys, visitToItem, type VisitConfirmation } from './model';

/**
 * The DynamoDB adapter of visit confirmations: reads for the API, and the append the
 * evidence channel makes (items, restricted evidence, existence checks; keys: model.ts).
 */

export const VISIT_LABEL = 'visit-confirmation';

/** Existence check of a visit confirmation, for other areas' transactions (feedback). */
export const visitConfirmationExistsCheck = (organizationId: string, id: string): TxItem => ({
  label: VISIT_LABEL,
  op: { ConditionCheck: { Key: visitKeys.visit(organizationId, id), ConditionExpression: 'attribute_exists(PK)' } },
});

export const getVisitConfirmation = (db: Db, org: string, id: string): Promise<VisitConfirmation | undefined> => getOne(db, visitKeys.visit(org, id), visitFromItem);

export interface VisitFilter {
  readonly organizationId: string;
  readonly locationId?: string;
  readonly employeeId?: string;
  readonly verificationState?: VisitConfirmation['verificationState'];
  readonly from?: string;
  readonly to?: string;
  readonly after?: string;
}

/** One page by confirmedAt, then id: one Query of GSI2 (a location) or GSI1 (the organization). */
export async function listVisitConfirmations(db: Db, f: VisitFilter, limit: number): Promise<{ items: VisitConfirmation[]; hasMore: boolean }> {
  const index = f.locationId ? 'GSI2' : 'GSI1';
  const lo = [f.from, f.after ? `${f.after}~` : undefined].filter((v): v is string => v !== undefined).sort().pop();
  const range = positionRange(index, f.locationId ? visitKeys.byLocation(f.organizationId, f.locationId) : visitKeys.byOrganization(f.organizationId), lo, f.to);
  if (!range) return { items: [], hasMore: false };
  const filters: string[] = [];
  const values: Record<string, unknown> = { ...range.values };
  if (f.verificationState) {
    filters.push('verificationState = :state');
    values[':state'] = f.verificationState;
  }
  if (f.employeeId) {
    filters.push('contains(employeeIds, :employee)');
    values[':employee'] = f.employeeId;
  }
  const { items } = await collect(db, { IndexName: index, KeyConditionExpression: range.key, ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}), ExpressionAttributeValues: values }, limit + 1);
  const visits = items.map(visitFromItem);
  return { items: visits.slice(0, limit), hasMore: visits.length > limit };
}

/**
 * The items of one appended confirmation: the confirmation (written once per id), its sealed
 * restricted evidence, and the existence checks of its location and employees.
 */
export function visitConfirmationItems(v: VisitConfirmation, restricted?: SealedValue): TxItem[] {
  return [
    { label: VISIT_LABEL, op: { Put: { Item: visitToItem(v), ConditionExpression: 'attribute_not_exists(PK)' } } },
    ...(restricted
      ? [{ label: 'restricted-visit', op: { Put: { Item: { ...visitKeys.restricted(v.organizationId, v.id), itemType: 'RestrictedEvidence', kind: 'VISIT', sealed: restricted, capturedAt: v.recordedAt } } } }]
      : []),
    locationExistsCheck(v.organizationId, v.locationId),
    ...v.employeeIds.map((e) => employeeExistsCheck(v.organizationId, e)),
  ];
}

/** What the evidence channel sends for a visit confirmation (422 at the field otherwise). */
export const visitEvidenceSchema = z
  .object({
    id: uuid().optional(),
    locationId: uuid(),
    employeeIds: z.array(uuid()).min(1).max(20),
    shiftId: uuid().nullable().optional(),
    confirmedAt: instant(),
    method: z.enum(VISIT_METHODS),
    verificationState: z.enum(VERIFICATION_STATES),
    /** Never returned by the API; stored sealed. */
    restricted: z
      .object({ signature: z.string().max(100_000).optional(), deviceId: z.string().max(200).optional(), tagId: z.string().max(200).optional(), contactId: uuid().optional(), latitude: z.number().min(-90).max(90).optional(), longitude: z.number().min(-180).max(180).optional() })
      .strict()
      .optional(),
  })
  .strict();

export interface VisitIngestDeps {
  readonly db: Db;
  readonly now: () => Date;
  readonly newId: () => string;
  readonly seal: (value: unknown) => Promise<SealedValue>;
}

/**
 * Appends one visit confirmation for the evidence channel (and the seed), in one transaction;
 * an id appended before answers its first record (`duplicate`). Evidence is its own record:
 * no audit entry, as for work events.
 */
export async function ingestVisitConfirmation(deps: VisitIngestDeps, organizationId: string, raw: unknown): Promise<{ readonly visitConfirmationId: string; readonly duplicate: boolean }> {
  const input = parseInput(visitEvidenceSchema, raw, 'body');
  const id = input.id ?? deps.newId();
  if (await getVisitConfirmation(deps.db, organizationId, id)) return { visitConfirmationId: id, duplicate: true };
  const visit = newVisitConfirmation(organizationId, id, input, deps.now().toISOString());
  const restricted = input.restricted ? await deps.seal(input.restricted) : undefined;
  try {
    await inUnitOfWork(deps.db, async (unit) =>
      unit.stage({
        items: visitConfirmationItems(visit, restricted),
        audit: { auditedBy: 'the visit confirmation itself (append-only evidence)' },
        explain: (error) => {
          if (error.failed(VISIT_LABEL)) return new DuplicateVisit();
          if (error.failed(LOCATION_LABEL)) return new ValidationError([{ pointer: '/locationId', detail: 'The location does not exist in this organization.' }]);
          if (error.failed(EMPLOYEE_LABEL)) return new ValidationError([{ pointer: '/employeeIds', detail: 'An employee does not exist in this organization.' }]);
          return undefined;
        },
      }),
    );
  } catch (error) {
    if (error instanceof DuplicateVisit) return { visitConfirmationId: id, duplicate: true };
    throw error;
  }
  return { visitConfirmationId: id, duplicate: false };
}

class DuplicateVisit extends Error {}
