import { randomUUID } from 'node:crypto';
import { createDb, type Db } from '../../services/shared/ddb/client';
import { ensureTable, localClient } from '../../services/local/dynamodb';

/**
 * A fresh table (same spec as the stack) on the run's DynamoDB Local, for one test file.
 * Also sets TABLE_NAME so that handlers reached through the local gateway use it.
 */
export async function createTestTable(): Promise<Db> {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT is not set: run the tests through jest (global setup starts DynamoDB Local).');
  const tableName = `test-${randomUUID()}`;
  const client = localClient(endpoint);
  await ensureTable(client, tableName);
  client.destroy();
  process.env.TABLE_NAME = tableName;
  return createDb({ tableName, endpoint });
}
