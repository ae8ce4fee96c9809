import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { auditItem, type AuditEntry } from '../audit/model';
import type { Db } from '../shared/ddb/client';
import { searchIndexItems, searchWords } from '../shared/ddb/search';
import { commit, TransactionCancelledError, type TxItem } from '../shared/ddb/transaction';
import { EtagMismatchError, fieldError } from '../shared/errors';
import { contactKeys, getContact, getContacts, saveContact } from './contact-store';
import type { LocationStore } from './domain';
import { getByIds, listPage, type ListQuery, type Page } from '../shared/ddb/paging';

/**
 * DynamoDB adapter of locations (docs/areas/locations-materials.md lists the access patterns):
 *   location   PK ORG#<org>#LOC#<id>   SK LOC
 *   QR secret  PK ORG#<org>#LOC#<id>   SK QR      (SHA-256 of the secret only; never listed)
 *   GSI1 ORG#<org>#LOCATIONS           / <lower name>#<id>   active locations by name
 *   GSI1 ORG#<org>#LOCATIONS#ARCHIVED  / <lower name>#<id>   archived locations by name
 *   GSI1 QRREF#<public reference>      / QR                  the scan channel's lookup of a QR code
 *   search index scopes `location` (active) and `location_archived` (services/shared/ddb/search.ts)
 * Time entries and work events refer to locations by id, so a location is never deleted:
 * archiving moves it to the archived partitions and keeps the item readable by id.
 */

/** A registered location of an organization (work site). */
export interface Location {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  /** Public address of the site (organization data, not a typed mobile address). */
  readonly address?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Increases with every change; the ETag carries it. Absent on items written before versions: 1. */
  readonly version?: number;
  readonly archived?: boolean;
  readonly archivedAt?: string | null;
  /** Reusable contacts linked to the location, in link order. */
  readonly contactIds?: readonly string[];
  /** When the QR secret was last rotated. */
  readonly qrRotatedAt?: string | null;
}

/** A location with every optional attribute resolved: what the locations area works with. */
export interface LocationRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  readonly address: string | null;
  readonly archived: boolean;
  readonly archivedAt: string | null;
  readonly contactIds: readonly string[];
  readonly qrRotatedAt: string | null;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const locationKeys = {
  location: (organizationId: string, id: string) => ({ PK: `ORG#${organizationId}#LOC#${id}`, SK: 'LOC' }),
  /** GSI1: the locations of an organization by name. */
  byOrganization: (organizationId: string, name?: string, id?: string) => ({
    GSI1PK: `ORG#${organizationId}#LOCATIONS`,
    ...(name !== undefined && id ? { GSI1SK: `${name.toLowerCase()}#${id}` } : {}),
  }),
  /** GSI1: the archived locations of an organization by name. */
  archivedByOrganization: (organizationId: string, name?: string, id?: string) => ({
    GSI1PK: `ORG#${organizationId}#LOCATIONS#ARCHIVED`,
    ...(name !== undefined && id ? { GSI1SK: `${name.toLowerCase()}#${id}` } : {}),
  }),
  qrSecret: (organizationId: string, id: string) => ({ PK: `ORG#${organizationId}#LOC#${id}`, SK: 'QR' }),
  /** GSI1: a QR code's public reference -> its location (the scan channel resolves codes with it). */
  byQrReference: (publicReference: string) => ({ GSI1PK: `QRREF#${publicReference}`, GSI1SK: 'QR' }),
};

export const LOCATION_ENTITY = 'Location';
export const QR_SECRET_ENTITY = 'LocationQrSecret';

/** Search scopes: active and archived locations are found separately. */
export const locationSearchScope = (archived: boolean): string => (archived ? 'location_archived' : 'location');

/** The words `q` finds a location by: its name and address. */
export const locationSearchWords = (l: Pick<Location, 'name' | 'address'>): string[] => searchWords([l.name, l.address]);

export const locationToItem = (l: Location): Record<string, unknown> => ({
  ...locationKeys.location(l.organizationId, l.id),
  ...(l.archived ? locationKeys.archivedByOrganization(l.organizationId, l.name, l.id) : locationKeys.byOrganization(l.organizationId, l.name, l.id)),
  itemType: LOCATION_ENTITY,
  ...l,
});

