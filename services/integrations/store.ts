import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { getManifest, getOutboxRecord, manifestCurrentCheck, MANIFEST_CURRENT_LABEL, outboxPendingCheck, OUTBOX_LABEL } from '../reports/public';
import { secretStore, type SecretStore } from '../shared/aws/secrets';
import type { Db } from '../shared/ddb/client';
import { movedOn, versionedPut } from '../shared/ddb/entity';
import { newestFirstPage } from '../shared/ddb/paging';
import { getOne } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import { logger } from '../shared/logger';
import { STRANDED_AFTER_MS, type CredentialStore, type DispatchClaim, type IntegrationStore, type NewJobChange } from './domain';
import type { JobQueue } from './domain-worker';
import { credentialsSecretName, integrationFromItem, integrationKeys, integrationToItem, jobToItem, providerGuardToItem, type Integration, type Provider } from './model';
import { CLAIM_LABEL, JOB_LABEL } from './store-jobs';

/**
 * The integrations store port of the API (domain.ts) on DynamoDB: integrations with their
 * provider guard, and the request of a job with its dispatch claim and the conditions on the
 * reports area's outbox record and manifest (through reports/public.ts). Credentials go to
 * the secret store (services/shared/aws/secrets.ts), never to the table.
 */

export const INTEGRATION_LABEL = 'integration';
const GUARD_LABEL = 'providerGuard';

export const getIntegration = (db: Db, org: string, id: string): Promise<Integration | undefined> => getOne(db, integrationKeys.integration(org, id), integrationFromItem);

export async function integrationOfProvider(db: Db, org: string, provider: Provider): Promise<Integration | undefined> {
  const guard = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: integrationKeys.providerGuard(org, provider), ConsistentRead: true }));
  return guard.Item ? getIntegration(db, org, guard.Item.integrationId as string) : undefined;
}

/** The organization's integrations, newest first (at most three: one per provider). */
export async function listIntegrations(db: Db, org: string, limit: number, startKey?: Record<string, unknown>): Promise<{ items: Integration[]; last?: Record<string, unknown> }> {
  const page = await newestFirstPage(db, 'GSI1', integrationKeys.integrations(org), limit, startKey);
  return { items: page.items.map(integrationFromItem), ...(page.last ? { last: page.last } : {}) };
}

async function dispatchClaim(db: Db, org: string, outboxRecordId: string): Promise<DispatchClaim | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: integrationKeys.dispatchClaim(org, outboxRecordId), ConsistentRead: true }));
  return out.Item ? { outboxRecordId, jobId: out.Item.jobId as string, state: out.Item.state as DispatchClaim['state'] } : undefined;
}

/** The integration unchanged since it was read (version), for the job request. */
const integrationCheck = (i: Integration): TxItem => ({
  label: INTEGRATION_LABEL,
  op: { ConditionCheck: { Key: integrationKeys.integration(i.organizationId, i.id), ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': i.version } } },
});

function claimPut(org: string, dispatch: NonNullable<NewJobChange['dispatch']>, jobId: string): TxItem {
  const released = dispatch.releasedClaim;
  return {
    label: CLAIM_LABEL,
    op: {
      Put: {
        Item: { ...integrationKeys.dispatchClaim(org, dispatch.outboxRecordId), itemType: 'IntegrationDispatchClaim', outboxRecordId: dispatch.outboxRecordId, jobId, state: 'ACTIVE' },
        ...(released
          ? { ConditionExpression: '#state = :released AND jobId = :previous', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':released': 'RELEASED', ':previous': released.jobId } }
          : { ConditionExpression: 'attribute_not_exists(PK)' }),
      },
    },
  };
}

/**
 * Credentials as the secret store keeps them: a JSON document under the name of the version
 * that records them (credentialsSecretName). The request's unit of work removes them again
 * when its change does not commit, and the replaced ones after it commits (best effort: a
 * leftover is never named by a record, so it is never used).
 */
export const credentialStore = (unit: UnitOfWork, secrets: SecretStore = secretStore()): CredentialStore => ({
  async putCredentials(target, credentials, replacing) {
    const name = credentialsSecretName(target);
    unit.onAbort(() => secrets.remove(name));
    await secrets.put(name, JSON.stringify({ token: credentials.token }));
    if (replacing?.credentialsSet) {
      const replaced = credentialsSecretName(replacing);
      unit.afterCommit(async () => {
        try {
          await secrets.remove(replaced);
        } catch (error) {
          logger.warn('Replaced integration credentials could not be removed from the secret store', { integrationId: replacing.id, error: error as Error });
        }
      });
    }
  },
});

export function integrationsStore(db: Db, unit: UnitOfWork, queue: JobQueue): IntegrationStore {
  return {
    getIntegration: (org, id) => getIntegration(db, org, id),
    integrationOfProvider: (org, provider) => integrationOfProvider(db, org, provider),

    saveIntegration(change) {
      const { before, after } = change;
      unit.stage({
        items: [
          versionedPut(INTEGRATION_LABEL, integrationToItem(after), before),
          ...(before ? [] : [{ label: GUARD_LABEL, op: { Put: { Item: providerGuardToItem(after), ConditionExpression: 'attribute_not_exists(PK)' } } } satisfies TxItem]),
        ],
        audit: change.audit,
        // A concurrent create claimed the provider, or the integration moved: decide again (409 INTEGRATION_EXISTS, 412) from fresh reads.
        explain: movedOn(GUARD_LABEL, INTEGRATION_LABEL),
      });
    },

    getOutboxRecord: (org, id) => getOutboxRecord(db, org, id),
    getManifest: (org, id) => getManifest(db, org, id),
    dispatchClaim: (org, id) => dispatchClaim(db, org, id),

    saveNewJob(change) {
      const { job, dispatch } = change;
      const org = job.organizationId;
      const dueAt = new Date(Date.parse(job.createdAt) + STRANDED_AFTER_MS).toISOString();
      unit.stage({
        items: [
          { label: JOB_LABEL, op: { Put: { Item: jobToItem(job, dueAt), ConditionExpression: 'attribute_not_exists(PK)' } } },
          integrationCheck(change.integration),
          ...(dispatch ? [claimPut(org, dispatch, job.id), outboxPendingCheck(org, dispatch.outboxRecordId), manifestCurrentCheck(org, dispatch.manifestId)] : []),
        ],
        audit: change.audit,
        // Anything read moved on (the integration, a claim, the record, the manifest): decide again from fresh reads.
        explain: movedOn(INTEGRATION_LABEL, CLAIM_LABEL, OUTBOX_LABEL, MANIFEST_CURRENT_LABEL),
      });
    },

    queueAfterCommit(message) {
      // The job is committed and due: a send that fails is the sweeper's to repeat, not the caller's error.
      unit.afterCommit(async () => {
        try {
          await queue.send(message);
        } catch (error) {
          logger.warn('Sending an integration job failed; the sweeper sends it again', { error: error as Error, jobId: message.jobId });
        }
      });
    },
  };
}
