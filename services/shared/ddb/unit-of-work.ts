import { auditItem, type AuditEntry } from '../../audit/model';
import { retryOnConflict, type RetryOptions } from '../domain/conflict';
import { logger } from '../logger';
import type { Db } from './client';
import { IDEMPOTENCY_LABEL, type ReadAlong } from './idempotency';
import { commit, TransactionCancelledError, type TxItem } from './transaction';

/**
 * One change a store stages: its items, the audit entry that says what changed (required:
 * every change of business data is audited; `auditedBy` names where a change without its
 * own entry is audited, e.g. a stats item raised with an entry's revision), and how a failed
 * condition of these items reads in the contract's terms.
 */
export interface StagedChange {
  readonly items: readonly TxItem[];
  readonly audit: AuditEntry | readonly AuditEntry[] | { readonly auditedBy: string };
  /**
   * Explains a cancellation caused by these items: a domain error (412 ETAG_MISMATCH, 409
   * uniqueness...), or ConcurrentChangeError for a read that went stale (the use case runs
   * again). undefined: not caused by these items.
   */
  readonly explain?: (error: TransactionCancelledError) => Error | undefined;
}

/**
 * The commit port of one request (or one unit of background work). Stores stage the changes
 * a use case decides; the caller commits them once, with the audit entries and the
 * idempotency record of the response, in ONE TransactWriteItems. A use case can therefore
 * neither forget the audit entry nor the idempotency record, and a no-change outcome still
 * commits the record alone.
 */
export interface UnitOfWork {
  stage(change: StagedChange): void;
  /** Runs after a successful commit (e.g. a queue message); never for a replay. */
  afterCommit(effect: () => Promise<void>): void;
  /**
   * Undoes, when this unit surely did not commit, what a use case did outside the table before
   * the commit (e.g. credentials written to the secret store first): the operation threw, or
   * the transaction was refused. Not after an unclear failure (a timeout may have committed),
   * where the effect's target is left as it is. Best effort: a failing effect is logged, never
   * thrown over the request's own outcome.
   */
  onAbort(effect: () => Promise<void>): void;
  /**
   * The request's idempotency record, when the route commits it without a lock: a store adds
   * `key` to its first BatchGetItem and hands the item to `settle` before deciding anything
   * (a replay then answers there). Stores that do not read it lose nothing but the saved call:
   * the record's condition in the commit still decides.
   */
  readonly readAlong?: ReadAlong;
}

/** A UnitOfWork on DynamoDB. `commit` may be called once. */
export class TransactionUnit implements UnitOfWork {
  readonly #changes: StagedChange[] = [];
  readonly #effects: (() => Promise<void>)[] = [];
  readonly #aborts: (() => Promise<void>)[] = [];
  #committed = false;
  /** 'refused': the transaction was cancelled, so nothing of it was written. */
  #outcome: 'open' | 'committed' | 'refused' | 'unclear' = 'open';

  constructor(
    private readonly db: Db,
    readonly readAlong?: ReadAlong,
  ) {}

  stage(change: StagedChange): void {
    if (this.#committed) throw new Error('This unit of work has already committed; stage changes before the commit.');
    this.#changes.push(change);
  }

  afterCommit(effect: () => Promise<void>): void {
    this.#effects.push(effect);
  }

  onAbort(effect: () => Promise<void>): void {
    this.#aborts.push(effect);
  }

  /**
   * Runs the abort effects once when nothing of this unit was written: the commit was never
   * reached or was refused. Called by whoever runs the unit, on any failure of the attempt.
   */
  async abandon(): Promise<void> {
    const aborts = this.#aborts.splice(0);
    if (aborts.length === 0 || this.#outcome === 'committed') return;
    if (this.#outcome === 'unclear') {
      logger.warn('A unit of work failed in its commit with an unclear outcome; its abort effects are skipped', { effects: aborts.length });
      return;
    }
    for (const effect of aborts) {
      try {
        await effect();
      } catch (error) {
        logger.error('An abort effect of a unit of work failed', { error: error as Error });
      }
    }
  }

  /**
   * One attempt on this unit: runs `work`, then commits what it staged with the items `extra`
   * derives from its result (an idempotency record); on any failure the abort effects run
   * (abandon) before the error goes on. What inUnitOfWork and the area handler both do.
   */
  async attempt<T>(work: (unit: UnitOfWork) => Promise<T>, extra?: (result: T) => Promise<readonly TxItem[]>): Promise<T> {
    try {
      const result = await work(this);
      await this.commit(extra ? await extra(result) : []);
      return result;
    } catch (error) {
      await this.abandon();
      throw error;
    }
  }

  /** True when a change was staged. */
  get hasChanges(): boolean {
    return this.#changes.length > 0;
  }

  /**
   * Commits the staged changes, their audit entries and `extra` (the idempotency record) in
   * one transaction; nothing to commit is no call at all. A failed condition is explained by
   * the change that owns the item; the idempotency record's own is left to the caller.
   */
  async commit(extra: readonly TxItem[] = []): Promise<void> {
    if (this.#committed) throw new Error('This unit of work has already committed.');
    this.#committed = true;
    const items = [...this.#changes.flatMap((c) => [...c.items, ...auditItems(c.audit)]), ...extra];
    if (items.length > 0) {
      try {
        await commit(this.db, items);
      } catch (error) {
        this.#outcome = error instanceof TransactionCancelledError ? 'refused' : 'unclear';
        throw this.#explain(error);
      }
    }
    this.#outcome = 'committed';
    for (const effect of this.#effects) await effect();
  }

  #explain(error: unknown): unknown {
    if (!(error instanceof TransactionCancelledError) || error.failed(IDEMPOTENCY_LABEL)) return error;
    for (const change of this.#changes) {
      const explained = change.explain?.(error);
      if (explained) return explained;
    }
    logger.error('A transaction failed a condition no staged change explains', { failedItems: error.failedLabels() });
    return error;
  }
}

const auditItems = (audit: StagedChange['audit']): TxItem[] => {
  if ('auditedBy' in audit) return [];
  return (Array.isArray(audit) ? audit : [audit as AuditEntry]).map(auditItem);
};

/** A unit for read operations: staging a change there is a programming error. */
export const READ_ONLY_UNIT: UnitOfWork = {
  stage: () => {
    throw new Error('A read operation staged a change: declare the route as a write (POST, PUT, PATCH or DELETE).');
  },
  afterCommit: () => {
    throw new Error('A read operation registered an after-commit effect.');
  },
  onAbort: () => {
    throw new Error('A read operation registered an abort effect.');
  },
};

/**
 * Runs `work` in a fresh unit of work and commits what it staged; runs it again from the
 * start while a read went stale (bounded, see retryOnConflict). For the writers that are not
 * HTTP operations (workers, the evidence channel, the seed, tests): the area handler does
 * the same around every write, with the idempotency record.
 */
export async function inUnitOfWork<T>(db: Db, work: (unit: UnitOfWork) => Promise<T>, options?: RetryOptions): Promise<T> {
  return retryOnConflict(() => new TransactionUnit(db).attempt(work), options);
}
