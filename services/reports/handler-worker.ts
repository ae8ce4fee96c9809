import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { logger } from '../shared/logger';
import { MetricsBuffer, publishFigures } from '../shared/observability';
import { runReportJob } from './domain-worker';
import { workerPorts } from './store-worker';

/** The queue message: which job to run. */
const jobMessage = z.object({ organizationId: z.uuid(), jobId: z.uuid() });

/**
 * The report worker Lambda (`reports-worker` in area.ts): consumes the reports queue. A job
 * that fails for its own reasons is marked FAILED by the worker; only infrastructure failures
 * are reported back to SQS (partial batch response) for another delivery, then the
 * dead-letter queue. A message that names no job is dropped with a log line.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  const ports = workerPorts();
  for (const record of event.Records) {
    let message: z.infer<typeof jobMessage>;
    try {
      message = jobMessage.parse(JSON.parse(record.body));
    } catch {
      logger.error('Report queue message is not a job message; dropped', { messageId: record.messageId });
      continue;
    }
    const started = performance.now();
    try {
      const outcome = await runReportJob(ports, message);
      // A finished export's figures: its outcome and how long the delivery took.
      if (outcome !== 'SKIPPED') {
        const figures = new MetricsBuffer();
        figures.count(outcome === 'SUCCEEDED' ? 'ExportsSucceeded' : 'ExportsFailed');
        figures.duration('ExportDuration', performance.now() - started);
        publishFigures(figures, { organizationId: message.organizationId, jobId: message.jobId });
      }
    } catch (error) {
      logger.error('Report job delivery failed', { error: error as Error, messageId: record.messageId });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
