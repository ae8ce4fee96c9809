import type { Db } from '../shared/ddb/client';
import type { SweeperStore } from './domain-worker';
import { dueJobs, markRequeued } from './store-jobs';

/**
 * The sweeper's store, apart from store-worker.ts: the sweeper only finds due jobs and sends
 * their messages again; the worker's store brings the provider client, the secret store and
 * the export files (S3), which its bundle must not carry.
 */
export const sweeperStore = (db: Db): SweeperStore => ({
  dueJobs: (before, limit) => dueJobs(db, before, limit),
  markRequeued: (message, dueKey, nextDue) => markRequeued(db, message, dueKey, nextDue),
});
