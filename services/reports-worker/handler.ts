import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../shared/logger';
import type { JobMessage } from '../reports/queue';
import { defaultWorkerDeps, runReportJob } from '../reports/worker';

/**
 * The report worker Lambda: consumes the reports queue. A job that fails for its own
 * reasons is marked FAILED by the worker; only infrastructure failures are reported back
 * to SQS (partial batch response) for another delivery, then the dead-letter queue.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  const deps = defaultWorkerDeps();
  for (const record of event.Records) {
    try {
      await runReportJob(deps, JSON.parse(record.body) as JobMessage);
    } catch (error) {
      logger.error('Report job delivery failed', { error: error as Error, messageId: record.messageId });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
