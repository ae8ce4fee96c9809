import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { REPORT_WORKER_CONCURRENCY } from '../../lib/stacks/api-stack';
import { Match } from 'aws-cdk-lib/assertions';
import { assetCode } from '../../lib/constructs/bundling';
import { logicalIdOf, resourcesOf, synthesize } from './fixture';

/** Issue 5 in the stack: a queue feeds the worker; files live in a private, encrypted bucket. */
const built = synthesize({ env: 'test' }, { bundled: true });
const live = synthesize({ env: 'live' }, { bundled: true });

describe('reports pipeline', () => {
  it('keeps export files in a private, encrypted, versioned, TLS-only bucket with access logs, retained in LIVE', () => {
    built.dataTemplate.hasResourceProperties('AWS::S3::Bucket', {
      BucketName: { 'Fn::Join': ['', ['wfm-test-reports-', { Ref: 'AWS::AccountId' }, '-', { Ref: 'AWS::Region' }]] },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      VersioningConfiguration: { Status: 'Enabled' },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'reports/' }),
    });
    built.dataTemplate.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    const liveBuckets = Object.values(resourcesOf(live.dataTemplate, 'AWS::S3::Bucket'));
    expect(liveBuckets.every((b) => b.DeletionPolicy === 'RetainExceptOnCreate')).toBe(true);
  });

  it('queues jobs on an encrypted, TLS-only queue with a dead-letter queue after 3 deliveries', () => {
    const queues = resourcesOf(built.apiTemplate, 'AWS::SQS::Queue');
    const main = Object.entries(queues).find(([id, q]) => id.includes('ReportsQueue') && q.Properties?.RedrivePolicy)?.[1];
    // Six times the worker's 300 s timeout, as AWS recommends for Lambda event sources.
    expect(main?.Properties).toMatchObject({ SqsManagedSseEnabled: true, VisibilityTimeout: 1800, RedrivePolicy: { maxReceiveCount: 3 } });
    const dlqId = logicalIdOf(main?.Properties?.RedrivePolicy.deadLetterTargetArn);
    expect(queues[dlqId!].Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 1_209_600 });
    expect(Object.keys(resourcesOf(built.apiTemplate, 'AWS::SQS::QueuePolicy')).filter((id) => id.includes('.Reports'))).toHaveLength(2);
  });

  it('runs the worker from the queue one message at a time, reporting partial failures', () => {
    built.apiTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      // A burst of exports waits in the queue instead of taking the account's concurrency.
      ScalingConfig: { MaximumConcurrency: REPORT_WORKER_CONCURRENCY },
    });
  });

  it('lets the reports function and the sweeper send to the queue and the worker consume it, and no one else', () => {
    const policies = Object.values(resourcesOf(built.apiTemplate, 'AWS::IAM::Policy'))
      .map((p) => JSON.stringify(p.Properties))
      .filter((p) => p.includes('ReportsQueue'));
    const sending = policies.filter((p) => p.includes('sqs:SendMessage'));
    const receiving = policies.filter((p) => p.includes('sqs:ReceiveMessage'));
    expect(sending).toHaveLength(2);
    expect(receiving).toHaveLength(1);
    expect(sending.find((p) => p.includes('ReportsFunctionRole'))).toBeDefined();
    expect(sending.find((p) => p.includes('ReportsSweeperFunctionRole'))).toBeDefined();
    expect(receiving[0]).toContain('ReportsWorkerFunctionRole');
  });

  it('runs the sweeper every minute, with the queue URL', () => {
    const rules = Object.values(resourcesOf(built.apiTemplate, 'AWS::Events::Rule'));
    const sweep = rules.find((r) => r.Properties?.ScheduleExpression === 'rate(1 minute)');
    expect(sweep).toBeDefined();
    expect(JSON.stringify(sweep?.Properties?.Targets)).toContain('ReportsSweeperFunction');
    const sweeper = Object.values(resourcesOf(built.apiTemplate, 'AWS::Lambda::Function')).find((f) => JSON.stringify(f.Properties?.Description ?? '').includes('stranded'));
    expect(Object.keys(sweeper?.Properties?.Environment?.Variables ?? {})).toContain('REPORTS_QUEUE_URL');
  });

  it('bundles pdf-lib, fontkit and the fonts with the worker only, never with the reports API function (issue 21) or the sweeper (issue 18)', () => {
    const assetDir = (name: string) => {
      const fn = built.api.functions[name as keyof typeof built.api.functions];
      return join(built.assembly.directory, (fn.node.findChild('Code') as Asset).assetPath);
    };
    const worker = assetDir('reports-worker');
    expect(readdirSync(worker)).toEqual(expect.arrayContaining(['index.mjs', 'DejaVuSans.ttf', 'DejaVuSans-Bold.ttf']));
    // pdf-lib writes this header into every PDF; fontkit names its subsetting classes.
    const marker = /%PDF-|registerFontkit/;
    expect(assetCode(worker)).toMatch(marker);
    const api = assetDir('reports');
    expect(readdirSync(api).filter((f) => f.endsWith('.ttf'))).toEqual([]);
    expect(assetCode(api)).not.toMatch(marker);
    const sweeper = assetDir('reports-sweeper');
    expect(readdirSync(sweeper).filter((f) => f.endsWith('.ttf'))).toEqual([]);
    expect(assetCode(sweeper)).not.toMatch(marker);
  });

  it('never passes file bytes through the gateway: downloads are presigned S3 GETs (issue 12, item 1)', () => {
    for (const api of Object.values(resourcesOf(built.apiTemplate, 'AWS::ApiGateway::RestApi'))) expect(api.Properties?.BinaryMediaTypes).toBeUndefined();
  });
});

