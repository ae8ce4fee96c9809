import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { BackupPlan, BackupPlanRule, BackupResource, BackupVault } from 'aws-cdk-lib/aws-backup';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership, type CorsRule } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct, Node } from 'constructs';
import type { ApiEnvironment } from '../../services/shared/config';
import { AppTable } from '../constructs/app-table';
import { acknowledgeGuard, GUARD_PLUGIN, GUARD_RULES, limitGrantsToAwsServices } from '../guard';

/** The bucket of export files: one per environment, account and region. */
export const reportsBucketName = (environment: ApiEnvironment): string => `wfm-${environment.toLowerCase()}-reports-${Aws.ACCOUNT_ID}-${Aws.REGION}`;

/** How cdk-nag prints the export files' bucket name in a finding id (tokens as `<AWS::AccountId>`). */
export const reportsBucketNagName = (environment: ApiEnvironment): string => `wfm-${environment.toLowerCase()}-reports-<AWS::AccountId>-<AWS::Region>`;

/** The bucket of documents (uploaded files): one per environment, account and region. */
export const documentsBucketName = (environment: ApiEnvironment): string => `wfm-${environment.toLowerCase()}-documents-${Aws.ACCOUNT_ID}-${Aws.REGION}`;

/** How cdk-nag prints that name in a finding id (tokens as `<AWS::AccountId>`). */
export const documentsBucketNagName = (environment: ApiEnvironment): string => `wfm-${environment.toLowerCase()}-documents-<AWS::AccountId>-<AWS::Region>`;

/** Key prefixes of the documents bucket: presigned uploads land in `uploads/`, verified files live in `documents/`. */
export const DOCUMENT_PREFIXES = { uploads: 'uploads/', documents: 'documents/' } as const;

/** Abandoned or rejected uploads are gone after this many days (the lifecycle rule on `uploads/`). */
export const ABANDONED_UPLOAD_DAYS = 1;

/** The context key naming the browser origins allowed to PUT and GET documents (`-c documentsCorsOrigins=https://app.example.com,https://admin.example.com`). */
export const DOCUMENTS_CORS_CONTEXT = 'documentsCorsOrigins';

