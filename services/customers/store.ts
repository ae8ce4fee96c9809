import { activeLocationCheck, CONTACT_LABEL, contactKeys, getContacts, locationStates, LOCATION_LABEL, type Contact } from '../locations/public';
import { getVisitConfirmation, VISIT_LABEL, visitConfirmationExistsCheck } from '../planning/public';
import { inspectionExistsCheck, inspectionKeys, INSPECTION_LABEL } from '../quality/public';
import type { Db } from '../shared/ddb/client';
import { movedOn, searchUpkeep, stillAtVersion, versionedPut } from '../shared/ddb/entity';
import { getByIds, indexPage, listPage, type ListQuery, type Page, type PagePosition } from '../shared/ddb/paging';
import { batchGet, collectAll, getOne, projectionOf } from '../shared/ddb/read';
import { searchWords } from '../shared/ddb/search';
import type { TransactionCancelledError, TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import { UniquenessConflictError } from '../shared/errors';
import type { AccessChange, CustomerChange, CustomersStore, FeedbackChange, GrantChange } from './domain';
import { accessGuardFromItem, accessGuardSchema, accessGuardToItem, type AccessGuard, customerFromItem, customerKeys, customerSearchScope, customerToItem, feedbackFromItem, feedbackToItem, grantFromItem, grantToItem, normalizeCustomerNumber, numberGuardItem, type Customer, type Feedback, type FeedbackState, type Grant } from './model';

/**
 * The DynamoDB adapter of customers, customer access grants and feedback: the only place
 * with their expressions and conditions (keys and item shapes: model.ts). Every reference
 * (location, contact, customer, inspection, visit confirmation) is checked in the transaction that writes it.
 */

export const CUSTOMER_LABEL = 'customer';

/**
 * Transaction item for other areas (commerce): the customer exists in this organization and is
 * not archived, so that nothing new points at an archived customer.
 */
export const activeCustomerCheck = (org: string, id: string): TxItem => ({
  label: CUSTOMER_LABEL,
  op: { ConditionCheck: { Key: customerKeys.customer(org, id), ConditionExpression: 'attribute_exists(PK) AND archived = :no', ExpressionAttributeValues: { ':no': false } } },
});
const NUMBER_GUARD_LABEL = 'customer-number';
const GRANT_LABEL = 'customer-access';
const ACCESS_GUARD_LABEL = 'customer-access-guard';
const FEEDBACK_LABEL = 'feedback';

const searchState = (c: Customer) => ({ scope: customerSearchScope(c.archived), words: searchWords([c.name, c.customerNumber]) });

/** The search index items that move a customer's words (name, customer number) from `before` (absent: new) to `after`; puts only for a new one. */
export const customerSearchItems = (before: Customer | undefined, after: Customer): TxItem[] =>
  searchUpkeep(after.organizationId, after.id, before && searchState(before), searchState(after));

export const getCustomer = (db: Db, org: string, id: string): Promise<Customer | undefined> => getOne(db, customerKeys.customer(org, id), customerFromItem);
export const getGrant = (db: Db, org: string, id: string): Promise<Grant | undefined> => getOne(db, customerKeys.grant(org, id), grantFromItem);
export const getFeedback = (db: Db, org: string, id: string): Promise<Feedback | undefined> => getOne(db, customerKeys.feedback(org, id), feedbackFromItem);

export const getCustomers = (db: Db, org: string, ids: readonly string[]): Promise<Map<string, Customer>> => getByIds(db, ids, (id) => customerKeys.customer(org, id), customerFromItem);

/**
 * The customer's access guard, read consistently. A customer without one (no grant activated
 * or revoked since the guard exists) may still have ACTIVE grants activated before it: those
 * are read from the customer's grants (GSI2; they are old enough to be there), and the first
 * guard written lists them. A missing guard is version 0, and a write that relies on it holds
 * only while it is still missing.
 */
export async function getAccessGuard(db: Db, org: string, customerId: string): Promise<AccessGuard> {
  const guard = await getOne(db, customerKeys.accessGuard(org, customerId), accessGuardFromItem);
  if (guard) return guard;
  const projection = projectionOf(['id', 'contactId', 'expiresAt']);
  const active = await collectAll(db, {
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :pk',
    FilterExpression: '#state = :active',
    ProjectionExpression: projection.ProjectionExpression,
    ExpressionAttributeNames: { ...projection.ExpressionAttributeNames, '#state': 'state' },
    ExpressionAttributeValues: { ':pk': customerKeys.customerGrants(org, customerId), ':active': 'ACTIVE' },
  });
  return accessGuardSchema.parse({ organizationId: org, customerId, activeGrants: Object.fromEntries(active.map((g) => [String(g.id), { contactId: g.contactId, expiresAt: g.expiresAt }])) });
}

/** Transaction item: an archive or an unlink holds only while the access guard it found no active access in is unchanged. */
const accessGuardUnchanged = (guard: AccessGuard): TxItem => ({
  label: ACCESS_GUARD_LABEL,
  op: { ConditionCheck: { Key: customerKeys.accessGuard(guard.organizationId, guard.customerId), ...stillAtVersion(guard.version) } },
});

/** Transaction item: the access guard's next version with the ACTIVE grants after an activation or a revocation. */
const putNextAccessGuard = ({ before, activeGrants }: AccessChange): TxItem => ({
  label: ACCESS_GUARD_LABEL,
  op: { Put: { Item: accessGuardToItem({ ...before, activeGrants, version: before.version + 1 }), ...stillAtVersion(before.version) } },
});

/** The linked contacts with their values (only for keys that hold contacts:read: the handler decides). */
export const linkedContacts = (db: Db, org: string, ids: readonly string[]): Promise<Map<string, Contact>> => getContacts(db, org, ids);

async function missing(db: Db, ids: readonly string[], keyOf: (id: string) => { PK: string; SK: string }): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await batchGet(db, ids.map(keyOf));
  return ids.filter((_, i) => found[i] === undefined);
}

