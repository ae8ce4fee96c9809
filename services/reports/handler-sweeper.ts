import { defaultDb } from '../shared/ddb/client';
import { logger } from '../shared/logger';
import { requeueStrandedJobs, runReportJob } from './domain-worker';
import type { JobMessage } from './model';
import { jobQueue } from './store-queue';
import { sweeperStore, workerPorts } from './store-worker';

/** Locally there is no SQS: a re-queued job runs in this process. */
const runLocally = (message: JobMessage) => runReportJob(workerPorts(), message);

/**
 * The sweeper Lambda (`reports-sweeper` in area.ts), run every minute by an EventBridge
 * rule (and on an interval by the local runtime): sends again the messages of jobs still
 * QUEUED after the bound (domain-worker.ts, requeueStrandedJobs).
 */
export const handler = async (): Promise<{ requeued: number }> => {
  const requeued = await requeueStrandedJobs({ store: sweeperStore(defaultDb()), queue: jobQueue(runLocally), now: () => new Date() });
  if (requeued > 0) logger.info('Stranded report jobs re-queued', { requeued });
  return { requeued };
};
