import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { ApiEnvironment } from '../shared/config';
import { conditionalUpdate, conditionFailed, type Db } from '../shared/ddb/client';
import { collectAll, type PageProgress } from '../shared/ddb/read';

/** An issued API key. Only the hash of its secret is ever stored. */
export interface ApiKeyRecord {
  readonly keyId: string;
  readonly organizationId: string;
  readonly environment: ApiEnvironment;
  readonly label: string;
  readonly scopes: readonly string[];
  readonly secretHash: string;
  readonly createdAt: string;
  readonly revokedAt?: string;
  /** RFC 3339; the key stops working at this instant. (Not the table's TTL attribute.) */
  readonly validUntil?: string;
  /**
   * The organization's own key (its staff, tests, demos), as opposed to a key handed to a
   * third party's integration: the release gate counts only the others as external consumers.
   */
  readonly internal?: boolean;
  /** When the key was last seen by the authorizer, to within KEY_USE_INTERVAL_MS. */
  readonly lastUsedAt?: string;
  /** The route family of that use (`timesheets`, `scim`...). */
  readonly lastRoute?: string;
}

/** The authorizer writes a key's last use at most this often: never a write per request. */
export const KEY_USE_INTERVAL_MS = 5 * 60 * 1000;

const keys = {
  apiKey: (keyId: string) => ({ PK: `KEY#${keyId}`, SK: 'KEY' }),
  /** GSI1: the keys of one organization, oldest first. */
  byOrganization: (organizationId: string, createdAt: string, keyId: string) => ({
    GSI1PK: `ORG#${organizationId}#KEYS`,
    GSI1SK: `${createdAt}#${keyId}`,
  }),
};

const apiKeyItemSchema = z.object({
  keyId: z.string(),
  organizationId: z.string(),
  environment: z.enum(['TEST', 'LIVE']),
  label: z.string(),
  scopes: z.array(z.string()).default([]),
  secretHash: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().optional(),
  validUntil: z.string().optional(),
  internal: z.boolean().optional(),
  lastUsedAt: z.string().optional(),
  lastRoute: z.string().optional(),
});

/** A stored key, parsed: keys and unknown attributes are dropped. */
const fromItem = (item: Record<string, unknown>): ApiKeyRecord => apiKeyItemSchema.parse(item);

export async function putApiKey(db: Db, record: ApiKeyRecord): Promise<void> {
  await db.doc.send(
    new PutCommand({
      TableName: db.tableName,
      Item: { ...keys.apiKey(record.keyId), ...keys.byOrganization(record.organizationId, record.createdAt, record.keyId), itemType: 'ApiKey', ...record },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

export async function getApiKey(db: Db, keyId: string): Promise<ApiKeyRecord | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: keys.apiKey(keyId) }));
  return out.Item ? fromItem(out.Item) : undefined;
}

export async function listApiKeys(db: Db, organizationId: string, onPage?: PageProgress): Promise<ApiKeyRecord[]> {
  const items = await collectAll(
    db,
    {
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :org',
      ExpressionAttributeValues: { ':org': keys.byOrganization(organizationId, '', '').GSI1PK },
    },
    onPage,
  );
  return items.map(fromItem);
}

/** Revokes a key; revoking twice keeps the first revocation time. */
export async function revokeApiKey(db: Db, keyId: string, now: string): Promise<ApiKeyRecord | undefined> {
  try {
    const out = await db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.apiKey(keyId),
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes ? fromItem(out.Attributes) : undefined;
  } catch (error) {
    if (conditionFailed(error)) return undefined;
    throw error;
  }
}

/** A use recorded at or before this instant is old enough to be replaced by one at `at`. */
const dueBefore = (at: Date): string => new Date(at.getTime() - KEY_USE_INTERVAL_MS).toISOString();

/** Whether the authorizer should write this use: the last one written is older than the interval (the same rule as recordKeyUse's condition). */
export const useIsDue = (lastUsedAt: string | undefined, now: Date): boolean => lastUsedAt === undefined || Date.parse(lastUsedAt) <= Date.parse(dueBefore(now));

/**
 * Records a use of the key (time and route family), unless another request of the same key
 * recorded one within the interval: the condition keeps it to one write per key per interval
 * however many authorizer instances race.
 */
export async function recordKeyUse(db: Db, keyId: string, at: Date, route: string): Promise<boolean> {
  return conditionalUpdate(db, {
      Key: keys.apiKey(keyId),
      UpdateExpression: 'SET lastUsedAt = :at, lastRoute = :route',
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt <= :due)',
      ExpressionAttributeValues: { ':at': at.toISOString(), ':route': route, ':due': dueBefore(at) },
  });
}
