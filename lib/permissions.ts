import type { Area } from '../services/routes';

/**
 * What each Lambda function may do, as data: review and adjust the grants here, nowhere else.
 * The api stack turns each row into IAM statements (AreaFunction.bindTable and friends);
 * test/infra/iam.test.ts checks that the synthesized policies hold exactly these actions.
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

/** The Lambda functions of the api stack: one per area, the authorizer, and the evidence channel. */
export type FunctionName = Area | 'authorizer' | 'evidence-ingest' | 'reports-worker';

export interface FunctionPermissions {
  /** DynamoDB actions on the table and its indexes. */
  readonly table: readonly TableAction[];
  /** `secretsmanager:GetSecretValue` on the cursor-sealing secret (CURSOR_SECRET_ARN). */
  readonly cursorSecret: boolean;
  /** `kms:GenerateDataKey` on the restricted-data key (RESTRICTED_DATA_KEY_ID). */
  readonly restrictedDataKey: boolean;
  /** Also `kms:Decrypt` on that key: only the bank-account resource ever reads sealed data back. */
  readonly restrictedDataDecrypt?: boolean;
}

const READ_WRITE: readonly TableAction[] = ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'];

export const FUNCTION_PERMISSIONS: Readonly<Record<FunctionName, FunctionPermissions>> = {
  // Loads one key record by key-id.
  authorizer: { table: ['GetItem'], cursorSecret: false, restrictedDataKey: false },
  'work-events': { table: ['GetItem', 'Query'], cursorSecret: true, restrictedDataKey: false },
  audit: { table: ['Query'], cursorSecret: true, restrictedDataKey: false },
  // Entries, audit, idempotency records and overlap guards in one transaction; ad-hoc
  // coordinates sealed as restricted evidence.
  timesheets: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: true },
  scim: { table: READ_WRITE, cursorSecret: false, restrictedDataKey: false },
  // Organization record and settings (updated with their audit entry in one transaction;
  // DeleteItem releases the idempotency lock of a failed PATCH /settings).
  organization: { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'], cursorSecret: false, restrictedDataKey: false },
  // Employees with their guards, search index and bank account (sealed; decrypted only by GET bank-account).
  employees: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: true, restrictedDataDecrypt: true },
  // Locations, reusable contacts, QR secrets (hashed) and their search index.
  locations: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false },
  // Materials, location stock links and the append-only adjustment ledger.
  materials: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false },
  // Report jobs and manifests: requests a job (queue), reads manifests, streams files (bucket).
  reports: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'DeleteItem', 'ConditionCheckItem'], cursorSecret: true, restrictedDataKey: false },
  // Generates exports: reads entries, opens and publishes manifests, writes files and the payroll outbox.
  'reports-worker': { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem', 'BatchWriteItem'], cursorSecret: false, restrictedDataKey: false },
  // Appends evidence and projects scanned entries; never deletes.
  'evidence-ingest': {
    table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem'],
    cursorSecret: false,
    restrictedDataKey: true,
  },
};

export const FUNCTION_NAMES = Object.keys(FUNCTION_PERMISSIONS) as FunctionName[];

/** `dynamodb:GetItem` */
export const dynamoDbAction = (action: TableAction): string => `dynamodb:${action}`;
