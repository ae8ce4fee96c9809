import { areaJobQueue } from '../shared/aws/job-queue';

/**
 * The integrations queue (shared/aws/job-queue.ts): SQS (INTEGRATIONS_QUEUE_URL) in AWS, a
 * retry's backoff being the message's delay (at most 15 minutes); this process locally, a
 * retry after its delay. Locally the worker is the one passed by the caller (the worker's own
 * retries) or the one the local gateway registers with `setLocalIntegrationWorker`, so that
 * the API's and the sweeper's bundles never carry the worker (the provider client, the secret
 * store, the export files on S3).
 */
export const QUEUE_URL_ENV = 'INTEGRATIONS_QUEUE_URL';

const integrationsQueue = areaJobQueue({ name: 'integrations', queueUrlEnv: QUEUE_URL_ENV, worker: 'integration' });

export const jobQueue = integrationsQueue.queue;
export const setLocalIntegrationWorker = integrationsQueue.setLocalWorker;
export const replaceLocalIntegrationQueue = integrationsQueue.replaceLocal;
