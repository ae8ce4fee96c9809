import { AsyncLocalStorage } from 'node:async_hooks';
import type { S3Client } from '@aws-sdk/client-s3';
import { FUNCTIONS } from '../registry';
import type { Db } from '../shared/ddb/client';
import type { SecretStore } from '../shared/aws/secrets';
import type { FunctionPermissions, JobQueueName, ObjectAction, TableAction } from '../shared/permissions';

/**
 * IAM, locally: in AWS each function's role allows exactly the DynamoDB actions and the bucket
 * object actions of its registry row (`permissions.table`, `documentsBucket`, `reportsBucket`;
 * lib/constructs/area-function.ts binds them), and a call outside them is AccessDenied. Locally
 * every function shares one process and one client per service, so nothing would notice a
 * store that starts using an action its function was never granted until it ran in AWS. These
 * guards make the local gateway (npm start, the API tests) refuse such a call the same way:
 * each handler (and each in-process worker) runs as its function; a middleware on the shared
 * DynamoDB and S3 clients checks every command against that function's row, and the local
 * secret store and job queues check theirs.
 */
export class LocalAccessDeniedError extends Error {
  constructor(functionName: string, missing: string) {
    super(`Local IAM: the ${functionName} function is not granted ${missing}, as its role in AWS would need.`);
    this.name = 'AccessDeniedException';
  }
}

interface Running {
  readonly name: string;
  readonly permissions: FunctionPermissions;
}

const running = new AsyncLocalStorage<Running>();
const byName = new Map(FUNCTIONS.map((f) => [f.name, f.permissions]));

/** Runs `work` as the registry function `name`: its calls must be within that function's grants. */
export function runAsFunction<T>(name: string, work: () => Promise<T>): Promise<T> {
  const permissions = byName.get(name);
  if (!permissions) throw new Error(`Local IAM: no function named ${name} in the registry.`);
  return running.run({ name, permissions }, work);
}

/** A client of the AWS SDK: the part the guards use. */
interface SdkClient {
  readonly middlewareStack: { add(middleware: never, options: { step: 'initialize'; name: string; priority: 'high'; override: true }): void };
}

const guardedClients = new WeakSet<object>();

/**
 * Installs `check` on a client (once): before every command a function sends through it,
 * with the command's name and input. Calls made outside runAsFunction (the seed, the CLI,
 * tests' own calls) are not checked.
 */
function guardClient(client: SdkClient, name: string, check: (current: Running, commandName: string, input: Record<string, unknown>) => void): void {
  if (guardedClients.has(client)) return;
  guardedClients.add(client);
  const middleware = (next: (args: { input: unknown }) => Promise<unknown>, context: { commandName?: string }) => async (args: { input: unknown }) => {
    const current = running.getStore();
    if (current) check(current, String(context.commandName ?? ''), args.input as Record<string, unknown>);
    return next(args);
  };
  client.middlewareStack.add(middleware as never, { step: 'initialize', name, priority: 'high', override: true });
}

/** The IAM actions a DynamoDB command needs (a transaction: the action of each of its items). */
export function tableActionsOf(commandName: string, input: Record<string, unknown>): string[] {
  const operation = commandName.replace(/Command$/, '');
  switch (operation) {
    case 'Get':
    case 'GetItem':
      return ['GetItem'];
    case 'BatchGet':
    case 'BatchGetItem':
      return ['BatchGetItem'];
    case 'Query':
      return ['Query'];
    case 'Scan':
      return ['Scan'];
    case 'Put':
    case 'PutItem':
      return ['PutItem'];
    case 'Update':
    case 'UpdateItem':
      return ['UpdateItem'];
    case 'Delete':
    case 'DeleteItem':
      return ['DeleteItem'];
    case 'BatchWrite':
    case 'BatchWriteItem':
      return ['BatchWriteItem'];
    case 'TransactGet':
    case 'TransactGetItems':
      return ['GetItem'];
    case 'TransactWrite':
    case 'TransactWriteItems': {
      const items = (input.TransactItems ?? []) as Record<string, unknown>[];
      const needed = items.map((item) => (item.Put ? 'PutItem' : item.Update ? 'UpdateItem' : item.Delete ? 'DeleteItem' : 'ConditionCheckItem'));
      return [...new Set(needed)];
    }
    default:
      // Table management (CreateTable, DescribeTable...) is the runtime's own, never a function's.
      return [];
  }
}