const contactExistsCheck = (org: string, id: string): TxItem => ({
  label: CONTACT_LABEL,
  op: { ConditionCheck: { Key: contactKeys.contact(org, id), ConditionExpression: 'attribute_exists(PK)' } },
});

/**
 * Stages a customer change: the customer (new, or the next version of the one read), its
 * search words, its number guard (claimed when new or changed: 409 when another customer
 * holds it; the old one released only while it is still this customer's), checks of the
 * links it gained (contacts exist, locations exist and are not archived), and, for an archive or
 * an unlink, that the access guard is still at the version read (no grant activated since).
 */
export function saveCustomer(unit: UnitOfWork, change: CustomerChange): void {
  const { before, after } = change;
  const org = after.organizationId;
  const numberMoved = !before || normalizeCustomerNumber(before.customerNumber) !== normalizeCustomerNumber(after.customerNumber);
  const guards: TxItem[] = numberMoved
    ? [
        { label: NUMBER_GUARD_LABEL, op: { Put: { Item: numberGuardItem(after), ConditionExpression: 'attribute_not_exists(PK)' } } },
        ...(before
          ? [
              {
                label: 'customer-number-release',
                op: { Delete: { Key: customerKeys.numberGuard(org, before.customerNumber), ConditionExpression: 'customerId = :me', ExpressionAttributeValues: { ':me': after.id } } },
              },
            ]
          : []),
      ]
    : [];
  const checks: TxItem[] = [
    ...after.locationIds.filter((l) => !before?.locationIds.includes(l)).map((l) => activeLocationCheck(org, l)),
    ...after.contactIds.filter((c) => !before?.contactIds.includes(c)).map((c) => contactExistsCheck(org, c)),
    ...(change.access ? [accessGuardUnchanged(change.access)] : []),
  ];
  unit.stage({
    items: [versionedPut(CUSTOMER_LABEL, customerToItem(after), before), ...guards, ...customerSearchItems(before, after), ...checks],
    audit: change.audit,
    explain: (error: TransactionCancelledError) =>
      error.failed(NUMBER_GUARD_LABEL) ? new UniquenessConflictError('customerNumber') : movedOn(CUSTOMER_LABEL, 'customer-number-release', LOCATION_LABEL, CONTACT_LABEL, ACCESS_GUARD_LABEL)(error),
  });
}

