import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiEnvironment } from '../shared/config';
import type { Db } from '../shared/ddb/client';
import { collectAll } from '../shared/ddb/read';

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
}

const keys = {
  apiKey: (keyId: string) => ({ PK: `KEY#${keyId}`, SK: 'KEY' }),
  /** GSI1: the keys of one organization, oldest first. */
  byOrganization: (organizationId: string, createdAt: string, keyId: string) => ({
    GSI1PK: `ORG#${organizationId}#KEYS`,
    GSI1SK: `${createdAt}#${keyId}`,
  }),
};

const fromItem = (item: Record<string, unknown>): ApiKeyRecord => ({
  keyId: item.keyId as string,
  organizationId: item.organizationId as string,
  environment: item.environment as ApiEnvironment,
  label: item.label as string,
  scopes: (item.scopes as string[] | undefined) ?? [],
  secretHash: item.secretHash as string,
  createdAt: item.createdAt as string,
  ...(item.revokedAt ? { revokedAt: item.revokedAt as string } : {}),
  ...(item.validUntil ? { validUntil: item.validUntil as string } : {}),
});

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

export async function listApiKeys(db: Db, organizationId: string): Promise<ApiKeyRecord[]> {
  const items = await collectAll(db, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :org',
    ExpressionAttributeValues: { ':org': keys.byOrganization(organizationId, '', '').GSI1PK },
  });
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
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}
