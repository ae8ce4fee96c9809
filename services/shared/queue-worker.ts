import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { logger } from './logger';

/** What a job queue carries: which job of which organization to run. */
export const jobMessageSchema = z.object({ organizationId: z.uuid(), jobId: z.uuid() });
export type QueuedJob = z.infer<typeof jobMessageSchema>;

/**
 * The handler of an SQS-triggered job worker. `start` runs once per invocation and returns
 * the run of one message. A job that fails for its own reasons is the run's to record (it
 * returns); a run that throws (its bookkeeping failed) is reported back to SQS in the partial
 * batch response for another delivery, then the dead-letter queue. A message that names no
 * job is dropped with a log line: redelivering it could never help.
 */
export function queueWorker(queue: string, start: () => (message: QueuedJob) => Promise<unknown>): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    const run = start();
    for (const record of event.Records) {
      let message: QueuedJob;
      try {
        message = jobMessageSchema.parse(JSON.parse(record.body));
      } catch {
        logger.error('Queue message is not a job message; dropped', { queue, messageId: record.messageId });
        continue;
      }
      try {
        await run(message);
      } catch (error) {
        logger.error('Job delivery failed', { queue, error: error as Error, messageId: record.messageId });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}
