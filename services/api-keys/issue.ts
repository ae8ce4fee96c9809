import { generateApiKey, type IssuedApiKey } from '../shared/auth/api-key';
import type { ApiEnvironment } from '../shared/config';
import type { Db } from '../shared/ddb/client';
import { getOrganization, timesheetWritesEnabled } from '../organization/public';
import { isScope } from '../routes';
import { putApiKey, type ApiKeyRecord } from './store';

export class KeyIssuanceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyIssuanceError';
  }
}

export interface IssueKeyInput {
  readonly organizationId: string;
  readonly environment: ApiEnvironment;
  readonly label: string;
  readonly scopes: readonly string[];
  readonly validUntil?: string;
  /** The organization's own key (staff, tests, demos), not a third party's: see ApiKeyRecord.internal. */
  readonly internal?: boolean;
  readonly now: string;
}

/**
 * Issues an API key: input the organization, environment, label and scopes; output the
 * clear token (to show once) and the stored record (hash only).
 * 1. The organization must exist; the label must be non-empty; every scope must be a
 *    scope of the catalogue.
 * 2. `timesheets:write` is refused while the organization's timesheet_corrections
 *    entitlement or rollout gate is off (organization-api.md, Authentication 4).
 * 3. Run `beforeStore` (in AWS: register the key in the per-key usage plan), then store the
 *    record with the secret's hash; the secret itself is never stored.
 */
export async function issueApiKey(
  db: Db,
  input: IssueKeyInput,
  generate: (environment: ApiEnvironment) => IssuedApiKey = generateApiKey,
  /** Runs before the record is stored (the usage-plan registration in AWS): a failure stores nothing. */
  beforeStore: (record: ApiKeyRecord) => Promise<void> = async () => undefined,
): Promise<{ token: string; record: ApiKeyRecord }> {
  const org = await getOrganization(db, input.organizationId);
  if (!org) throw new KeyIssuanceError(`Organization ${input.organizationId} does not exist; create it with \`npm run orgs -- create\`.`);
  if (input.label.trim() === '') throw new KeyIssuanceError('A key needs a label: it names the key as the actor in the audit trail.');
  if (input.scopes.length === 0) throw new KeyIssuanceError('A key needs at least one scope.');
  const unknown = input.scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new KeyIssuanceError(`Unknown scope(s): ${unknown.join(', ')}.`);
  if (input.validUntil !== undefined && Number.isNaN(Date.parse(input.validUntil))) {
    throw new KeyIssuanceError(`validUntil must be an RFC 3339 instant, got "${input.validUntil}".`);
  }
  if (input.scopes.includes('timesheets:write') && !timesheetWritesEnabled(org)) {
    throw new KeyIssuanceError(
      `timesheets:write cannot be granted: the timesheet_corrections entitlement or rollout gate of ${org.id} is off (entitlement ${org.entitlements.timesheetCorrections}, rollout gate ${org.rolloutGates.timesheetCorrections}).`,
    );
  }
  const issued = generate(input.environment);
  const record: ApiKeyRecord = {
    keyId: issued.keyId,
    organizationId: org.id,
    environment: input.environment,
    label: input.label.trim(),
    scopes: [...new Set(input.scopes)].sort(),
    secretHash: issued.secretHash,
    createdAt: input.now,
    ...(input.validUntil ? { validUntil: new Date(input.validUntil).toISOString() } : {}),
    ...(input.internal ? { internal: true } : {}),
  };
  await beforeStore(record);
  await putApiKey(db, record);
  return { token: issued.token, record };
}
