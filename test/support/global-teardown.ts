import type { DynamoDbLocal } from '../../services/local/dynamodb';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __DYNAMODB_LOCAL__?: DynamoDbLocal }).__DYNAMODB_LOCAL__?.stop();
}
