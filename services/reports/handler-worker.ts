import { MetricsBuffer, publishFigures } from '../shared/observability';
import { queueWorker } from '../shared/queue-worker';
import { runReportJob } from './domain-worker';
import { workerPorts } from './store-worker';

/**
 * The report worker Lambda (`reports-worker` in area.ts): consumes the reports queue. A job
 * that fails for its own reasons is marked FAILED by the worker; only infrastructure failures
 * are reported back to SQS (partial batch response) for another delivery, then the
 * dead-letter queue. A message that names no job is dropped with a log line.
 */
export const handler = queueWorker('reports', () => {
  const ports = workerPorts();
  return async (message) => {
    const started = performance.now();
    const outcome = await runReportJob(ports, message);
    // A finished export's figures: its outcome and how long the delivery took.
    if (outcome !== 'SKIPPED') {
      const figures = new MetricsBuffer();
      figures.count(outcome === 'SUCCEEDED' ? 'ExportsSucceeded' : 'ExportsFailed');
      figures.duration('ExportDuration', performance.now() - started);
      publishFigures(figures, { organizationId: message.organizationId, jobId: message.jobId });
    }
  };
});