/** Installs the guard on `db`'s client (once): a function's command needs the table actions of its row. */
export function guardTablePermissions(db: Db): void {
  guardClient(db.doc as unknown as SdkClient, 'wfmLocalTablePermissions', (current, commandName, input) => {
    const missing = tableActionsOf(commandName, input).filter((a) => !current.permissions.table.includes(a as TableAction));
    if (missing.length > 0) throw new LocalAccessDeniedError(current.name, `dynamodb:${missing.join(', dynamodb:')} (add it to its permissions.table in the registry)`);
  });
}

/** Which row of a function's permissions grants objects of a bucket. */
export type BucketRow = 'documentsBucket' | 'reportsBucket';

/** One object an S3 command acts on, and the action IAM asks for it. */
export interface ObjectAccess {
  readonly bucket: string;
  readonly key: string;
  readonly action: ObjectAction | 's3:ListBucket';
}

/**
 * The object actions an S3 command needs (a presigned request: the action of the request it
 * signs). HeadObject is s3:GetObject in IAM; a copy reads its source and writes its target.
 */
export function objectAccessesOf(commandName: string, input: Record<string, unknown>): ObjectAccess[] {
  const bucket = String(input.Bucket ?? '');
  const key = String(input.Key ?? '');
  switch (commandName.replace(/Command$/, '')) {
    case 'GetObject':
    case 'HeadObject':
      return [{ bucket, key, action: 's3:GetObject' }];
    case 'PutObject':
    case 'CreateMultipartUpload':
    case 'UploadPart':
    case 'CompleteMultipartUpload':
      return [{ bucket, key, action: 's3:PutObject' }];
    case 'DeleteObject':
      return [{ bucket, key, action: 's3:DeleteObject' }];
    case 'CopyObject': {
      const source = decodeURIComponent(String(input.CopySource ?? '')).replace(/^\//, '');
      const slash = source.indexOf('/');
      return [
        { bucket: source.slice(0, slash), key: source.slice(slash + 1), action: 's3:GetObject' },
        { bucket, key, action: 's3:PutObject' },
      ];
    }
    case 'ListObjects':
    case 'ListObjectsV2':
      return [{ bucket, key: '', action: 's3:ListBucket' }];
    default:
      // Bucket management (CreateBucket...) is the runtime's own, never a function's.
      return [];
  }
}

/**
 * Installs the guard on an S3 client (once): a function's command must name a bucket that
 * `rowOf` knows and a key under a prefix that the function's row for it grants the action on.
 */
export function guardObjectPermissions(client: S3Client, rowOf: (bucket: string) => BucketRow | undefined): void {
  guardClient(client as unknown as SdkClient, 'wfmLocalObjectPermissions', (current, commandName, input) => {
    for (const access of objectAccessesOf(commandName, input)) {
      const row = rowOf(access.bucket);
      const grants = row ? (current.permissions[row] ?? []) : [];
      const granted = grants.some((g) => access.key.startsWith(g.prefix) && (g.actions as readonly string[]).includes(access.action));
      if (!granted) throw new LocalAccessDeniedError(current.name, `${access.action} on ${row ?? `bucket ${access.bucket}`} ${access.key || '(the bucket)'} (add it to its permissions.${row ?? 'documentsBucket or reportsBucket'} in the registry)`);
    }
  });
}

/**
 * The secret store as a function's role sees it: `get` needs `integrationSecrets: ['read']`,
 * `put` and `remove` need `'write'`, and either only on names under `integrations/` (the stack grants
 * `wfm/<env>/integrations/*` and nothing else). Calls outside runAsFunction are not checked.
 */
export function guardSecretStore(store: SecretStore): SecretStore {
  const check = (access: 'read' | 'write', name: string) => {
    const current = running.getStore();
    if (!current) return;
    const granted = (current.permissions.integrationSecrets ?? []).includes(access) && name.startsWith('integrations/');
    if (!granted) throw new LocalAccessDeniedError(current.name, `integrationSecrets ${access} on ${name.split('/')[0]}/ (add it to its permissions.integrationSecrets in the registry)`);
  };
  return {
    put: async (name, value) => {
      check('write', name);
      return store.put(name, value);
    },
    get: async (name) => {
      check('read', name);
      return store.get(name);
    },
    remove: async (name) => {
      check('write', name);
      return store.remove(name);
    },
  };
}

/** A send to a job queue as its role sees it: the function's row must list the queue in `jobQueues`. Outside runAsFunction nothing is checked. */
export function checkJobQueueSend(queue: JobQueueName): void {
  const current = running.getStore();
  if (current && !(current.permissions.jobQueues ?? []).includes(queue)) {
    throw new LocalAccessDeniedError(current.name, `sqs:SendMessage on the ${queue} queue (add it to its permissions.jobQueues in the registry)`);
  }
}
