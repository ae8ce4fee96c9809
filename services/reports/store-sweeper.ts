import type { Db } from '../shared/ddb/client';
import type { SweeperStore } from './domain-worker';
import { dueJobs, markRequeued } from './store-jobs';

/**
 * The sweeper's store, apart from store-worker.ts: that one renders PDFs (pdf-lib, fontkit,
 * ~1.3 MB bundled), which the sweeper never does, so its bundle must not import it.
 */
export const sweeperStore = (db: Db): SweeperStore => ({
  dueJobs: (before, limit) => dueJobs(db, before, limit),
  markRequeued: (message, now) => markRequeued(db, message, now),
});
