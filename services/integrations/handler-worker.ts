import { queueWorker } from '../shared/queue-worker';
import { runIntegrationJob } from './domain-worker';
import { workerPorts } from './store-worker';

/**
 * The integration worker Lambda (`integrations-worker` in area.ts): consumes the
 * integrations queue. A job's own failures (provider rejected, retries exhausted) are
 * recorded on the job; a run that could not even record what happened (its bookkeeping
 * failed) is reported back to SQS, and the job's lease lets the next run take it over.
 */
export const handler = queueWorker('integrations', () => {
  const ports = workerPorts();
  return (message) => runIntegrationJob(ports, message);
});
