import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../shared/ddb/client';
import type { TxItem } from '../shared/ddb/transaction';

/**
 * Organizations and their capability facts. The `timesheet_corrections` capability needs
 * both the commercial entitlement and the rollout gate (organization-api.md, Authentication 4).
 */
export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly entitlements: { readonly timesheetCorrections: boolean };
  readonly rolloutGates: { readonly timesheetCorrections: boolean };
  readonly createdAt: string;
  readonly updatedAt: string;
}

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
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
});

export async function putOrganization(db: Db, org: Organization): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: toItem(org) }));
}

export async function getOrganization(db: Db, id: string): Promise<Organization | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: keys.organization(id) }));
  return out.Item ? fromItem(out.Item) : undefined;
}

export async function listOrganizations(db: Db): Promise<Organization[]> {
  const items: Organization[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.doc.send(
      new QueryCommand({
        TableName: db.tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :all',
        ExpressionAttributeValues: { ':all': 'ORGS' },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []).map(fromItem));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

export interface CapabilityChange {
  readonly entitlement?: boolean;
  readonly rolloutGate?: boolean;
}

export async function setTimesheetCorrections(db: Db, id: string, change: CapabilityChange, now: string): Promise<Organization> {
  const sets = ['updatedAt = :now'];
  const values: Record<string, unknown> = { ':now': now };
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
      UpdateExpression: `SET ${sets.join(', ')}`,
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
