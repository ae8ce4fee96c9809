import { resourcesOf, synthesize } from './fixture';

/** Data hygiene and the ways in (issue 12, "Data hygiene"). */
const test = synthesize({ env: 'test' });
const live = synthesize({ env: 'live' });

const buckets = (built: typeof test) => Object.values(resourcesOf(built.dataTemplate, 'AWS::S3::Bucket')).map((b) => b.Properties ?? {});
const reportsBucket = (built: typeof test) => buckets(built).find((b) => b.VersioningConfiguration)!;
const accessLogBucket = (built: typeof test) => buckets(built).find((b) => !b.VersioningConfiguration)!;

describe('buckets', () => {
  it('expire replaced export versions after 90 days and abort unfinished uploads after a day', () => {
    for (const built of [test, live]) {
      expect(reportsBucket(built).LifecycleConfiguration.Rules).toEqual([
        expect.objectContaining({ Status: 'Enabled', NoncurrentVersionExpiration: { NoncurrentDays: 90 }, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
      ]);
    }
  });

  it('expire access logs after 30 days in TEST and a year in LIVE', () => {
    expect(accessLogBucket(test).LifecycleConfiguration.Rules).toEqual([expect.objectContaining({ ExpirationInDays: 30 })]);
    expect(accessLogBucket(live).LifecycleConfiguration.Rules).toEqual([expect.objectContaining({ ExpirationInDays: 365 })]);
  });

  it('empty themselves when a TEST stack is deleted, never in LIVE', () => {
    // One per bucket of the data stack (export files, their access logs, documents).
    const buckets = Object.keys(resourcesOf(test.dataTemplate, 'AWS::S3::Bucket'));
    expect(buckets.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(resourcesOf(test.dataTemplate, 'Custom::S3AutoDeleteObjects'))).toHaveLength(buckets.length);
    expect(Object.keys(resourcesOf(live.dataTemplate, 'Custom::S3AutoDeleteObjects'))).toHaveLength(0);
  });
});

describe('stacks', () => {
  it('carry the project and environment tags, for CloudFormation to put on every resource', () => {
    for (const built of [test, live]) {
      for (const stack of [built.data, built.api]) {
        const tags = built.assembly.getStackArtifact(stack.artifactId).tags;
        expect(tags).toEqual({ project: 'wfm-organization-api', environment: built.environment.name });
      }
    }
  });

  it('give the two REST APIs distinct names', () => {
    const names = Object.values(resourcesOf(test.apiTemplate, 'AWS::ApiGateway::RestApi')).map((r) => r.Properties?.Name);
    expect(names.sort()).toEqual(['WfmTestApi-public', 'WfmTestApi-scim']);
  });
});

describe('ways in', () => {
  it('turn off the public execute-api URL behind a custom domain, and keep the one the SCIM forward uses', () => {
    const withDomain = synthesize({ env: 'test', domainName: 'api.test.example.com', certificateArn: 'arn:aws:acm:eu-central-1:111111111111:certificate/abc' });
    const apis = Object.values(resourcesOf(withDomain.apiTemplate, 'AWS::ApiGateway::RestApi')).map((r) => r.Properties ?? {});
    expect(apis.find((a) => a.Name.endsWith('-public'))?.DisableExecuteApiEndpoint).toBe(true);
    expect(apis.find((a) => a.Name.endsWith('-scim'))?.DisableExecuteApiEndpoint).toBe(false);
    const plain = Object.values(resourcesOf(test.apiTemplate, 'AWS::ApiGateway::RestApi')).map((r) => r.Properties?.DisableExecuteApiEndpoint);
    expect(plain).toEqual([false, false]);
  });

  it('let only the scan channel named by context invoke evidence-ingest', () => {
    const invoker = 'arn:aws:iam::111111111111:role/scan-channel';
    const withInvoker = synthesize({ env: 'test', evidenceInvokerArn: invoker });
    const grants = Object.values(resourcesOf(withInvoker.apiTemplate, 'AWS::Lambda::Permission')).filter((p) => p.Properties?.Principal === invoker);
    expect(grants).toHaveLength(1);
    expect(grants[0].Properties?.Action).toBe('lambda:InvokeFunction');
    expect(Object.values(resourcesOf(test.apiTemplate, 'AWS::Lambda::Permission')).filter((p) => String(p.Properties?.Principal).startsWith('arn:aws:iam'))).toEqual([]);
  });
});
