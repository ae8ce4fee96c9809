import { randomUUID } from 'node:crypto';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { createDb, type Db } from '../../services/shared/ddb/client';
import { ensureTable, localClient } from '../../services/local/dynamodb';
import { BUCKET_ENV, s3Client } from '../../services/shared/aws/s3';

/**
 * A fresh table (same spec as the stack) on the run's DynamoDB Local, for one test file, and
 * fresh documents and reports buckets on the run's S3 server. Sets TABLE_NAME and the bucket
 * variables so that handlers reached through the local gateway use them: test files run in
 * parallel workers, and the demo seed's objects have fixed keys, so a shared bucket would let
 * one file's uploads and completions meet another's.
 */
export async function createTestTable(): Promise<Db> {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT is not set: run the tests through jest (global setup starts DynamoDB Local).');
  const tableName = `test-${randomUUID()}`;
  const client = localClient(endpoint);
  await ensureTable(client, tableName);
  client.destroy();
  process.env.TABLE_NAME = tableName;
  await createTestBuckets();
  return createDb({ tableName, endpoint });
}

/** Fresh buckets for this test file (names of 3-63 lowercase characters), named in the bucket variables. */
export async function createTestBuckets(): Promise<{ documents: string; reports: string }> {
  const suffix = randomUUID().slice(0, 13);
  const buckets = { documents: `test-docs-${suffix}`, reports: `test-reports-${suffix}` };
  const s3 = await s3Client();
  for (const [purpose, bucket] of Object.entries(buckets) as [keyof typeof BUCKET_ENV, string][]) {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    process.env[BUCKET_ENV[purpose]] = bucket;
  }
  return buckets;
}
