import type { SQSEvent } from 'aws-lambda';
import { queueWorker, type QueuedJob } from '../../services/shared/queue-worker';

const ORG = '6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f';
const job = (n: number) => ({ organizationId: ORG, jobId: `00000000-0000-4000-8000-00000000000${n}` });
const event = (...bodies: string[]): SQSEvent => ({ Records: bodies.map((body, i) => ({ messageId: `m${i}`, body }) as SQSEvent['Records'][number]) });

describe('queueWorker', () => {
  it('runs each job message once, drops what names no job, and reports only the runs that threw', async () => {
    const ran: QueuedJob[] = [];
    let starts = 0;
    const handler = queueWorker('test', () => {
      starts += 1;
      return async (message) => {
        ran.push(message);
        if (message.jobId === job(2).jobId) throw new Error('bookkeeping failed');
      };
    });
    const result = await handler(event(JSON.stringify(job(1)), 'not json', JSON.stringify({ jobId: 'x' }), JSON.stringify(job(2))));
    expect(starts).toBe(1);
    expect(ran).toEqual([job(1), job(2)]);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'm3' }] });
  });
});