describe('integrations pipeline', () => {
  it('feeds the integrations worker from its own encrypted queue with a dead-letter queue, swept every minute', () => {
    const queues = resourcesOf(built.apiTemplate, 'AWS::SQS::Queue');
    const main = Object.entries(queues).find(([id]) => id.includes('IntegrationsQueue'))?.[1];
    expect(main?.Properties).toMatchObject({ SqsManagedSseEnabled: true, VisibilityTimeout: 360, RedrivePolicy: { maxReceiveCount: 5 } });
    const policies = Object.values(resourcesOf(built.apiTemplate, 'AWS::IAM::Policy'))
      .map((p) => JSON.stringify(p.Properties))
      .filter((p) => p.includes('IntegrationsQueue'));
    const sending = policies.filter((p) => p.includes('sqs:SendMessage'));
    expect(sending).toHaveLength(3);
    for (const role of ['IntegrationsFunctionRole', 'IntegrationsWorkerFunctionRole', 'IntegrationsSweeperFunctionRole']) expect(sending.find((p) => p.includes(role))).toBeDefined();
    const receiving = policies.filter((p) => p.includes('sqs:ReceiveMessage'));
    expect(receiving).toHaveLength(1);
    expect(receiving[0]).toContain('IntegrationsWorkerFunctionRole');
    const rules = Object.values(resourcesOf(built.apiTemplate, 'AWS::Events::Rule'));
    expect(rules.some((r) => JSON.stringify(r.Properties?.Targets).includes('IntegrationsSweeperFunction'))).toBe(true);
  });

  it('keeps provider credentials under wfm/<env>/integrations/ in Secrets Manager: the API writes, the worker reads', () => {
    const policies = Object.values(resourcesOf(built.apiTemplate, 'AWS::IAM::Policy')).map((p) => JSON.stringify(p.Properties));
    const secretStore = policies.filter((p) => p.includes(':secret:wfm/test/integrations/*'));
    expect(secretStore).toHaveLength(2);
    expect(secretStore.find((p) => p.includes('IntegrationsFunctionRole'))).toMatch(/secretsmanager:CreateSecret.*secretsmanager:PutSecretValue/);
    expect(secretStore.find((p) => p.includes('IntegrationsWorkerFunctionRole'))).toContain('secretsmanager:GetSecretValue');
  });

  it('bundles the worker (provider client, export files on S3) with the worker only, not with the API or the sweeper (issue 18)', () => {
    const code = (name: 'integrations' | 'integrations-worker' | 'integrations-sweeper') =>
      assetCode(join(built.assembly.directory, (built.api.functions[name].node.findChild('Code') as Asset).assetPath));
    // The S3 client names its base exception; only the worker reads the export files.
    expect(code('integrations-worker')).toContain('S3ServiceException');
    expect(code('integrations')).not.toContain('S3ServiceException');
    expect(code('integrations-sweeper')).not.toContain('S3ServiceException');
  });
});
