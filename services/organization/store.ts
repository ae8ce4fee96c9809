import { auditItem } from '../audit/model';
import { getOrganization, ORGANIZATION_LABEL, putSettingsItem, versionOf } from '../organizations/store';
import type { Db } from '../shared/ddb/client';
import { IDEMPOTENCY_LABEL } from '../shared/ddb/idempotency';
import { commit, TransactionCancelledError } from '../shared/ddb/transaction';
import { EtagMismatchError } from '../shared/errors';
import type { OrganizationStore } from './domain';

/**
 * The DynamoDB adapter of the organization port: the organization item of
 * services/organizations/store.ts (settings live on it), one TransactWriteItems per change.
 */
export function dynamoOrganizationStore(db: Db): OrganizationStore {
  return {
    get: (organizationId) => getOrganization(db, organizationId, true),
    async commitSettings(write) {
      try {
        await commit(db, [putSettingsItem(write.before.id, write.settings, versionOf(write.before), write.now), auditItem(write.audit), ...write.extra]);
      } catch (error) {
        // The idempotency record's own failure is resolved by runIdempotent (replay or 409).
        if (error instanceof TransactionCancelledError && !error.failed(IDEMPOTENCY_LABEL) && error.failed(ORGANIZATION_LABEL)) throw new EtagMismatchError();
        throw error;
      }
    },
  };
}