export function locationFromItem(item: Record<string, unknown>): Location {
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g1s, itemType: _itemType, ...rest } = item;
  return rest as unknown as Location;
}

/** Resolves the attributes that items written before versions (the seed, fixtures) lack. */
export const locationRecord = (l: Location): LocationRecord => ({
  id: l.id,
  organizationId: l.organizationId,
  name: l.name,
  address: l.address ?? null,
  archived: l.archived ?? false,
  archivedAt: l.archivedAt ?? null,
  contactIds: [...(l.contactIds ?? [])],
  qrRotatedAt: l.qrRotatedAt ?? null,
  version: l.version ?? 1,
  createdAt: l.createdAt,
  updatedAt: l.updatedAt,
});

/** The stored shape of a record: a null address is left out, as items without one always were. */
const storedLocation = (l: LocationRecord): Location => {
  const { address, ...rest } = l;
  return { ...rest, ...(address !== null ? { address } : {}) };
};

export async function getLocation(db: Db, organizationId: string, id: string): Promise<Location | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: locationKeys.location(organizationId, id), ConsistentRead: true }));
  return out.Item ? locationFromItem(out.Item) : undefined;
}

/** Writes a location as it is, with its search index (seed and fixtures; the API writes through saveLocation). */
export async function putLocation(db: Db, l: Location): Promise<void> {
  await commit(db, [
    { label: LOCATION_LABEL, op: { Put: { Item: locationToItem(l) } } },
    ...searchIndexItems(l.organizationId, locationSearchScope(l.archived ?? false), l.id, [], locationSearchWords(l)),
  ]);
}

/**
 * Writes a location's search words (puts only, so repeating it changes nothing): makes
 * locations written before the search index existed (a kept local table) findable by `q`.
 */
export async function indexLocation(db: Db, l: Location): Promise<void> {
  const items = searchIndexItems(l.organizationId, locationSearchScope(l.archived ?? false), l.id, [], locationSearchWords(l));
  if (items.length > 0) await commit(db, items);
}

export const LOCATION_LABEL = 'location';

export const locationExistsCheck = (organizationId: string, id: string): TxItem => ({
  label: LOCATION_LABEL,
  op: { ConditionCheck: { Key: locationKeys.location(organizationId, id), ConditionExpression: 'attribute_exists(PK)' } },
});

/** A new QR secret of a location: only its hash is ever stored. */
export interface QrSecret {
  readonly publicReference: string;
  /** Hex SHA-256 of the secret. */
  readonly secretHash: string;
  readonly rotatedAt: string;
}

/** A location write: the location before (absent for a create) and after, with its audit entry. */
export interface LocationChange {
  readonly before?: LocationRecord;
  readonly after: LocationRecord;
  readonly audit: AuditEntry;
  /** Contacts that must exist in the organization at commit time, with the body field that named each. */
  readonly contactChecks?: readonly { readonly contactId: string; readonly pointer: string }[];
  /** A rotation: the new secret replaces `previousReference`'s (null: the first one). */
  readonly qr?: { readonly next: QrSecret; readonly previousReference: string | null };
}

const contactCheckLabel = (pointer: string) => `contact:${pointer}`;

/**
 * Commits a location change in ONE transaction: the location (create: not there yet; change:
 * still at the version it was read at, so of two changes from one ETag exactly one wins), its
 * search index (moved between the active and archived scopes when that changes), contact
 * existence checks, the QR secret, the audit entry and the caller's items (idempotency).
 */
export async function saveLocation(db: Db, change: LocationChange, extra: readonly TxItem[]): Promise<void> {
  const { before, after } = change;
  const org = after.organizationId;
  const items: TxItem[] = [
    putLocationItem(after, before?.version),
    ...searchMoves(org, after.id, before, after),
    ...(change.contactChecks ?? []).map(({ contactId, pointer }) => ({
      label: contactCheckLabel(pointer),
      op: { ConditionCheck: { Key: contactKeys.contact(org, contactId), ConditionExpression: 'attribute_exists(PK)' } },
    })),
    ...(change.qr ? [putQrSecret(org, after.id, change.qr.next, change.qr.previousReference)] : []),
    auditItem(change.audit),
    ...extra,
  ];
  try {
    await commit(db, items);
  } catch (error) {
    if (!(error instanceof TransactionCancelledError)) throw error;
    if (error.failed(LOCATION_LABEL) || error.failed(QR_LABEL)) throw new EtagMismatchError();
    const contact = (change.contactChecks ?? []).find((c) => error.failed(contactCheckLabel(c.pointer)));
    if (contact) throw fieldError(contact.pointer, `Contact ${contact.contactId} does not exist in this organization.`);
    throw error;
  }
}