/** Transaction item: the customer is still at the version a decision was made on (not archived, links unchanged since). */
const customerUnchanged = (customer: Customer): TxItem => ({
  label: CUSTOMER_LABEL,
  op: { ConditionCheck: { Key: customerKeys.customer(customer.organizationId, customer.id), ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': customer.version } } },
});

/**
 * Stages a grant: new or activated (with the customer still at the version read and the
 * contact existing), or its next version; an activation or the revocation of an ACTIVE grant
 * with the access guard's next version.
 */
export function saveGrant(unit: UnitOfWork, change: GrantChange): void {
  const { after, customer } = change;
  const checks: TxItem[] = [
    ...(customer ? [customerUnchanged(customer), contactExistsCheck(after.organizationId, after.contactId)] : []),
    ...(change.access ? [putNextAccessGuard(change.access)] : []),
  ];
  unit.stage({
    items: [versionedPut(GRANT_LABEL, grantToItem(after), change.before), ...checks],
    audit: change.audit,
    explain: movedOn(GRANT_LABEL, CUSTOMER_LABEL, CONTACT_LABEL, ACCESS_GUARD_LABEL),
  });
}

/** Stages feedback: new (its location active, its customer at the version read, its inspection and visit confirmation existing), or its next version. */
export function saveFeedback(unit: UnitOfWork, change: FeedbackChange): void {
  const { after, before, customer } = change;
  const org = after.organizationId;
  const checks: TxItem[] = before
    ? []
    : [
        activeLocationCheck(org, after.locationId),
        ...(customer ? [customerUnchanged(customer)] : []),
        ...(after.inspectionId ? [inspectionExistsCheck(org, after.inspectionId)] : []),
        ...(after.visitConfirmationId ? [visitConfirmationExistsCheck(org, after.visitConfirmationId)] : []),
      ];
  unit.stage({ items: [versionedPut(FEEDBACK_LABEL, feedbackToItem(after), before), ...checks], audit: change.audit, explain: movedOn(FEEDBACK_LABEL, LOCATION_LABEL, CUSTOMER_LABEL, INSPECTION_LABEL, VISIT_LABEL) });
}

/** One page of customers: by name, or with `q` (name, customer number). */
export const listCustomers = (db: Db, org: string, query: ListQuery): Promise<Page<Customer>> =>
  listPage(db, org, query, {
    partition: (archived) => customerKeys.byOrganization(org, archived),
    searchScope: customerSearchScope,
    load: (ids) => getCustomers(db, org, ids),
    fromItem: customerFromItem,
  });

/** One page of grants, oldest first: the organization's (GSI1) or one customer's (GSI2). */
export async function listGrants(db: Db, org: string, q: { customerId?: string; limit: number; after?: PagePosition }): Promise<Page<Grant>> {
  const page = q.customerId ? await indexPage(db, 'GSI2', customerKeys.customerGrants(org, q.customerId), q.limit, q.after) : await indexPage(db, 'GSI1', customerKeys.grants(org), q.limit, q.after);
  return { items: page.items.map(grantFromItem), ...(page.next ? { next: page.next } : {}) };
}

/** One page of feedback, oldest first: in one state (GSI2), of one location (GSI3), or all (GSI1). */
export async function listFeedback(db: Db, org: string, q: { state?: FeedbackState; locationId?: string; limit: number; after?: PagePosition }): Promise<Page<Feedback>> {
  const page = q.state
    ? await indexPage(db, 'GSI2', customerKeys.feedbackInState(org, q.state), q.limit, q.after)
    : q.locationId
      ? await indexPage(db, 'GSI3', customerKeys.locationFeedback(org, q.locationId), q.limit, q.after)
      : await indexPage(db, 'GSI1', customerKeys.feedbackList(org), q.limit, q.after);
  return { items: page.items.map(feedbackFromItem), ...(page.next ? { next: page.next } : {}) };
}

/** The customers store port on DynamoDB, staging writes in `unit`. */
export const customersStore = (db: Db, unit: UnitOfWork): CustomersStore => ({
  getCustomer: (org, id) => getCustomer(db, org, id),
  locationStates: (org, ids) => locationStates(db, org, ids),
  missingContacts: (org, ids) => missing(db, ids, (id) => contactKeys.contact(org, id)),
  inspectionLocation: async (org, id) => {
    const [item] = await batchGet(db, [inspectionKeys.inspection(org, id)]);
    return item ? String(item.locationId) : undefined;
  },
  visitConfirmationLocation: async (org, id) => (await getVisitConfirmation(db, org, id))?.locationId,
  getGrant: (org, id) => getGrant(db, org, id),
  accessGuard: (org, customerId) => getAccessGuard(db, org, customerId),
  getFeedback: (org, id) => getFeedback(db, org, id),
  saveCustomer: (change) => saveCustomer(unit, change),
  saveGrant: (change) => saveGrant(unit, change),
  saveFeedback: (change) => saveFeedback(unit, change),
});
