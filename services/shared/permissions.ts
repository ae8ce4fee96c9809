/**
 * What a Lambda function may do, as data. Each function declares its row where it is
 * declared (an area's `area.ts`, or a function row of services/registry.ts); the api stack
 * turns each row into IAM statements (AreaFunction.bind*), and test/infra checks that the
 * synthesized policies hold exactly these actions.
 *
 * DynamoDB actions are granted on the table and on each of its indexes (TABLE_SPEC), never
 * `dynamodb:*`, never Scan. TransactWriteItems has no IAM action of its own: a transaction
 * needs the action of each item in it (PutItem, UpdateItem, DeleteItem, ConditionCheckItem).
 */
export type TableAction =
  | 'BatchWriteItem'
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem';

/** An S3 object action a bucket grants (documents, export files). */
export type ObjectAction = 's3:GetObject' | 's3:PutObject' | 's3:DeleteObject';

/** Object actions on the keys under one prefix of a bucket (`arn:...:s3:::<bucket>/<prefix>*`). */
export interface ObjectGrant {
  /** A key prefix ending in `/`, e.g. `uploads/`. */
  readonly prefix: string;
  readonly actions: readonly ObjectAction[];
}

export interface FunctionPermissions {
  /** DynamoDB actions on the table and its indexes. */
  readonly table: readonly TableAction[];
  /** `secretsmanager:GetSecretValue` on the cursor-sealing secret (CURSOR_SECRET_ARN). */
  readonly cursorSecret: boolean;
  /** `kms:GenerateDataKey` on the restricted-data key (RESTRICTED_DATA_KEY_ID). */
  readonly restrictedDataKey: boolean;
  /** Also `kms:Decrypt` on that key: only the bank-account resource ever reads sealed data back. */
  readonly restrictedDataDecrypt?: boolean;
  /**
   * Object actions on the documents bucket (DOCUMENTS_BUCKET), per key prefix; presigned URLs
   * act with the signer's permissions, so these bound what any URL it hands out can do.
   * @default - no access to the documents bucket
   */
  readonly documentsBucket?: readonly ObjectGrant[];
  /**
   * Object actions on the bucket of export files (REPORTS_BUCKET), per key prefix.
   * @default - no access to the export files
   */
  readonly reportsBucket?: readonly ObjectGrant[];
  /**
   * Provider credentials in the secret store (services/shared/aws/secrets.ts): `read` is
   * `secretsmanager:GetSecretValue`, `write` is `PutSecretValue`, `CreateSecret` and
   * `DeleteSecret` (credentials a change wrote but did not commit, and the ones it replaced), all only
   * on the secrets named `wfm/<env>/integrations/*` (SECRET_STORE_PREFIX).
   * @default - no access to the secret store
   */
  readonly integrationSecrets?: readonly ('read' | 'write')[];
  /**
   * The job queues the function sends messages to (`sqs:SendMessage` on each, its URL in the
   * queue's variable): the area's API, its sweeper, and a worker that queues its own retries.
   * A queue's consumer is its area's worker, wired by the stack.
   * @default - sends to no queue
   */
  readonly jobQueues?: readonly JobQueueName[];
}

/** The job queues of the stack (lib/stacks/api-stack.ts jobQueue): export generation, integration jobs. */
export type JobQueueName = 'reports' | 'integrations';

/** Everything a request/response area usually needs on the table: reads, and conditional transactions. */
export const READ_WRITE: readonly TableAction[] = ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'];