/** Commits items that stand alone (the idempotency record of a write that changed nothing). */
export async function commitItems(db: Db, items: readonly TxItem[]): Promise<void> {
  if (items.length > 0) await commit(db, items);
}

function putLocationItem(l: LocationRecord, expectedVersion: number | undefined): TxItem {
  if (expectedVersion === undefined) {
    return { label: LOCATION_LABEL, op: { Put: { Item: locationToItem(storedLocation(l)), ConditionExpression: 'attribute_not_exists(PK)' } } };
  }
  // Items written before versions (the seed) have no `version`: they are version 1.
  const condition = expectedVersion === 1 ? '(version = :expected OR attribute_not_exists(version))' : 'version = :expected';
  return {
    label: LOCATION_LABEL,
    op: { Put: { Item: locationToItem(storedLocation(l)), ConditionExpression: `attribute_exists(PK) AND ${condition}`, ExpressionAttributeValues: { ':expected': expectedVersion } } },
  };
}

function searchMoves(org: string, id: string, before: LocationRecord | undefined, after: LocationRecord): TxItem[] {
  const beforeWords = before ? locationSearchWords(storedLocation(before)) : [];
  const afterWords = locationSearchWords(storedLocation(after));
  const afterScope = locationSearchScope(after.archived);
  if (!before || before.archived === after.archived) return searchIndexItems(org, afterScope, id, beforeWords, afterWords);
  return [...searchIndexItems(org, locationSearchScope(before.archived), id, beforeWords, []), ...searchIndexItems(org, afterScope, id, [], afterWords)];
}

const QR_LABEL = 'qr';

/** The QR secret item; the condition makes concurrent rotations commit one after the other. */
function putQrSecret(org: string, locationId: string, qr: QrSecret, previousReference: string | null): TxItem {
  return {
    label: QR_LABEL,
    op: {
      Put: {
        Item: { ...locationKeys.qrSecret(org, locationId), ...locationKeys.byQrReference(qr.publicReference), itemType: QR_SECRET_ENTITY, organizationId: org, locationId, ...qr },
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
  return (out.Item?.publicReference as string | undefined) ?? null;
}

/** One page of an organization's locations: by name, or with `q` (name and address). */
export const listLocations = (db: Db, organizationId: string, query: ListQuery): Promise<Page<LocationRecord>> =>
  listPage(db, organizationId, query, {
    partition: (archived) => (archived ? locationKeys.archivedByOrganization(organizationId) : locationKeys.byOrganization(organizationId)).GSI1PK,
    searchScope: locationSearchScope,
    load: (ids) => getLocations(db, organizationId, ids),
    fromItem: (item) => locationRecord(locationFromItem(item)),
  });

/** The locations of these ids that exist in the organization. */
export const getLocations = (db: Db, organizationId: string, ids: readonly string[]): Promise<Map<string, LocationRecord>> =>
  getByIds(db, ids, (id) => locationKeys.location(organizationId, id), (item) => locationRecord(locationFromItem(item)));

/** The DynamoDB adapter of the locations use cases' store port. */
export const dynamoLocationStore = (db: Db): LocationStore => ({
  getLocation: async (org, id) => {
    const location = await getLocation(db, org, id);
    return location ? locationRecord(location) : undefined;
  },
  getContact: (org, id) => getContact(db, org, id),
  getContacts: (org, ids) => getContacts(db, org, ids),
  getQrReference: (org, id) => getQrReference(db, org, id),
  saveLocation: (change, extra) => saveLocation(db, change, extra),
  saveContact: (change, extra) => saveContact(db, change, extra),
  commitItems: (items) => commitItems(db, items),
});
