import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { ENV, requiredEnv } from '../config';
import { ServiceUnavailableError } from '../errors';
import { traceClient } from '../observability';

/** A table and the client that reaches it: what every store function takes. */
export interface Db {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
}

export interface DbOptions {
  readonly tableName: string;
  /** DynamoDB Local's address; absent in AWS. */
  readonly endpoint?: string;
}

export function createDb({ tableName, endpoint }: DbOptions): Db {
  // Each call an X-Ray subsegment where tracing is on (in Lambda); the plain client elsewhere.
  const client = traceClient(new DynamoDBClient({
    ...(endpoint
      ? {
          endpoint,
          region: process.env.AWS_REGION ?? 'eu-central-1',
          // DynamoDB Local accepts any credentials; it runs with -sharedDb, so they need not match.
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
  }));
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  // The SDK's logger middleware builds a redacted copy of every input and output (walking the
  // whole response, e.g. 51 items of a list page) as the argument of a no-op logger's info():
  // ~8 % of the CPU of a list request (docs/performance.md). No logger is ever configured on
  // this client, so it never logged anything; our own errors are logged by the handlers.
  doc.middlewareStack.remove('loggerMiddleware');
  doc.middlewareStack.add((next) => async (args) => {
    try {
      return await next(args);
    } catch (error) {
      throw translateSdkError(error);
    }
  }, { step: 'initialize', name: 'translateSdkErrors' });
  return { doc, tableName };
}

let processDb: Db | undefined;

/** The table of this process, from TABLE_NAME and DYNAMODB_ENDPOINT, created once. */
export function defaultDb(): Db {
  processDb ??= createDb({ tableName: requiredEnv(ENV.TABLE_NAME), endpoint: process.env[ENV.DYNAMODB_ENDPOINT] || undefined });
  return processDb;
}

const UNAVAILABLE_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * A single write's ConditionExpression did not hold (by name: errors from another realm or
 * SDK copy fail `instanceof`). Transactions report theirs as TransactionCancelledError.
 */
export const conditionFailed = (error: unknown): boolean => (error as { name?: unknown } | null)?.name === 'ConditionalCheckFailedException';

/** One conditional UpdateItem: true when it applied, false when its condition did not hold. */
export async function conditionalUpdate(db: Db, update: Omit<UpdateCommandInput, 'TableName'>): Promise<boolean> {
  try {
    await db.doc.send(new UpdateCommand({ TableName: db.tableName, ...update }));
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/**
 * Storage failures that a retry can fix (throttling after the SDK's own retries, 5xx, an
 * unreachable endpoint) become ServiceUnavailableError (503). Everything else, including
 * conditional-check and transaction cancellations, is left for the stores to interpret.
 * SDK messages are kept only as `cause`, for the log.
 */
export function translateSdkError(error: unknown): unknown {
  // Duck-typed: errors made in another realm (Node's network errors under a test sandbox)
  // fail `instanceof Error` but are errors all the same.
  if (typeof error !== 'object' || error === null || typeof (error as Error).name !== 'string') return error;
  const sdkError = error as Error & { $metadata?: { httpStatusCode?: number }; code?: string };
  const meta = sdkError.$metadata;
  const code = sdkError.code;
  if (
    UNAVAILABLE_NAMES.has(sdkError.name) ||
    (meta?.httpStatusCode !== undefined && meta.httpStatusCode >= 500) ||
    (code !== undefined && NETWORK_CODES.has(code))
  ) {
    return new ServiceUnavailableError({ cause: sdkError });
  }
  return error;
}
