import { areaJobQueue } from '../shared/aws/job-queue';

/**
 * The integrations queue (shared/aws/job-queue.ts): SQS (INTEGRATIONS_QUEUE_URL) in AWS, a
 * retry's backoff being the message's delay (at most 15 minutes); this process locally, the
 * worker passed by the caller, a retry after its delay.
 */
export const QUEUE_URL_ENV = 'INTEGRATIONS_QUEUE_URL';

export const jobQueue = areaJobQueue({ queueUrlEnv: QUEUE_URL_ENV, worker: 'integration' }).queue;
