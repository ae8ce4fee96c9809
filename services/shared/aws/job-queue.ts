import type { SQSClient } from '@aws-sdk/client-sqs';
import { logger } from '../logger';
import { traceClient } from '../observability';
import type { JobQueueName } from '../permissions';
import type { QueuedJob } from '../queue-worker';

/** How a job message reaches its worker; `delaySeconds` (at most 15 minutes) postpones it. */
export interface JobQueue {
  send(message: QueuedJob, delaySeconds?: number): Promise<void>;
}

/** SQS's longest message delay. */
const MAX_DELAY_SECONDS = 900;

let sqs: SQSClient | undefined;
const localSendChecks: ((queue: JobQueueName) => void)[] = [];

/**
 * Runs `check` before every local send (the local runtime's IAM guard,
 * services/local/permissions.ts). A send to SQS is never checked here: the role decides there.
 */
export function checkLocalJobSends(check: (queue: JobQueueName) => void): void {
  if (!localSendChecks.includes(check)) localSendChecks.push(check);
}

/**
 * The job queue of one area: SQS in AWS (the queue URL in `queueUrlEnv`; the area's worker
 * function consumes it), this process locally: the worker runs after the response (a delayed
 * message after its delay), as the queue would run it. The local worker is registered by the
 * local runtime (so an API bundle never carries the worker) or passed by the caller; tests
 * may put another local queue in place (a failing one, to show what the sweeper recovers).
 */
export function areaJobQueue(options: { readonly name: JobQueueName; readonly queueUrlEnv: string; readonly worker: string }) {
  let localOverride: JobQueue | undefined;
  let localWorker: ((message: QueuedJob) => Promise<unknown>) | undefined;
  return {
    /** The local runtime's worker: runs a message in this process when there is no SQS queue. */
    setLocalWorker(run: ((message: QueuedJob) => Promise<unknown>) | undefined): void {
      localWorker = run;
    },
    /** Local runs and tests only: replaces the in-process queue (undefined restores it). */
    replaceLocal(queue: JobQueue | undefined): void {
      localOverride = queue;
    },
    /** The queue of this environment; without SQS, `deliverLocally` (default: the registered local worker) runs a message. */
    queue(deliverLocally?: (message: QueuedJob) => Promise<unknown>): JobQueue {
      const queueUrl = process.env[options.queueUrlEnv];
      if (queueUrl) {
        return {
          async send(message, delaySeconds) {
            // Loaded on the first send: only the routes that start a job need it (a chunk of its own, lib/constructs/bundling.ts).
            const { SendMessageCommand, SQSClient } = await import('@aws-sdk/client-sqs');
            sqs ??= traceClient(new SQSClient({}));
            const delay = delaySeconds === undefined ? {} : { DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.round(delaySeconds))) };
            await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message), ...delay }));
          },
        };
      }
      const checked = (send: JobQueue['send']): JobQueue => ({
        async send(message, delaySeconds) {
          for (const check of localSendChecks) check(options.name);
          return send(message, delaySeconds);
        },
      });
      const override = localOverride;
      if (override) return checked((message, delaySeconds) => override.send(message, delaySeconds));
      return checked(async (message, delaySeconds = 0) => {
        const deliver = deliverLocally ?? localWorker;
        if (!deliver) throw new Error(`No ${options.queueUrlEnv} and no local ${options.worker} worker: the job stays QUEUED for the sweeper.`);
        const run = () => {
          deliver(message).catch((error: unknown) => logger.error(`Local ${options.worker} worker failed`, { error: error as Error, jobId: message.jobId }));
        };
        if (delaySeconds > 0) setTimeout(run, delaySeconds * 1000).unref();
        else setImmediate(run);
      });
    },
  };
}
