import { setTimeout as defaultSleep } from 'node:timers/promises';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { eachLimited } from '../domain/limited';
import type { Db } from './client';

type Item = Record<string, unknown>;

/** BatchWriteItem takes at most 25 requests a call. */
export const BATCH_WRITE_ITEMS = 25;
/** Calls in flight at once: enough to hide round trips, few enough not to throttle one partition at once. */
const CONCURRENCY = 4;
/** Calls per batch at most (the first and its retries of unprocessed items). */
const ATTEMPTS = 8;

export interface BatchPutOptions {
  /** @default 8 */
  readonly attempts?: number;
  /** Waits between attempts (tests pass one that does not wait). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Puts `items` (plain, unconditional puts: BatchWriteItem takes no conditions) in batches of
 * 25, a few batches in flight at once, retrying unprocessed items (throttling) with
 * exponential backoff; throws when some are still unprocessed after the last attempt. Not a
 * transaction: a caller that needs all-or-nothing makes the items count only through a later
 * commit (e.g. messages' send id).
 */
export async function batchPut(db: Db, items: readonly Item[], options: BatchPutOptions = {}): Promise<void> {
  const attempts = options.attempts ?? ATTEMPTS;
  const sleep = options.sleep ?? defaultSleep;
  const batches: Item[][] = [];
  for (let i = 0; i < items.length; i += BATCH_WRITE_ITEMS) batches.push(items.slice(i, i + BATCH_WRITE_ITEMS));
  await eachLimited(batches, CONCURRENCY, (batch) => putBatch(db, batch, attempts, sleep));
}

async function putBatch(db: Db, batch: readonly Item[], attempts: number, sleep: (ms: number) => Promise<void>): Promise<void> {
  let pending = batch.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 0; pending.length > 0; attempt += 1) {
    if (attempt >= attempts) throw new Error(`BatchWriteItem left ${pending.length} items unprocessed after ${attempts} attempts.`);
    if (attempt > 0) await sleep(Math.min(1_000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2));
    const out = await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: pending } }));
    pending = (out.UnprocessedItems?.[db.tableName] ?? []).flatMap((r) => (r.PutRequest?.Item ? [{ PutRequest: { Item: r.PutRequest.Item } }] : []));
  }
}
