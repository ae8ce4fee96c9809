import type { DynamoDbLocal } from '../../services/local/dynamodb';
import type { S3Local } from '../../services/local/s3';

export default async function globalTeardown(): Promise<void> {
  const state = globalThis as { __DYNAMODB_LOCAL__?: DynamoDbLocal; __S3_LOCAL__?: S3Local };
  await Promise.all([state.__DYNAMODB_LOCAL__?.stop(), state.__S3_LOCAL__?.stop()]);
}
