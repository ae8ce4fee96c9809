import { setTimeout as defaultSleep } from 'node:timers/promises';
import { TransactionConflictError } from '../errors';

/**
 * Something read for a write changed before the write committed: a version, a guard, a
 * stock link, a uniqueness holder. Stores throw it when such a read-version condition
 * fails; `retryOnConflict` runs the whole use case again from its reads. It never reaches
 * a client: after the last attempt it becomes TRANSACTION_CONFLICT (503, Retry-After).
 */
export class ConcurrentChangeError extends Error {
  constructor(what = 'Data read for this change', options?: ErrorOptions) {
    super(`${what} changed before the change committed.`, options);
    this.name = 'ConcurrentChangeError';
  }
}

export interface RetryOptions {
  /** @default 20 */
  readonly attempts?: number;
  /** Waits between attempts. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Milliseconds left for the work (e.g. the Lambda's remaining time): no attempt starts with less than 1 s left. */
  readonly remainingMs?: () => number;
}

export const DEFAULT_ATTEMPTS = 20;

/**
 * Runs `attempt` again while it fails with ConcurrentChangeError: bounded in attempts and by
 * the time left, with full-jitter backoff capped at 400 ms so that many writers of one item
 * spread out instead of colliding again, and none waits seconds.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const sleep = options.sleep ?? defaultSleep;
  for (let i = 1; ; i += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof ConcurrentChangeError)) throw error;
      const outOfTime = options.remainingMs !== undefined && options.remainingMs() < 1_000;
      if (i >= attempts || outOfTime) throw new TransactionConflictError({ cause: error });
      await sleep(jitteredBackoff(i));
    }
  }
}

/** Full jitter: a random wait in [0, min(400, 20 * 2^attempt)) ms, at least 1 ms. */
export const jitteredBackoff = (attempt: number): number => 1 + Math.floor(Math.random() * Math.min(400, 20 * 2 ** attempt));
