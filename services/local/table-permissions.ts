import { AsyncLocalStorage } from 'node:async_hooks';
import { FUNCTIONS } from '../registry';
import type { Db } from '../shared/ddb/client';
import type { TableAction } from '../shared/permissions';

/**
 * IAM, locally: in AWS each function's role allows exactly the DynamoDB actions of its
 * registry row (`permissions.table`, lib/permissions.ts), and a call outside them is
 * AccessDenied. Locally every function shares one process and one client, so nothing would
 * notice a store that starts using an action its function was never granted until it ran in
 * AWS. This guard makes the local gateway (npm start, the API tests) refuse such a call the
 * same way: each handler (and each in-process worker) runs as its function, and a middleware on
 * the shared client checks every command against that function's row.
 */
export class LocalAccessDeniedError extends Error {
  constructor(functionName: string, missing: readonly string[]) {
    super(`Local IAM: the ${functionName} function is not granted dynamodb:${missing.join(', dynamodb:')} (add it to its permissions.table in the registry, as its role in AWS would need).`);
    this.name = 'AccessDeniedException';
  }
}

interface Running {
  readonly name: string;
  readonly actions: ReadonlySet<string>;
}

const running = new AsyncLocalStorage<Running>();
const byName = new Map(FUNCTIONS.map((f) => [f.name, new Set<string>(f.permissions.table)]));

/** Runs `work` as the registry function `name`: its DynamoDB calls must be within that function's grants. */
export function runAsFunction<T>(name: string, work: () => Promise<T>): Promise<T> {
  const actions = byName.get(name);
  if (!actions) throw new Error(`Local IAM: no function named ${name} in the registry.`);
  return running.run({ name, actions }, work);
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

const guarded = new WeakSet<object>();

/** Installs the guard on `db`'s client (once). Calls made outside runAsFunction (the seed, the CLI, tests' own reads) are not checked. */
export function guardTablePermissions(db: Db): void {
  const client = db.doc;
  if (guarded.has(client)) return;
  guarded.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const current = running.getStore();
      if (current) {
        const commandName = String((context as { commandName?: string }).commandName ?? '');
        const missing = tableActionsOf(commandName, args.input as Record<string, unknown>).filter((a) => !current.actions.has(a as TableAction));
        if (missing.length > 0) throw new LocalAccessDeniedError(current.name, missing);
      }
      return next(args);
    },
    { step: 'initialize', name: 'wfmLocalTablePermissions', priority: 'high', override: true },
  );
}
