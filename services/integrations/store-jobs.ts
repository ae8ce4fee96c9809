import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalUpdate, conditionFailed, type Db } from '../shared/ddb/client';
import { newestFirstPage } from '../shared/ddb/paging';
import { getOne } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import { RunLostError } from './domain-worker';
import { integrationKeys, jobFromItem, type IntegrationJob, type JobError, type JobMessage, type JobStep } from './model';

/**
 * The DynamoDB side of integration jobs: reads, the moves of a run (take, progress,
 * DELIVERING, retry later, success and failure items for their transactions) and the due
 * list the sweeper reads. Every move raises the version (the job's ETag); a run moves the
 * job only while it holds it (status RUNNING and its run id). Keys: model.ts.
 */

export const JOB_LABEL = 'integrationJob';
export const CLAIM_LABEL = 'dispatchClaim';

export const getJob = (db: Db, org: string, id: string): Promise<IntegrationJob | undefined> => getOne(db, integrationKeys.job(org, id), jobFromItem);

/** The organization's jobs, newest first: one Query of GSI1. */
export async function listJobs(db: Db, org: string, limit: number, startKey?: Record<string, unknown>): Promise<{ items: IntegrationJob[]; last?: Record<string, unknown> }> {
  const page = await newestFirstPage(db, 'GSI1', integrationKeys.jobs(org), limit, startKey);
  return { items: page.items.map(jobFromItem), ...(page.last ? { last: page.last } : {}) };
}

type Update = { Key: Record<string, unknown>; UpdateExpression: string; ConditionExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> };

/** An UpdateItem of a job: SET the fields, raise the version, REMOVE `remove`, under `condition`. */
function jobUpdate(job: Pick<IntegrationJob, 'organizationId' | 'id'>, set: Record<string, unknown>, condition: string, values: Record<string, unknown>, extra: { add?: string; remove?: string } = {}): Update {
  const fields = Object.entries(set);
  return {
    Key: integrationKeys.job(job.organizationId, job.id),
    UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')} ADD version :one${extra.add ? `, ${extra.add}` : ''}${extra.remove ? ` REMOVE ${extra.remove}` : ''}`,
    ConditionExpression: condition,
    ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(fields.map(([k], i) => [`#f${i}`, k])) },
    ExpressionAttributeValues: { ':one': 1, ...values, ...Object.fromEntries(fields.map(([, v], i) => [`:v${i}`, v])) },
  };
}

const HELD = '#status = :running AND runId = :run';
const heldValues = (job: IntegrationJob) => ({ ':running': 'RUNNING', ':run': job.runId });

const send = conditionalUpdate;

/** Due QUEUED, or RUNNING past its lease -> RUNNING for `runId`, one more attempt, due again at the end of the lease. */
export async function takeJob(db: Db, job: IntegrationJob, runId: string, now: string, leaseBefore: string, leaseUntil: string): Promise<IntegrationJob | undefined> {
  try {
    const out = await db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        ...jobUpdate(
          job,
          { status: 'RUNNING', runId, runningSince: now, updatedAt: now, GSI2SK: integrationKeys.due(leaseUntil, job.organizationId, job.id).GSI2SK },
          '(#status = :queued AND nextAttemptAt <= :now) OR (#status = :running AND runningSince < :lease)',
          { ':queued': 'QUEUED', ':running': 'RUNNING', ':now': now, ':lease': leaseBefore },
          { add: 'attempts :one' },
        ),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return jobFromItem(out.Attributes!);
  } catch (error) {
    if (conditionFailed(error)) return undefined;
    throw error;
  }
}

export async function jobProgress(db: Db, job: IntegrationJob, step: JobStep, percent: number, now: string): Promise<void> {
  if (!(await send(db, jobUpdate(job, { progress: { step, percent }, updatedAt: now }, HELD, heldValues(job))))) throw new RunLostError();
}

/** DELIVERING, before the send: from now on a run asks the provider before it sends. */
export async function markDelivering(db: Db, job: IntegrationJob, now: string): Promise<void> {
  if (!(await send(db, jobUpdate(job, { delivering: true, progress: { step: 'DELIVERING', percent: 60 }, updatedAt: now }, HELD, heldValues(job))))) throw new RunLostError();
}

/** Back to QUEUED after a failed attempt: due at `nextAttemptAt` (the sweeper's due list too), with the attempt's error. */
export async function retryLater(db: Db, job: IntegrationJob, error: JobError, nextAttemptAt: string, now: string): Promise<void> {
  const update = jobUpdate(
    job,
    { status: 'QUEUED', error, nextAttemptAt, progress: { step: 'WAITING', percent: 0 }, runId: null, runningSince: null, updatedAt: now, GSI2SK: integrationKeys.due(nextAttemptAt, job.organizationId, job.id).GSI2SK },
    HELD,
    heldValues(job),
  );
  if (!(await send(db, update))) throw new RunLostError();
}

/** The job's success inside its transaction: only while the run holds it; it leaves the due list. */
export const jobSucceededItem = (job: IntegrationJob, now: string, delivered: boolean): TxItem => ({
  label: JOB_LABEL,
  op: {
    Update: jobUpdate(
      job,
      { status: 'SUCCEEDED', progress: { step: 'DONE', percent: 100 }, error: null, runId: null, finishedAt: now, updatedAt: now, ...(delivered ? { deliveredAt: now } : {}) },
      HELD,
      heldValues(job),
      { remove: 'GSI2PK, GSI2SK' },
    ),
  },
});

/** The job's failure inside its transaction: only while the run holds it; it leaves the due list. */
export const jobFailedItem = (job: IntegrationJob, error: JobError, now: string): TxItem => ({
  label: JOB_LABEL,
  op: { Update: jobUpdate(job, { status: 'FAILED', error, runId: null, finishedAt: now, updatedAt: now }, HELD, heldValues(job), { remove: 'GSI2PK, GSI2SK' }) },
});

/** The dispatch claim moves to DONE (sent) or RELEASED (a new job may try; it reuses the delivery id). */
export const claimItem = (org: string, outboxId: string, jobId: string, state: 'DONE' | 'RELEASED'): TxItem => ({
  label: CLAIM_LABEL,
  op: {
    Update: {
      Key: integrationKeys.dispatchClaim(org, outboxId),
      UpdateExpression: 'SET #state = :state',
      ConditionExpression: 'jobId = :job',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':state': state, ':job': jobId },
    },
  },
});

// ---- the due list

/** Jobs due before `before`, oldest first: one Query of GSI2 `IJOB#DUE`. */
export async function dueJobs(db: Db, before: string, limit: number): Promise<{ message: JobMessage; dueKey: string }[]> {
  const out = await db.doc.send(
    new QueryCommand({
      TableName: db.tableName,
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :due AND GSI2SK < :before',
      ExpressionAttributeValues: { ':due': integrationKeys.duePartition, ':before': before },
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((item) => ({ message: { organizationId: item.organizationId as string, jobId: item.id as string }, dueKey: item.GSI2SK as string }));
}

export async function markRequeued(db: Db, message: JobMessage, dueKey: string, nextDue: string): Promise<boolean> {
  return conditionalUpdate(db, {
      Key: integrationKeys.job(message.organizationId, message.jobId),
      UpdateExpression: 'SET GSI2SK = :next',
      ConditionExpression: 'GSI2SK = :seen',
      ExpressionAttributeValues: { ':next': integrationKeys.due(nextDue, message.organizationId, message.jobId).GSI2SK, ':seen': dueKey },
  });
}
