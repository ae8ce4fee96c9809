import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../shared/ddb/client';
import type { TxItem } from '../shared/ddb/transaction';

/** A registered location of an organization (work site). */
export interface Location {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  /** Public address of the site (organization data, not a typed mobile address). */
  readonly address?: string;
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
};

export const LOCATION_ENTITY = 'Location';

export const locationToItem = (l: Location): Record<string, unknown> => ({
  ...locationKeys.location(l.organizationId, l.id),
  ...locationKeys.byOrganization(l.organizationId, l.name, l.id),
  itemType: LOCATION_ENTITY,
  ...l,
});

export function locationFromItem(item: Record<string, unknown>): Location {
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g1s, itemType: _itemType, ...rest } = item;
  return rest as unknown as Location;
}

export async function getLocation(db: Db, organizationId: string, id: string): Promise<Location | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: locationKeys.location(organizationId, id), ConsistentRead: true }));
  return out.Item ? locationFromItem(out.Item) : undefined;
}

export async function putLocation(db: Db, l: Location): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: locationToItem(l) }));
}

export const LOCATION_LABEL = 'location';

export const locationExistsCheck = (organizationId: string, id: string): TxItem => ({
  label: LOCATION_LABEL,
  op: { ConditionCheck: { Key: locationKeys.location(organizationId, id), ConditionExpression: 'attribute_exists(PK)' } },
});
