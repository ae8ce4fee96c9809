import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { logger } from '../shared/logger';

/**
 * How a requested report reaches its worker: an SQS message in AWS (REPORTS_QUEUE_URL, the
 * worker Lambda consumes the queue), the same worker in this process locally.
 */
export interface JobMessage {
  readonly organizationId: string;
  readonly jobId: string;
}

let sqs: SQSClient | undefined;

export async function enqueueReportJob(message: JobMessage): Promise<void> {
  const queueUrl = process.env.REPORTS_QUEUE_URL;
  if (queueUrl) {
    sqs ??= new SQSClient({});
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
    return;
  }
  setImmediate(() => {
    import('./worker')
      .then(({ runReportJob, defaultWorkerDeps }) => runReportJob(defaultWorkerDeps(), message))
      .catch((error: unknown) => logger.error('Local report worker failed', { error: error as Error, jobId: message.jobId }));
  });
}
