import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { ApiEnvironment } from '../../services/shared/config';
import { AppTable } from '../constructs/app-table';
import { acknowledgeGuard, limitGrantsToAwsServices } from '../guard';

/** The bucket of export files: one per environment, account and region. */
export const reportsBucketName = (environment: ApiEnvironment): string => `wfm-${environment.toLowerCase()}-reports-${Aws.ACCOUNT_ID}-${Aws.REGION}`;

export interface DataStackProps extends StackProps {
  /** TEST or LIVE. */
  readonly apiEnvironment: ApiEnvironment;
  /**
   * Keep the table, the key and the secret when they leave the stack or the stack is deleted;
   * table deletion protection on.
   * @default - true for LIVE, false for TEST
   */
  readonly retainData?: boolean;
}

/**
 * The stateful half of an environment: the single table, the KMS key that seals restricted
 * evidence, and the secret that seals list cursors. Deployed apart from the functions and
 * APIs so that those can be replaced freely.
 */
export class DataStack extends Stack {
  readonly table: AppTable;
  readonly restrictedDataKey: Key;
  readonly cursorSecret: Secret;
  readonly reportsBucket: Bucket;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    const retain = props.retainData ?? props.apiEnvironment === 'LIVE';
    const removalPolicy = retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.table = new AppTable(this, 'Table', { retain });

    this.restrictedDataKey = new Key(this, 'RestrictedDataKey', {
      description: `WFM ${props.apiEnvironment}: envelope key of restricted evidence (precise coordinates)`,
      enableKeyRotation: true,
      removalPolicy,
      pendingWindow: retain ? Duration.days(30) : Duration.days(7),
    });

    limitGrantsToAwsServices(this.restrictedDataKey);

    this.cursorSecret = new Secret(this, 'CursorSecret', {
      description: `WFM ${props.apiEnvironment}: key material that seals list cursors`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
    Validations.of(this.cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Seals short-lived list cursors only: rotating it would just invalidate the cursors in flight (clients restart the listing); nothing stored depends on it. Rotate by hand if it leaks.',
    });

    // Export files are records (payroll dispatches, timesheets): private, encrypted, versioned,
    // TLS only, with server access logs in a bucket of their own.
    const accessLogs = new Bucket(this, 'ReportsAccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      removalPolicy,
      // A TEST stack can be deleted with its buckets; LIVE keeps them.
      autoDeleteObjects: !retain,
      lifecycleRules: [{ id: 'ExpireAccessLogs', expiration: retain ? Duration.days(365) : Duration.days(30) }],
    });
    this.reportsBucket = new Bucket(this, 'ReportsBucket', {
      // A known name: the api stack grants on `<name>/reports/*` without a cross-stack token,
      // and export records are never meant to be replaced.
      bucketName: reportsBucketName(props.apiEnvironment),
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'reports/',
      removalPolicy,
      autoDeleteObjects: !retain,
      lifecycleRules: [
        // A replaced export file stays recoverable for a while, then goes; unfinished
        // multipart uploads never linger.
        { id: 'ExpireNoncurrentVersions', noncurrentVersionExpiration: Duration.days(90), abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });

    acknowledgeGuard(accessLogs, 's3Kms', 's3Logging', 's3ObjectLock', 's3Versioning', 's3Notifications');
    acknowledgeGuard(this.reportsBucket, 's3Kms', 's3ObjectLock', 's3Notifications');
    // CDK's own provider that empties TEST buckets on delete.
    if (!retain) acknowledgeGuard(this, 'lambdaInVpc');

    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'The single DynamoDB table' });
    new CfnOutput(this, 'ReportsBucketName', { value: this.reportsBucket.bucketName, description: 'Export files' });
  }
}
