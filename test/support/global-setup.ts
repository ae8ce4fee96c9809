import { startDynamoDbLocal } from '../../services/local/dynamodb';

/** Starts DynamoDB Local once per jest run; workers inherit its endpoint. */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const ddb = await startDynamoDbLocal({ port: 0 });
  process.env.DYNAMODB_ENDPOINT = ddb.endpoint;
  (globalThis as { __DYNAMODB_LOCAL__?: typeof ddb }).__DYNAMODB_LOCAL__ = ddb;
  process.stdout.write(`\nDynamoDB Local ready at ${ddb.endpoint} in ${Date.now() - started} ms\n`);
}
