import { setTimeout as defaultSleep } from 'node:timers/promises';
import { TransactionCanceledException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { jitteredBackoff } from '../domain/conflict';
import { TransactionConflictError } from '../errors';
import type { Db } from './client';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type Part<K extends keyof TransactItem> = Omit<NonNullable<TransactItem[K]>, 'TableName'>;

/** A transaction action without its table: `commit` adds the table of the Db. */
export type TxOp =
  | { readonly Put: Part<'Put'> }
  | { readonly Update: Part<'Update'> }
  | { readonly Delete: Part<'Delete'> }
  | { readonly ConditionCheck: Part<'ConditionCheck'> };

/**
 * One item of a transaction, with a label that names its role (`entry`, `audit`,
 * `idempotency`, `guard`...) so that a cancellation can be explained per item.
 */
export interface TxItem {
  readonly label: string;
  readonly op: TxOp;
}

export interface CancellationReason {
  readonly label: string;
  readonly code: string;
  /** The item as it was, when the condition asked for ALL_OLD. */
  readonly item?: Record<string, unknown>;
}

/** A condition of the transaction failed: nothing was written. */
export class TransactionCancelledError extends Error {
  constructor(readonly reasons: readonly CancellationReason[], options?: ErrorOptions) {
    super(`Transaction cancelled: ${reasons.map((r) => `${r.label}=${r.code}`).join(', ')}`, options);
    this.name = 'TransactionCancelledError';
  }

  /** True when the condition of the item with this label failed. */
  failed(label: string): boolean {
    return this.reasons.some((r) => r.label === label && r.code === 'ConditionalCheckFailed');
  }

  /** The labels of the items whose condition failed (labels name roles, never values). */
  failedLabels(): string[] {
    return this.reasons.filter((r) => r.code === 'ConditionalCheckFailed').map((r) => r.label);
  }

  itemOf(label: string): Record<string, unknown> | undefined {
    return this.reasons.find((r) => r.label === label)?.item;
  }
}

export { jitteredBackoff };

export const MAX_TRANSACTION_ITEMS = 100;
const CONFLICT_ATTEMPTS = 4;

/**
 * Commits the items in ONE TransactWriteItems. Real DynamoDB cancels a transaction that
 * races another one on the same item with `TransactionConflict` (DynamoDB Local serializes
 * instead): that is retried with jittered backoff, then answered 503. A failed condition is
 * thrown as TransactionCancelledError with a reason per labelled item.
 */
export async function commit(db: Db, items: readonly TxItem[], sleep: (ms: number) => Promise<void> = defaultSleep): Promise<void> {
  if (items.length === 0 || items.length > MAX_TRANSACTION_ITEMS) {
    throw new Error(`A transaction holds 1 to ${MAX_TRANSACTION_ITEMS} items, got ${items.length}.`);
  }
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db.doc.send(new TransactWriteCommand({ TransactItems: items.map((i) => withTable(db, i.op)) }));
      return;
    } catch (error) {
      const cancelled = asCancellation(error, items);
      if (!cancelled) throw error;
      const conflictOnly = cancelled.reasons.every((r) => r.code === 'None' || r.code === 'TransactionConflict');
      if (!conflictOnly) throw cancelled;
      if (attempt >= CONFLICT_ATTEMPTS) throw new TransactionConflictError({ cause: cancelled });
      await sleep(jitteredBackoff(attempt));
    }
  }
}

/** Reads the per-item cancellation reasons of a TransactionCanceledException. */
export function asCancellation(error: unknown, items: readonly TxItem[]): TransactionCancelledError | undefined {
  if (!(error instanceof TransactionCanceledException) && (error as Error | undefined)?.name !== 'TransactionCanceledException') {
    return undefined;
  }
  const raw = (error as TransactionCanceledException).CancellationReasons ?? [];
  const reasons = items.map((item, index) => {
    const reason = raw[index] as { Code?: string; Item?: Record<string, AttributeValue> } | undefined;
    return { label: item.label, code: reason?.Code ?? 'None', ...(reason?.Item ? { item: unmarshall(reason.Item) } : {}) };
  });
  return new TransactionCancelledError(reasons, { cause: error });
}

function withTable(db: Db, op: TxOp): TransactItem {
  const [kind, body] = Object.entries(op)[0] as [keyof TransactItem, Record<string, unknown>];
  return { [kind]: { ...body, TableName: db.tableName } } as TransactItem;
}
