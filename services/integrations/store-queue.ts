import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { logger } from '../shared/logger';
import type { JobQueue } from './domain-worker';
import type { JobMessage } from './model';

/**
 * How a job message reaches the worker: SQS in AWS (INTEGRATIONS_QUEUE_URL; a retry's
 * backoff is the message's delay, at most 15 minutes), this process locally (the worker runs
 * after the response, a retry after its delay). Tests may put another local queue in place.
 */
export const QUEUE_URL_ENV = 'INTEGRATIONS_QUEUE_URL';
const MAX_DELAY_SECONDS = 900;

let sqs: SQSClient | undefined;
let localOverride: JobQueue | undefined;

export function jobQueue(deliverLocally: (message: JobMessage) => Promise<void>): JobQueue {
  const queueUrl = process.env[QUEUE_URL_ENV];
  if (queueUrl) {
    return {
      async send(message, delaySeconds = 0) {
        sqs ??= new SQSClient({});
        await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message), DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, delaySeconds)) }));
      },
    };
  }
  if (localOverride) return localOverride;
  return {
    async send(message, delaySeconds = 0) {
      const run = () => {
        deliverLocally(message).catch((error: unknown) => logger.error('Local integration worker failed', { error: error as Error, jobId: message.jobId }));
      };
      if (delaySeconds > 0) setTimeout(run, delaySeconds * 1000).unref();
      else setImmediate(run);
    },
  };
}

/** Local runs and tests only: replaces the in-process queue (undefined restores it). */
export function replaceLocalJobQueue(queue: JobQueue | undefined): void {
  localOverride = queue;
}
