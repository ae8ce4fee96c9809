import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { traceClient } from '../shared/observability';
import { logger } from '../shared/logger';
import type { JobQueue } from './domain';
import type { JobMessage } from './model';

/**
 * How a job message reaches the worker: SQS in AWS (REPORTS_QUEUE_URL; the worker function
 * consumes the queue), this process locally (the worker runs after the response, as the
 * queue would run it: the local gateway registers it with `deliverJobsLocally`, so the API's
 * bundle never carries the worker, pdf-lib or the fonts). Tests may put another local queue
 * in place (a failing one, to show that the sweeper completes a job whose message was never sent).
 */

let sqs: SQSClient | undefined;
let localOverride: JobQueue | undefined;
let localWorker: ((message: JobMessage) => Promise<void>) | undefined;

/**
 * The local runtime's worker (services/local registers it): runs a message in this process
 * when there is no SQS queue. The API and sweeper functions never import the worker, so
 * their bundles carry neither it nor its PDF renderer (pdf-lib is the worker's alone).
 */
export function setLocalReportWorker(run: ((message: JobMessage) => Promise<void>) | undefined): void {
  localWorker = run;
}

/**
 * The queue of this environment; without an SQS queue, `deliverLocally` (default: the
 * registered local worker) runs a message in this process.
 */
export function jobQueue(deliverLocally?: (message: JobMessage) => Promise<unknown>): JobQueue {
  const queueUrl = process.env.REPORTS_QUEUE_URL;
  if (queueUrl) {
    return {
      async send(message) {
        sqs ??= traceClient(new SQSClient({}));
        await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
      },
    };
  }
  if (localOverride) return localOverride;
  return {
    async send(message) {
      const deliver = deliverLocally ?? localWorker;
      if (!deliver) throw new Error('No REPORTS_QUEUE_URL and no local report worker: the job stays QUEUED for the sweeper.');
      setImmediate(() => {
        deliver(message).catch((error: unknown) => logger.error('Local report worker failed', { error: error as Error, jobId: message.jobId }));
      });
    },
  };
}

/** Local runs and tests only: replaces the in-process queue (undefined restores it). */
export function replaceLocalJobQueue(queue: JobQueue | undefined): void {
  localOverride = queue;
}
