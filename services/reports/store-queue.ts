import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { traceClient } from '../shared/observability';
import { logger } from '../shared/logger';
import type { JobQueue } from './domain';
import type { JobMessage } from './model';

/**
 * How a job message reaches the worker: SQS in AWS (REPORTS_QUEUE_URL; the worker function
 * consumes the queue), this process locally (the worker runs after the response, as the
 * queue would run it). Tests may put another local queue in place (a failing one, to show
 * that the sweeper completes a job whose message was never sent).
 */

let sqs: SQSClient | undefined;
let localOverride: JobQueue | undefined;

/** The queue of this environment; `deliverLocally` runs a message in this process when there is no SQS queue. */
export function jobQueue(deliverLocally: (message: JobMessage) => Promise<unknown>): JobQueue {
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
      setImmediate(() => {
        deliverLocally(message).catch((error: unknown) => logger.error('Local report worker failed', { error: error as Error, jobId: message.jobId }));
      });
    },
  };
}

/** Local runs and tests only: replaces the in-process queue (undefined restores it). */
export function replaceLocalJobQueue(queue: JobQueue | undefined): void {
  localOverride = queue;
}
