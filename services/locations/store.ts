import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../shared/ddb/client';
import { movedOn, searchUpkeep, type SearchState } from '../shared/ddb/entity';
import { getByIds, listPage, type ListQuery, type Page } from '../shared/ddb/paging';
import { getOne } from '../shared/ddb/read';
import { searchIndexItems, searchWords } from '../shared/ddb/search';
import { commit, type TransactionCancelledError, type TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import { fieldError } from '../shared/errors';
import type { LocationChange, LocationStore } from './domain';
import { contactKeys, locationFromItem, locationKeys, locationSearchScope, locationToItem, qrSecretToItem, type Location, type LocationRecord, type QrSecret } from './model';
import { getContact, getContacts, saveContact } from './store-contacts';

/**
 * The DynamoDB adapter of locations and their QR secrets: the only place with their
 * expressions and conditions (keys and item shapes: model.ts). Writes are staged in the
 * request's unit of work; a condition on something read that failed is a concurrent change,
 * and the use case runs again from its reads.
 */

export const LOCATION_LABEL = 'location';
const QR_LABEL = 'qr';
const contactCheckLabel = (pointer: string) => `contact:${pointer}`;

/** The words `q` finds a location by: its name and address. */
export const locationSearchWords = (l: Pick<Location, 'name' | 'address'>): string[] => searchWords([l.name, l.address]);

const searchState = (l: Pick<Location, 'name' | 'address' | 'archived'>): SearchState => ({ scope: locationSearchScope(l.archived ?? false), words: locationSearchWords(l) });

export const getLocation = (db: Db, organizationId: string, id: string): Promise<LocationRecord | undefined> => getOne(db, locationKeys.location(organizationId, id), locationFromItem);

/** A location's archive state, for the areas whose new references must not point at an archived location; undefined when the organization has none of that id. */
export async function locationState(db: Db, organizationId: string, id: string): Promise<{ readonly archived: boolean } | undefined> {
  const location = await getLocation(db, organizationId, id);
  return location && { archived: location.archived };
}

/** locationState of several locations in one read: the ids the organization has, each with its archive state. */
export async function locationStates(db: Db, organizationId: string, ids: readonly string[]): Promise<Map<string, { readonly archived: boolean }>> {
  const found = await getLocations(db, organizationId, ids);
  return new Map([...found].map(([id, location]) => [id, { archived: location.archived }]));
}

/** The locations of these ids that exist in the organization. */
export const getLocations = (db: Db, organizationId: string, ids: readonly string[]): Promise<Map<string, LocationRecord>> =>
  getByIds(db, ids, (id) => locationKeys.location(organizationId, id), locationFromItem);

/** Writes a location as it is, with its search index (seed and fixtures; the API writes through saveLocation). */
export async function putLocation(db: Db, l: Location): Promise<void> {
  await commit(db, [{ label: LOCATION_LABEL, op: { Put: { Item: locationToItem(l) } } }, ...searchUpkeep(l.organizationId, l.id, undefined, searchState(l))]);
}

/**
 * Writes a location's search words (puts only, so repeating it changes nothing): makes
 * locations written before the search index existed (a kept local table) findable by `q`.
 */
export async function indexLocation(db: Db, l: Pick<Location, 'id' | 'organizationId' | 'name' | 'address' | 'archived'>): Promise<void> {
  const { scope, words } = searchState(l);
  const items = searchIndexItems(l.organizationId, scope, l.id, [], words);
  if (items.length > 0) await commit(db, items);
}

/** A condition other areas' transactions carry: the location exists in the organization. */
export const locationExistsCheck = (organizationId: string, id: string): TxItem => ({
  label: LOCATION_LABEL,
  op: { ConditionCheck: { Key: locationKeys.location(organizationId, id), ConditionExpression: 'attribute_exists(PK)' } },
});

/** A condition other areas' transactions carry: the location exists in the organization and is not archived (an item without `archived` is active). */
export const activeLocationCheck = (organizationId: string, id: string): TxItem => ({
  label: LOCATION_LABEL,
  op: {
    ConditionCheck: {
      Key: locationKeys.location(organizationId, id),
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(archived) OR archived = :no)',
      ExpressionAttributeValues: { ':no': false },
    },
  },
});

