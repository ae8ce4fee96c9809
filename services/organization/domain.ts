import { auditEntry, type AuditEntry } from '../audit/model';
import type { Actor } from '../shared/domain/actor';
import { assertEtag, entityEtag } from '../shared/domain/etag';
import { NotFoundError } from '../shared/errors';
import type { Organization, OrganizationSettings } from './model';
import type { UseCasePorts } from '../shared/domain/ports';

export type { Organization, OrganizationSettings, Weekday } from './model';

/**
 * The organization and its settings. Capability facts (timesheet_corrections entitlement and
 * rollout gate) are read-only here: operators change them (`npm run orgs`). No HTTP, no SDK.
 */

export const DEFAULT_SETTINGS: OrganizationSettings = { timeZone: 'UTC', locale: 'en', weekStartsOn: 'MONDAY' };

export const settingsOf = (org: Organization): OrganizationSettings => ({ ...DEFAULT_SETTINGS, ...org.settings });

export const versionOf = (org: Organization): number => org.version ?? 0;

/** The capability rule: timesheet writes need the entitlement AND the open rollout gate. */
export const timesheetWritesEnabled = (org: Organization): boolean => org.entitlements.timesheetCorrections && org.rolloutGates.timesheetCorrections;

/** Settings and capability facts share one version, so either change moves both ETags. */
export const organizationEtag = (org: Organization): string => entityEtag('organization', org.id, versionOf(org));
export const settingsEtag = (org: Organization): string => entityEtag('settings', org.id, versionOf(org));

/** A settings change: the organization read, the one to commit, and its audit entry. */
export interface SettingsChange {
  readonly before: Organization;
  readonly after: Organization;
  readonly audit: AuditEntry;
}

/** The data port (services/organization/store.ts is the DynamoDB adapter). */
export interface OrganizationStore {
  /** Consistent read. */
  getOrganization(organizationId: string): Promise<Organization | undefined>;
  /** Stages the change; it commits only while the organization is still at `before`'s version (412 otherwise). */
  saveSettings(change: SettingsChange): void;
}

export type OrganizationPorts = UseCasePorts<OrganizationStore>;

/** The key's organization; 404 if it does not exist (an operator deleted it after issuing the key). */
export async function readOrganization(ports: Pick<OrganizationPorts, 'store'>, organizationId: string): Promise<Organization> {
  const org = await ports.store.getOrganization(organizationId);
  if (!org) throw new NotFoundError(`Organization ${organizationId}`);
  return org;
}

/**
 * PATCH /settings. Input: If-Match and a partial settings body; output: the organization
 * with its new settings.
 * 1. Read the organization (consistently); 404 if it does not exist.
 * 2. If-Match must be the current settings ETag (412 otherwise).
 * 3. Merge the given settings over the current ones (defaults where never set).
 * 4. Stage the organization at version + 1 (committed only if still at the version read,
 *    else 412) with the audit entry: setting names and their before/after values, no
 *    personal data. The kit commits it with the idempotency record in one transaction.
 */
export async function updateSettings(ports: OrganizationPorts, actor: Actor, ifMatch: string, patch: Partial<OrganizationSettings>): Promise<Organization> {
  const before = await readOrganization(ports, actor.principal.organizationId);
  assertEtag(ifMatch, settingsEtag(before));
  const now = ports.now().toISOString();
  const current = settingsOf(before);
  const settings: OrganizationSettings = { ...current, ...definedOnly(patch) };
  const after: Organization = { ...before, settings, version: versionOf(before) + 1, updatedAt: now };
  const changed = (Object.keys(settings) as (keyof OrganizationSettings)[]).filter((k) => settings[k] !== current[k]);
  ports.store.saveSettings({
    before,
    after,
    audit: auditEntry({
      id: ports.newId(),
      actor,
      occurredAt: now,
      action: 'organization.settings_updated',
      entity: { type: 'organization', id: before.id },
      before: { ...current },
      after: { ...settings },
      changedAttributes: changed,
    }),
  });
  return after;
}

/** A member the client did not send stays as it is. */
const definedOnly = (patch: Partial<OrganizationSettings>): Partial<OrganizationSettings> =>
  Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<OrganizationSettings>;
