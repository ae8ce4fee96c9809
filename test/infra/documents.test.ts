import { Match } from 'aws-cdk-lib/assertions';
import { ABANDONED_UPLOAD_DAYS } from '../../lib/stacks/data-stack';
import { FUNCTION_NAMES, FUNCTION_PERMISSIONS } from '../../lib/permissions';
import { logicalIdOf, resourcesOf, synthesize } from './fixture';

/** Issue 14 in the stack: a private, encrypted documents bucket that only the documents function reaches. */
const built = synthesize({ env: 'test' });
const documentsBucketName = { 'Fn::Join': ['', ['wfm-test-documents-', { Ref: 'AWS::AccountId' }, '-', { Ref: 'AWS::Region' }]] };

describe('documents bucket', () => {
  it('is private, encrypted, versioned and access-logged, and lets abandoned uploads expire', () => {
    built.dataTemplate.hasResourceProperties('AWS::S3::Bucket', {
      BucketName: documentsBucketName,
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      VersioningConfiguration: { Status: 'Enabled' },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'documents/' }),
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Id: 'ExpireAbandonedUploads', Prefix: 'uploads/', ExpirationInDays: ABANDONED_UPLOAD_DAYS, Status: 'Enabled' }),
          Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
        ]),
      },
    });
  });

  it('allows TLS only', () => {
    const buckets = resourcesOf(built.dataTemplate, 'AWS::S3::Bucket');
    const id = Object.keys(buckets).find((k) => JSON.stringify(buckets[k].Properties?.BucketName) === JSON.stringify(documentsBucketName))!;
    const policy = Object.values(resourcesOf(built.dataTemplate, 'AWS::S3::BucketPolicy')).find((p) => logicalIdOf(p.Properties?.Bucket) === id);
    expect(policy?.Properties?.PolicyDocument.Statement).toEqual(expect.arrayContaining([expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]));
  });

  it('is granted to the documents function only, objects per prefix, and the bucket only to list those prefixes', () => {
    expect(FUNCTION_NAMES.filter((n) => FUNCTION_PERMISSIONS[n].documentsBucket)).toEqual(['documents']);
    const policies = Object.entries(resourcesOf(built.apiTemplate, 'AWS::IAM::Policy')).filter(([, p]) => JSON.stringify(p.Properties).includes('-documents-'));
    expect(policies).toHaveLength(1);
    expect(policies[0][0]).toMatch(/DocumentsFunctionRole/);
    const statements = (policies[0][1].Properties?.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: { StringLike?: Record<string, string[]> } }[]).filter((s) => JSON.stringify(s.Resource).includes('-documents-'));
    const objectStatements = statements.filter((s) => !JSON.stringify(s.Action).includes('s3:ListBucket'));
    const grants = objectStatements.flatMap((s) => [s.Resource].flat().map((r) => [JSON.stringify(r).match(/\/(uploads|documents)\/\*/)?.[1], [s.Action].flat().sort()]));
    expect(grants.sort()).toEqual([
      ['documents', ['s3:GetObject', 's3:PutObject']],
      ['uploads', ['s3:GetObject', 's3:PutObject']],
    ]);
    // Listing (so that a missing key is 404, not 403) is the only grant on the bucket itself, and only under the two prefixes.
    const listing = statements.filter((s) => JSON.stringify(s.Action).includes('s3:ListBucket'));
    expect(listing.map((s) => [s.Action, s.Condition?.StringLike?.['s3:prefix']]).sort()).toEqual([
      ['s3:ListBucket', ['documents/*']],
      ['s3:ListBucket', ['uploads/*']],
    ]);
    const fn = Object.entries(resourcesOf(built.apiTemplate, 'AWS::Lambda::Function')).find(([id]) => /DocumentsFunction[0-9A-F]{8}$/.test(id))!;
    expect(fn[1].Properties?.Environment.Variables.DOCUMENTS_BUCKET).toEqual(documentsBucketName);
  });
});
