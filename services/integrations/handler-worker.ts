import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { logger } from '../shared/logger';
import { runIntegrationJob } from './domain-worker';
import { workerPorts } from './store-worker';

const jobMessage = z.object({ organizationId: z.uuid(), jobId: z.uuid() });

/**
 * The integration worker Lambda (`integrations-worker` in area.ts): consumes the
 * integrations queue. A job's own failures (provider rejected, retries exhausted) are
 * recorded on the job; a run that could not even record what happened (its bookkeeping
 * failed) is reported back to SQS, and the job's lease lets the next run take it over.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  const ports = workerPorts();
  for (const record of event.Records) {
    let message: z.infer<typeof jobMessage>;
    try {
      message = jobMessage.parse(JSON.parse(record.body));
    } catch {
      logger.error('Integration queue message is not a job message; dropped', { messageId: record.messageId });
      continue;
    }
    try {
      await runIntegrationJob(ports, message);
    } catch (error) {
      logger.error('Integration job delivery failed', { error: error as Error, messageId: record.messageId });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
