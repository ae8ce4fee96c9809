import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../shared/ddb/client';
import { collectAll, type PageProgress } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import { EtagMismatchError } from '../shared/errors';
import { versionOf, type OrganizationStore, type SettingsChange } from './domain';
import { organizationFromItem, organizationKeys, organizationToItem, type Organization } from './model';

/**
 * The DynamoDB adapter of the organization: the only place with its expressions and
 * conditions (keys and item shape: model.ts). Settings changes are staged in the request's
 * unit of work; the operator's writers (`npm run orgs`, the seed) write directly.
 */

export const ORGANIZATION_LABEL = 'organization';
export const CAPABILITY_LABEL = 'capability';

/** `consistent`: read what the last write committed (before a conditional write, after If-Match). */
export async function getOrganization(db: Db, id: string, consistent = false): Promise<Organization | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: organizationKeys.organization(id), ConsistentRead: consistent }));
  return out.Item ? organizationFromItem(out.Item) : undefined;
}

/** Every organization, oldest first (operators: `npm run orgs -- list`, `npm run consumers`). */
export async function listOrganizations(db: Db, onPage?: PageProgress): Promise<Organization[]> {
  const items = await collectAll(db, { IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :all', ExpressionAttributeValues: { ':all': organizationKeys.all().GSI1PK } }, onPage);
  return items.map(organizationFromItem);
}

/** Creates (or replaces) an organization: operators and the seed only, never an API route. */
export async function putOrganization(db: Db, org: Organization): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: organizationToItem(org) }));
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
      Key: organizationKeys.organization(id),
      UpdateExpression: `SET ${sets.join(', ')} ADD version :one`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return organizationFromItem(out.Attributes ?? {});
}

/**
 * A transaction item that holds only while the organization's timesheet capability is on,
 * so that a write and the gate turning off can never interleave (timesheets' writes carry it).
 */
export const timesheetCapabilityCheck = (organizationId: string): TxItem => ({
  label: CAPABILITY_LABEL,
  op: {
    ConditionCheck: {
      Key: organizationKeys.organization(organizationId),
      ConditionExpression: 'entitlements.timesheetCorrections = :on AND rolloutGates.timesheetCorrections = :on',
      ExpressionAttributeValues: { ':on': true },
    },
  },
});

/**
 * Stages new settings, only if nothing changed the organization since it was read (settings
 * and capability share the version; 0 = the attribute is absent). An Update, not a Put: the
 * capability facts on the item are the operator's, never rewritten from a read.
 * A failed condition is 412: If-Match is required and is that version, so a version that
 * moved means the client's ETag is stale (no re-read could make it match again).
 */
export function saveSettings(unit: UnitOfWork, change: SettingsChange): void {
  const expected = versionOf(change.before);
  const { after } = change;
  unit.stage({
    items: [
      {
        label: ORGANIZATION_LABEL,
        op: {
          Update: {
            Key: organizationKeys.organization(after.id),
            UpdateExpression: 'SET settings = :settings, updatedAt = :now, version = :next',
            ConditionExpression: expected === 0 ? 'attribute_exists(PK) AND attribute_not_exists(version)' : 'version = :expected',
            ExpressionAttributeValues: {
              ':settings': after.settings,
              ':now': after.updatedAt,
              ':next': expected + 1,
              ...(expected === 0 ? {} : { ':expected': expected }),
            },
          },
        },
      },
    ],
    audit: change.audit,
    explain: (error) => (error.failed(ORGANIZATION_LABEL) ? new EtagMismatchError() : undefined),
  });
}

/** The organization store port on DynamoDB, staging writes in `unit`. */
export const organizationStore = (db: Db, unit: UnitOfWork): OrganizationStore => ({
  getOrganization: (id) => getOrganization(db, id, true),
  saveSettings: (change) => saveSettings(unit, change),
});
