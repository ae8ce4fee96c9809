import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../shared/ddb/client';
import { collectAll } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';

/**
 * Organizations and their capability facts. The `timesheet_corrections` capability needs
 * both the commercial entitlement and the rollout gate (organization-api.md, Authentication 4).
 * Settings live on the same item: one `version` covers settings and capability facts, so the
 * ETag of GET /settings changes whenever anything it shows changes (an operator's capability
 * change included).
 */
export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly entitlements: { readonly timesheetCorrections: boolean };
  readonly rolloutGates: { readonly timesheetCorrections: boolean };
  /** Absent until first changed: DEFAULT_SETTINGS apply. */
  readonly settings?: OrganizationSettings;
  /** Increases with every settings or capability change; 0 for an organization never changed. */
  readonly version?: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export type Weekday = 'MONDAY' | 'TUESDAY' | 'WEDNESDAY' | 'THURSDAY' | 'FRIDAY' | 'SATURDAY' | 'SUNDAY';

/** Presentation defaults for clients; the API itself always speaks RFC 3339 UTC. */
export interface OrganizationSettings {
  /** IANA time zone name (`Europe/Berlin`). */
  readonly timeZone: string;
  /** BCP 47 language tag, canonical form (`de-DE`). */
  readonly locale: string;
  readonly weekStartsOn: Weekday;
}

export const DEFAULT_SETTINGS: OrganizationSettings = { timeZone: 'UTC', locale: 'en', weekStartsOn: 'MONDAY' };

export const settingsOf = (org: Organization): OrganizationSettings => ({ ...DEFAULT_SETTINGS, ...org.settings });

export const versionOf = (org: Organization): number => org.version ?? 0;

const keys = {
  organization: (id: string) => ({ PK: `ORG#${id}`, SK: 'ORG' }),
  /** GSI1: every organization, for operators. */
  all: (createdAt: string, id: string) => ({ GSI1PK: 'ORGS', GSI1SK: `${createdAt}#${id}` }),
};

export const timesheetWritesEnabled = (org: Organization): boolean =>
  org.entitlements.timesheetCorrections && org.rolloutGates.timesheetCorrections;

const toItem = (org: Organization) => ({ ...keys.organization(org.id), ...keys.all(org.createdAt, org.id), itemType: 'Organization', ...org });

const fromItem = (item: Record<string, unknown>): Organization => ({
  id: item.id as string,
  name: item.name as string,
  entitlements: { timesheetCorrections: Boolean((item.entitlements as Record<string, unknown> | undefined)?.timesheetCorrections) },
  rolloutGates: { timesheetCorrections: Boolean((item.rolloutGates as Record<string, unknown> | undefined)?.timesheetCorrections) },
  ...(item.settings ? { settings: item.settings as OrganizationSettings } : {}),
  ...(typeof item.version === 'number' ? { version: item.version } : {}),
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
});

export async function putOrganization(db: Db, org: Organization): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: toItem(org) }));
}

/** `consistent`: read what the last write committed (before a conditional write, after If-Match). */
export async function getOrganization(db: Db, id: string, consistent = false): Promise<Organization | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: keys.organization(id), ConsistentRead: consistent }));
  return out.Item ? fromItem(out.Item) : undefined;
}

export async function listOrganizations(db: Db): Promise<Organization[]> {
  const items = await collectAll(db, { IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :all', ExpressionAttributeValues: { ':all': 'ORGS' } });
  return items.map(fromItem);
}

export interface CapabilityChange {
  readonly entitlement?: boolean;
  readonly rolloutGate?: boolean;
}

/** Also bumps `version`: GET /settings shows the capability, so its ETag must change with it. */
export async function setTimesheetCorrections(db: Db, id: string, change: CapabilityChange, now: string): Promise<Organization> {
  const sets = ['updatedAt = :now'];
  const values: Record<string, unknown> = { ':now': now, ':one': 1 };
  if (change.entitlement !== undefined) {
    sets.push('entitlements.timesheetCorrections = :entitled');
    values[':entitled'] = change.entitlement;
  }
  if (change.rolloutGate !== undefined) {
    sets.push('rolloutGates.timesheetCorrections = :gate');
    values[':gate'] = change.rolloutGate;
  }
  const out = await db.doc.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: keys.organization(id),
      UpdateExpression: `SET ${sets.join(', ')} ADD version :one`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return fromItem(out.Attributes ?? {});
}

export const CAPABILITY_LABEL = 'capability';

/**
 * A transaction item that holds only while the organization's timesheet capability is on,
 * so that a write and the gate turning off can never interleave.
 */
export const timesheetCapabilityCheck = (organizationId: string): TxItem => ({
  label: CAPABILITY_LABEL,
  op: {
    ConditionCheck: {
      Key: keys.organization(organizationId),
      ConditionExpression: 'entitlements.timesheetCorrections = :on AND rolloutGates.timesheetCorrections = :on',
      ExpressionAttributeValues: { ':on': true },
    },
  },
});

export const ORGANIZATION_LABEL = 'organization';

/**
 * Writes new settings, only if nothing changed the organization since it was read at
 * `expectedVersion` (settings and capability share the version; 0 = the attribute is absent).
 */
export function putSettingsItem(organizationId: string, settings: OrganizationSettings, expectedVersion: number, now: string): TxItem {
  return {
    label: ORGANIZATION_LABEL,
    op: {
      Update: {
        Key: keys.organization(organizationId),
        UpdateExpression: 'SET settings = :settings, updatedAt = :now, version = :next',
        ConditionExpression: expectedVersion === 0 ? 'attribute_exists(PK) AND attribute_not_exists(version)' : 'version = :expected',
        ExpressionAttributeValues: {
          ':settings': settings,
          ':now': now,
          ':next': expectedVersion + 1,
          ...(expectedVersion === 0 ? {} : { ':expected': expectedVersion }),
        },
      },
    },
  };
}
