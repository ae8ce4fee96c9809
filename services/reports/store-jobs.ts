import { conditionalUpdate, type Db } from '../shared/ddb/client';
import { collect, getOne } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import { jobFromItem, reportKeys, type JobMessage, type ReportJob } from './model';

/**
 * The DynamoDB side of report jobs: reads, the moves of a run (take, progress, failure,
 * success inside the publishing transaction), and the due list the sweeper reads. Every
 * move raises the job's version (its ETag); a run moves the job only while it holds it.
 * Keys and item shapes: model.ts.
 */

export const JOB_LABEL = 'job';

export const getJob = (db: Db, org: string, id: string): Promise<ReportJob | undefined> => getOne(db, reportKeys.job(org, id), jobFromItem);

/** An UpdateItem of a job: SET the fields, raise the version, under `condition`. */
function jobUpdate(job: Pick<ReportJob, 'organizationId' | 'id'>, set: Record<string, unknown>, condition: string, values: Record<string, unknown>, remove = '') {
  const fields = Object.entries(set);
  return {
    Key: reportKeys.job(job.organizationId, job.id),
    UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')} ADD version :one${remove ? ` REMOVE ${remove}` : ''}`,
    ConditionExpression: condition,
    ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(fields.map(([k], i) => [`#f${i}`, k])) },
    ExpressionAttributeValues: { ':one': 1, ...values, ...Object.fromEntries(fields.map(([, v], i) => [`:v${i}`, v])) },
  };
}

const HELD_BY_RUN = '#status = :running AND runId = :run';

const conditional = conditionalUpdate;

/** QUEUED, or RUNNING by a run older than the lease -> RUNNING for `runId`; the job leaves the due list. */
export const takeJob = (db: Db, job: ReportJob, runId: string, now: string, leaseBefore: string): Promise<boolean> =>
  conditional(
    db,
    jobUpdate(
      job,
      { status: 'RUNNING', runId, runningSince: now, updatedAt: now },
      '#status = :queued OR (#status = :running AND (attribute_not_exists(runningSince) OR runningSince < :lease))',
      { ':queued': 'QUEUED', ':running': 'RUNNING', ':lease': leaseBefore },
      'GSI1PK, GSI1SK',
    ),
  );

export async function updateProgress(db: Db, job: ReportJob, runId: string, progress: ReportJob['progress'], now: string): Promise<void> {
  await conditional(db, jobUpdate(job, { progress, updatedAt: now }, HELD_BY_RUN, { ':running': 'RUNNING', ':run': runId }));
}

/** FAILED with the reason; a run that no longer holds the job changes nothing. */
export async function failJob(db: Db, job: ReportJob, runId: string, reason: string, now: string): Promise<void> {
  await conditional(db, jobUpdate(job, { status: 'FAILED', failureReason: reason, updatedAt: now }, HELD_BY_RUN, { ':running': 'RUNNING', ':run': runId }));
}

/** The job's success, inside the publishing transaction: only while `runId` holds it. */
export const jobSucceededItem = (job: ReportJob, runId: string, change: Pick<ReportJob, 'manifestId' | 'progress'>, now: string): TxItem => ({
  label: JOB_LABEL,
  op: { Update: jobUpdate(job, { status: 'SUCCEEDED', manifestId: change.manifestId, progress: change.progress, updatedAt: now }, HELD_BY_RUN, { ':running': 'RUNNING', ':run': runId }) },
});

// ---- the due list

/** Queued jobs due before `before`, oldest first: one Query of GSI1 `RJOB#DUE`. */
export async function dueJobs(db: Db, before: string, limit: number): Promise<JobMessage[]> {
  const { items } = await collect(
    db,
    {
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :due AND GSI1SK < :before',
      ExpressionAttributeValues: { ':due': reportKeys.duePartition, ':before': before },
    },
    limit,
  );
  return items.map(jobFromItem).map((j) => ({ organizationId: j.organizationId, jobId: j.id }));
}

/** Moves a still QUEUED job's due time to `now` (it is sent again one bound later if still queued). */
export async function markRequeued(db: Db, message: JobMessage, now: string): Promise<boolean> {
  return conditionalUpdate(db, {
      Key: reportKeys.job(message.organizationId, message.jobId),
      UpdateExpression: 'SET GSI1SK = :due',
      ConditionExpression: '#status = :queued AND attribute_exists(GSI1PK)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':due': reportKeys.due(now, message.organizationId, message.jobId).GSI1SK, ':queued': 'QUEUED' },
  });
}
