import { startDynamoDbLocal } from '../../services/local/dynamodb';
import { LOCAL_DOCUMENTS_BUCKET, LOCAL_REPORTS_BUCKET, startS3Local } from '../../services/local/s3';
import { BUCKET_ENV, S3_ENDPOINT_ENV } from '../../services/shared/aws/s3';

/** Starts DynamoDB Local and the embedded S3 server once per jest run; workers inherit their endpoints. */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const [ddb, s3] = await Promise.all([startDynamoDbLocal({ port: 0 }), startS3Local({ port: 0, buckets: [LOCAL_DOCUMENTS_BUCKET, LOCAL_REPORTS_BUCKET] })]);
  process.env.DYNAMODB_ENDPOINT = ddb.endpoint;
  process.env[S3_ENDPOINT_ENV] = s3.endpoint;
  process.env[BUCKET_ENV.documents] = LOCAL_DOCUMENTS_BUCKET;
  process.env[BUCKET_ENV.reports] = LOCAL_REPORTS_BUCKET;
  const state = globalThis as { __DYNAMODB_LOCAL__?: typeof ddb; __S3_LOCAL__?: typeof s3 };
  state.__DYNAMODB_LOCAL__ = ddb;
  state.__S3_LOCAL__ = s3;
  // jest sets a failing verdict's exit code itself, after this listener has run; a non-zero
  // code seen here was set by something else, and the log should say so.
  process.once('exit', (code) => {
    if (code !== 0) process.stderr.write(`jest main process: exiting with code ${code}, set outside jest's test verdict\n`);
  });
  process.stdout.write(`\nDynamoDB Local ready at ${ddb.endpoint}, S3 (s3rver) at ${s3.endpoint} in ${Date.now() - started} ms\n`);
}
