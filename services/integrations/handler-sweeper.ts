import { defaultDb } from '../shared/ddb/client';
import { logger } from '../shared/logger';
import { requeueDueJobs } from './domain-worker';
import { jobQueue } from './store-queue';
import { sweeperStore } from './store-sweeper';

/**
 * The sweeper Lambda (`integrations-sweeper` in area.ts), run every minute by an EventBridge
 * rule (and on an interval by the local runtime): sends again the message of every due job
 * (lost message, backoff over, run that died).
 */
export const handler = async (): Promise<{ requeued: number }> => {
  const requeued = await requeueDueJobs({ store: sweeperStore(defaultDb()), queue: jobQueue(), now: () => new Date() });
  if (requeued > 0) logger.info('Due integration jobs re-queued', { requeued });
  return { requeued };
};