const ORIGIN = /^https:\/\/[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+(:\d{1,5})?$/;

/**
 * The allowed browser origins of the documents bucket from context: a comma-separated string
 * or a list, each an https origin without path or wildcard (anything else fails the synth).
 * None by default: then the bucket has no CORS rule and browsers cannot use the presigned
 * URLs (servers and curl can: CORS binds browsers only).
 */
export function documentsCorsOriginsFromContext(node: Pick<Node, 'tryGetContext'>): string[] {
  const raw: unknown = node.tryGetContext(DOCUMENTS_CORS_CONTEXT);
  if (raw === undefined || raw === null || raw === '') return [];
  const list = Array.isArray(raw) ? raw : String(raw).split(',');
  const origins = list.map((o) => String(o).trim().toLowerCase()).filter((o) => o !== '');
  const bad = origins.filter((o) => !ORIGIN.test(o));
  if (bad.length > 0) throw new Error(`${DOCUMENTS_CORS_CONTEXT}: ${bad.join(', ')} is not an https origin such as https://app.example.com (no path, no wildcard).`);
  return [...new Set(origins)];
}

/**
 * The CORS rule of the documents bucket for browser uploads (presigned PUT with the signed
 * Content-Type and x-amz-checksum-sha256) and downloads (presigned GET, HEAD); undefined
 * without origins.
 */
export function documentsCorsRules(origins: readonly string[]): CorsRule[] | undefined {
  if (origins.length === 0) return undefined;
  return [
    {
      id: 'BrowserPresignedUploadsAndDownloads',
      allowedOrigins: [...origins],
      allowedMethods: [HttpMethods.PUT, HttpMethods.GET, HttpMethods.HEAD],
      allowedHeaders: ['content-type', 'x-amz-checksum-sha256', 'x-amz-sdk-checksum-algorithm'],
      exposedHeaders: ['ETag', 'Content-Disposition', 'Content-Length', 'Content-Type', 'x-amz-checksum-sha256'],
      maxAge: 3000,
    },
  ];
}

export interface DataStackProps extends StackProps {
  /** TEST or LIVE. */
  readonly apiEnvironment: ApiEnvironment;
  /**
   * Keep the table, the key and the secret when they leave the stack or the stack is deleted;
   * table deletion protection on.
   * @default - true for LIVE, false for TEST
   */
  readonly retainData?: boolean;
  /**
   * Browser origins (https, exact) that may PUT uploads to and GET documents from the
   * documents bucket with presigned URLs.
   * @default - none: no CORS rule (see documentsCorsOriginsFromContext)
   */
  readonly documentsCorsOrigins?: readonly string[];
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
  readonly documentsBucket: Bucket;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    const retain = props.retainData ?? props.apiEnvironment === 'LIVE';
    const removalPolicy = retain ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY;

    this.table = new AppTable(this, 'Table', { retain });
    // Point-in-time recovery reaches back 35 days; the audit trail and payroll history must
    // outlive that, and survive a mistake at the table's level: kept data gets daily backups
    // (kept 35 days) and monthly ones (kept a year) in a vault of its own (AWS Backup).
    if (retain) {
      const vault = new BackupVault(this, 'BackupVault', { removalPolicy });
      const plan = new BackupPlan(this, 'BackupPlan', {
        backupVault: vault,
        backupPlanRules: [
          new BackupPlanRule({ ruleName: 'Daily', scheduleExpression: Schedule.cron({ hour: '3', minute: '0' }), deleteAfter: Duration.days(35) }),
          new BackupPlanRule({ ruleName: 'Monthly', scheduleExpression: Schedule.cron({ day: '1', hour: '4', minute: '0' }), deleteAfter: Duration.days(365) }),
        ],
      });
      const selection = plan.addSelection('Table', { resources: [BackupResource.fromDynamoDbTable(this.table)] });
      Validations.of(selection.node.findChild('Role')).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
        reason: 'The role AWS Backup assumes to back the table up; AWS documents and maintains this managed policy for it (it follows the service as it supports new resource types), and the selection limits what is backed up to the table.',
      });
    }

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

    // Documents: private, encrypted, versioned, TLS only, access-logged. Bytes arrive by
    // presigned PUT under uploads/ and move to documents/ only once their size and checksum
    // were verified; whatever stays under uploads/ (abandoned, rejected) expires.
    this.documentsBucket = new Bucket(this, 'DocumentsBucket', {
      bucketName: documentsBucketName(props.apiEnvironment),
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'documents/',
      cors: documentsCorsRules(props.documentsCorsOrigins ?? []),
      removalPolicy,
      autoDeleteObjects: !retain,
      lifecycleRules: [
        { id: 'ExpireAbandonedUploads', prefix: DOCUMENT_PREFIXES.uploads, expiration: Duration.days(ABANDONED_UPLOAD_DAYS), noncurrentVersionExpiration: Duration.days(1) },
        { id: 'ExpireNoncurrentVersions', noncurrentVersionExpiration: Duration.days(30), abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    const guardReasons = {
      s3Kms: 'S3-managed encryption (SSE-S3): access is IAM-scoped to the uploads/ and documents/ prefixes of the documents function, and a customer key would add a KMS grant that every presigned URL holder would need too.',
      s3ObjectLock: 'Documents are archived in DynamoDB, never overwritten in place, and TEST must be deletable; Object Lock would forbid deleting a TEST stack and abandoned uploads could not expire.',
      s3Notifications: 'Uploads are verified by the explicit completion call (size and checksum), which commits the document state in one transaction; an S3 event would be a second, racing path.',
    } as const;
    for (const [rule, reason] of Object.entries(guardReasons)) {
      Validations.of(this.documentsBucket).acknowledge({ id: `${GUARD_PLUGIN}::${GUARD_RULES[rule as keyof typeof guardReasons]}`, reason });
    }

    acknowledgeGuard(accessLogs, 's3Kms', 's3Logging', 's3ObjectLock', 's3Versioning', 's3Notifications');
    acknowledgeGuard(this.reportsBucket, 's3Kms', 's3ObjectLock', 's3Notifications');
    // CDK's own provider that empties TEST buckets on delete.
    if (!retain) acknowledgeGuard(this, 'lambdaInVpc');

    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'The single DynamoDB table' });
    new CfnOutput(this, 'DocumentsBucketName', { value: this.documentsBucket.bucketName, description: 'Documents (presigned uploads and downloads)' });
    new CfnOutput(this, 'ReportsBucketName', { value: this.reportsBucket.bucketName, description: 'Export files' });
  }
}
