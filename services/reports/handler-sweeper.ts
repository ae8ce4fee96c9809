import { defaultDb } from '../shared/ddb/client';
import { logger } from '../shared/logger';
import { requeueStrandedJobs } from './domain-worker';
import { jobQueue } from './store-queue';
import { sweeperStore } from './store-sweeper';

/**
 * The sweeper Lambda (`reports-sweeper` in area.ts), run every minute by an EventBridge
 * rule (and on an interval by the local runtime): sends again the messages of jobs still
 * QUEUED after the bound (domain-worker.ts, requeueStrandedJobs).
 */
export const handler = async (): Promise<{ requeued: number }> => {
  const requeued = await requeueStrandedJobs({ store: sweeperStore(defaultDb()), queue: jobQueue(), now: () => new Date() });
  if (requeued > 0) logger.info('Stranded report jobs re-queued', { requeued });
  return { requeued };
};
