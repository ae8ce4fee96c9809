import { Match, Template } from 'aws-cdk-lib/assertions';
import { AppTable } from '../../lib/constructs/app-table';
import { DataStack } from '../../lib/stacks/data-stack';
import { TABLE_SPEC } from '../../services/shared/ddb/table-spec';
import { freshApp, freshStack, resourcesOf } from './fixture';

const dataTemplate = (apiEnvironment: 'TEST' | 'LIVE'): Template =>
  Template.fromStack(new DataStack(freshApp(), `Data${apiEnvironment}`, { apiEnvironment }));

describe('AppTable', () => {
  it('builds the key schema, every GSI and the TTL attribute from TABLE_SPEC', () => {
    const template = Template.fromStack(tableStack());
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: TABLE_SPEC.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_SPEC.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: TABLE_SPEC.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      TimeToLiveSpecification: { AttributeName: TABLE_SPEC.timeToLiveAttribute, Enabled: true },
    });
  });

  it('declares every key attribute as a string', () => {
    const template = Template.fromStack(tableStack());
    const names = [TABLE_SPEC.partitionKey, TABLE_SPEC.sortKey, ...TABLE_SPEC.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey])];
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      AttributeDefinitions: Match.arrayWith(names.map((name) => ({ AttributeName: name, AttributeType: 'S' }))),
    });
  });

  it('bills on demand, with point-in-time recovery and explicit server-side encryption', () => {
    const template = Template.fromStack(tableStack());
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
      Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
    });
  });

  it('lets the table name be generated', () => {
    const template = Template.fromStack(tableStack());
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { TableName: Match.absent() });
  });

  it('lists one ARN per index, never an index wildcard', () => {
    expect(AppTable.indexArns('arn:t')).toEqual(TABLE_SPEC.globalSecondaryIndexes.map((i) => `arn:t/index/${i.indexName}`));
  });
});

describe('DataStack', () => {
  it('keeps the table in the construct ID `Table`, whose logical id must never change', () => {
    const template = dataTemplate('LIVE');
    expect(Object.keys(resourcesOf(template, 'AWS::DynamoDB::GlobalTable'))).toEqual([expect.stringMatching(/^Table[0-9A-F]{8}$/)]);
  });

  it('retains LIVE data on delete and replacement, but not when its first create rolls back (RetainExceptOnCreate: a retry would meet the fixed names): deletion protection on', () => {
    const template = dataTemplate('LIVE');
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })] }),
    });
    template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'RetainExceptOnCreate' });
    template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'RetainExceptOnCreate' });
  });

  it('lets TEST data go with the stack: no deletion protection, DeletionPolicy Delete', () => {
    const template = dataTemplate('TEST');
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })] }),
    });
    template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Delete' });
  });

  it('creates the restricted-data key with yearly rotation', () => {
    dataTemplate('LIVE').hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  it('generates the cursor secret instead of taking it as a parameter', () => {
    dataTemplate('TEST').hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
      SecretString: Match.absent(),
    });
  });

  it('backs LIVE data up beyond point-in-time recovery: daily (35 days) and monthly (a year) to a retained vault of its own; TEST has no plan', () => {
    const live = dataTemplate('LIVE');
    live.resourceCountIs('AWS::Backup::BackupVault', 1);
    live.hasResource('AWS::Backup::BackupVault', { DeletionPolicy: 'RetainExceptOnCreate' });
    const plan = Object.values(live.findResources('AWS::Backup::BackupPlan'))[0].Properties.BackupPlan;
    expect(plan.BackupPlanRule.map((r: { RuleName: string; Lifecycle: { DeleteAfterDays: number } }) => [r.RuleName, r.Lifecycle.DeleteAfterDays])).toEqual([
      ['Daily', 35],
      ['Monthly', 365],
    ]);
    const selection = Object.values(live.findResources('AWS::Backup::BackupSelection'))[0].Properties.BackupSelection;
    expect(JSON.stringify(selection.Resources)).toContain('Table');
    dataTemplate('TEST').resourceCountIs('AWS::Backup::BackupPlan', 0);
  });

  it('lets retainData override the environment default', () => {
    const template = Template.fromStack(new DataStack(freshApp(), 'Kept', { apiEnvironment: 'TEST', retainData: true }));
    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'RetainExceptOnCreate' });
  });
});

function tableStack() {
  const stack = freshStack();
  new AppTable(stack, 'Table');
  return stack;
}
