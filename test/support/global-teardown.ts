import type { DynamoDbLocal } from '../../services/local/dynamodb';
import type { S3Local } from '../../services/local/s3';

/**
 * Stops what global-setup started. A failure to stop is reported, never thrown: the tests
 * have already passed or failed, and their verdict is what the exit code must say.
 */
export default async function globalTeardown(): Promise<void> {
  const state = globalThis as { __DYNAMODB_LOCAL__?: DynamoDbLocal; __S3_LOCAL__?: S3Local };
  const results = await Promise.allSettled([state.__DYNAMODB_LOCAL__?.stop(), state.__S3_LOCAL__?.stop()]);
  results.forEach((result, i) => {
    if (result.status === 'rejected') process.stderr.write(`global teardown: stopping ${i === 0 ? 'DynamoDB Local' : 'the S3 server'} failed: ${String(result.reason)}\n`);
  });
}