/**
 * Stages a location change: the location (create: not there yet; change: still at the version
 * it was read at), its search index (moved between the active and archived scopes when that
 * changes), contact existence checks and the QR secret. A location or QR secret that moved
 * since it was read: the use case runs again (and answers 412 when If-Match no longer holds);
 * a contact that is gone: 422 at the body field that named it.
 */
export function saveLocation(unit: UnitOfWork, change: LocationChange): void {
  const { before, after } = change;
  const org = after.organizationId;
  const checks = change.contactChecks ?? [];
  unit.stage({
    items: [
      putLocationItem(after, before?.version),
      ...searchUpkeep(org, after.id, before && searchState(before), searchState(after)),
      ...checks.map(({ contactId, pointer }) => ({
        label: contactCheckLabel(pointer),
        op: { ConditionCheck: { Key: contactKeys.contact(org, contactId), ConditionExpression: 'attribute_exists(PK)' } },
      })),
      ...(change.qr ? [putQrSecret(org, after.id, change.qr.next, change.qr.previousReference)] : []),
    ],
    audit: change.audit,
    explain: (error: TransactionCancelledError) => {
      const moved = movedOn(LOCATION_LABEL, QR_LABEL)(error);
      if (moved) return moved;
      const contact = checks.find((c) => error.failed(contactCheckLabel(c.pointer)));
      return contact ? fieldError(contact.pointer, `Contact ${contact.contactId} does not exist in this organization.`) : undefined;
    },
  });
}

function putLocationItem(l: LocationRecord, expectedVersion: number | undefined): TxItem {
  const Item = locationToItem(l);
  if (expectedVersion === undefined) return { label: LOCATION_LABEL, op: { Put: { Item, ConditionExpression: 'attribute_not_exists(PK)' } } };
  // Items written before versions (the seed) have no `version`: they are version 1.
  const condition = expectedVersion === 1 ? '(version = :expected OR attribute_not_exists(version))' : 'version = :expected';
  return { label: LOCATION_LABEL, op: { Put: { Item, ConditionExpression: `attribute_exists(PK) AND ${condition}`, ExpressionAttributeValues: { ':expected': expectedVersion } } } };
}

/** The QR secret item; the condition makes concurrent rotations commit one after the other. */
function putQrSecret(org: string, locationId: string, qr: QrSecret, previousReference: string | null): TxItem {
  return {
    label: QR_LABEL,
    op: {
      Put: {
        Item: qrSecretToItem(org, locationId, qr),
        ...(previousReference === null
          ? { ConditionExpression: 'attribute_not_exists(PK)' }
          : { ConditionExpression: 'publicReference = :previous', ExpressionAttributeValues: { ':previous': previousReference } }),
      },
    },
  };
}

/** The current QR secret's public reference of a location, or null before the first rotation. */
export async function getQrReference(db: Db, organizationId: string, locationId: string): Promise<string | null> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: locationKeys.qrSecret(organizationId, locationId), ConsistentRead: true, ProjectionExpression: 'publicReference' }));
  const reference: unknown = out.Item?.publicReference;
  return typeof reference === 'string' ? reference : null;
}

/** One page of an organization's locations: by name, or with `q` (name and address). */
export const listLocations = (db: Db, organizationId: string, query: ListQuery): Promise<Page<LocationRecord>> =>
  listPage(db, organizationId, query, {
    partition: (archived) => (archived ? locationKeys.archivedByOrganization(organizationId) : locationKeys.byOrganization(organizationId)).GSI1PK,
    searchScope: locationSearchScope,
    load: (ids) => getLocations(db, organizationId, ids),
    fromItem: locationFromItem,
  });

/** The locations store port on DynamoDB, staging writes in `unit`. */
export const locationsStore = (db: Db, unit: UnitOfWork): LocationStore => ({
  getLocation: (org, id) => getLocation(db, org, id),
  getContact: (org, id) => getContact(db, org, id),
  getContacts: (org, ids) => getContacts(db, org, ids),
  getQrReference: (org, id) => getQrReference(db, org, id),
  saveLocation: (change) => saveLocation(unit, change),
  saveContact: (change) => saveContact(unit, change),
});
