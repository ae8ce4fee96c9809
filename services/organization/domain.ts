import type { AuditEntry } from '../audit/model';
import { settingsOf, versionOf, type Organization, type OrganizationSettings } from '../organizations/store';
import type { Principal } from '../shared/auth/principal';
import type { TxItem } from '../shared/ddb/transaction';
import { NotFoundError } from '../shared/errors';
import { assertEtag, entityEtag } from '../shared/domain/etag';

/**
 * The organization and its settings. Capability facts (timesheet_corrections entitlement and
 * rollout gate) are read-only here: operators change them (`npm run orgs`). No HTTP, no SDK.
 */

/** Everything one settings change commits, atomically. */
export interface SettingsWrite {
  readonly before: Organization;
  readonly settings: OrganizationSettings;
  readonly now: string;
  readonly audit: AuditEntry;
  /** The caller's items for the same transaction (the idempotency record). */
  readonly extra: readonly TxItem[];
}

/** The data port (services/organization/store.ts is the DynamoDB adapter). */
export interface OrganizationStore {
  /** Consistent read. */
  get(organizationId: string): Promise<Organization | undefined>;
  /** One transaction; EtagMismatchError when the organization changed since `before` was read. */
  commitSettings(write: SettingsWrite): Promise<void>;
}

export interface OrganizationDeps {
  readonly store: OrganizationStore;
  readonly now: () => Date;
  readonly newId: () => string;
}

export interface Actor {
  readonly principal: Principal;
  readonly requestId: string;
}

/** Items the caller commits in the same transaction, built from the state about to be committed. */
export type ExtraItems = (after: Organization) => Promise<readonly TxItem[]>;

/** Settings and capability facts share one version, so either change moves both ETags. */
export const organizationEtag = (org: Organization): string => entityEtag('organization', org.id, versionOf(org));
export const settingsEtag = (org: Organization): string => entityEtag('settings', org.id, versionOf(org));

/** The key's organization; 404 if it does not exist (an operator deleted it after issuing the key). */
export async function readOrganization(deps: OrganizationDeps, organizationId: string): Promise<Organization> {
  const org = await deps.store.get(organizationId);
  if (!org) throw new NotFoundError(`Organization ${organizationId}`);
  return org;
}

/**
 * PATCH /settings. Input: If-Match and a partial settings body; output: the organization
 * with its new settings.
 * 1. Read the organization (consistently); 404 if it does not exist.
 * 2. If-Match must be the current settings ETag (412 otherwise).
 * 3. Merge the given settings over the current ones (defaults where never set).
 * 4. Commit ONE transaction: the organization at version + 1 (only if still at the version
 *    read, else 412), the audit entry (setting names and their before/after values: no
 *    personal data), the caller's idempotency record.
 */
export async function updateSettings(
  deps: OrganizationDeps,
  actor: Actor,
  ifMatch: string,
  patch: Partial<OrganizationSettings>,
  extra: ExtraItems,
): Promise<Organization> {
  const before = await readOrganization(deps, actor.principal.organizationId);
  assertEtag(ifMatch, settingsEtag(before));
  const now = deps.now().toISOString();
  const current = settingsOf(before);
  const settings: OrganizationSettings = { ...current, ...patch };
  const after: Organization = { ...before, settings, version: versionOf(before) + 1, updatedAt: now };
  const changed = (Object.keys(settings) as (keyof OrganizationSettings)[]).filter((k) => settings[k] !== current[k]);
  const audit: AuditEntry = {
    id: deps.newId(),
    organizationId: before.id,
    occurredAt: now,
    actor: { type: 'API_KEY', keyId: actor.principal.keyId, label: actor.principal.keyLabel },
    action: 'organization.settings_updated',
    entity: { type: 'organization', id: before.id },
    before: { ...current },
    after: { ...settings },
    changedAttributes: changed,
    requestId: actor.requestId,
  };
  await deps.store.commitSettings({ before, settings, now, audit, extra: await extra(after) });
  return after;
}
