import { areaJobQueue } from '../shared/aws/job-queue';

/**
 * The reports queue (shared/aws/job-queue.ts): SQS (REPORTS_QUEUE_URL) in AWS, this process
 * locally, where the local gateway registers the worker with `setLocalReportWorker`, so the
 * API's bundle never carries the worker, pdf-lib or the fonts.
 */
const reportsQueue = areaJobQueue({ name: 'reports', queueUrlEnv: 'REPORTS_QUEUE_URL', worker: 'report' });

export const jobQueue = reportsQueue.queue;
export const setLocalReportWorker = reportsQueue.setLocalWorker;
export const replaceLocalJobQueue = reportsQueue.replaceLocal;
