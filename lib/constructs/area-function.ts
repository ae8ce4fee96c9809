import { existsSync } from 'node:fs';
import { Aws, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { SECRET_STORE_PREFIX_ENV } from '../../services/shared/aws/secrets';
import { ENV, METRICS_NAMESPACE, type ApiEnvironment } from '../../services/shared/config';
import { READABLE_PURPOSES, RESTRICTED_PURPOSES } from '../../services/shared/crypto/purposes';
import { dynamoDbAction, secretStoreActions, type ObjectGrant, type TableAction } from '../permissions';
import { fromRoot, handlerEntry } from '../paths';
import { acknowledgeGuard } from '../guard';
import { acknowledgeLogGroup } from './api';
import { AppTable } from './app-table';
import { functionCode } from './bundling';
import { sdkTracingWanted, TracerLayer } from './tracer-layer';

export interface AreaFunctionProps {
  /** The function's registry name, e.g. `timesheets` (kebab-case). */
  readonly name: string;
  /**
   * The module exporting `handler`, from the project root.
   * @default `services/<name>/handler.ts`
   */
  readonly entry?: string;
  /** TEST or LIVE: the environment of the host this function serves (API_ENVIRONMENT). */
  readonly apiEnvironment: ApiEnvironment;
  /**
   * Powertools service name, the `service` of every log line.
   * @default `wfm-<name>`
   */
  readonly serviceName?: string;
  /**
   * How long the function's log group keeps events.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the log group when it leaves the stack.
   * @default RemovalPolicy.DESTROY
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * @default Duration.seconds(10)
   */
  readonly timeout?: Duration;
  /**
   * @default 1024 - more memory is more CPU: cold starts and crypto finish sooner
   */
  readonly memorySize?: number;
  /**
   * @default - no description
   */
  readonly description?: string;
  /**
   * Files copied beside the bundled handler (read at run time from LAMBDA_TASK_ROOT): file
   * name -> path from the project root.
   * @default - none
   */
  readonly assets?: Readonly<Record<string, string>>;
}

/**
 * A Lambda function of this project: `services/<name>/handler.ts` bundled by the local
 * esbuild (never Docker) into a minified ESM entry with source maps and the chunks it loads
 * on demand (lib/constructs/bundling.ts), everything included (the AWS SDK too, so its
 * version is the lockfile's, not the runtime's), on Node.js 22
 * arm64 with X-Ray active tracing (the code adds its SDK subsegments through
 * services/shared/observability.ts), EMF metrics in the `WFM` namespace and its own log group.
 *
 * Permissions start empty: the `bind*` helpers set the environment variable the code reads
 * and grant exactly what lib/permissions.ts lists.
 */
export class AreaFunction extends LambdaFunction {
  constructor(scope: Construct, id: string, props: AreaFunctionProps) {
    if (!/^[a-z][a-z0-9-]*$/.test(props.name)) {
      throw new Error(`AreaFunction ${id}: name must be a services/ folder name in kebab-case, got "${props.name}".`);
    }
    const assets = Object.entries(props.assets ?? {});
    for (const [name, from] of assets) {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || !existsSync(fromRoot(from))) {
        throw new Error(`AreaFunction ${id}: asset "${name}" must be a plain file name and ${from} must exist (npm ci installs it).`);
      }
    }
    // Created beside the function because a subclass cannot add children before super().
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    // Our own role instead of the AWSLambdaBasicExecutionRole managed policy: writes to this
    // function's log group only.
    const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    // SDK-level tracing only on request (-c sdkTracing=true): the Tracer then comes from a layer.
    const sdkTracing = sdkTracingWanted(scope);

    super(scope, id, {
      code: functionCode(handlerEntry(props), props.assets),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      ...(sdkTracing ? { layers: [TracerLayer.of(scope)] } : {}),
      role,
      logGroup,
      description: props.description,
      environment: {
        // No --enable-source-maps: Node would parse the bundle's maps (~1.7 MB) at every cold
        // start, ~15 ms; the maps stay beside the code for `npm run symbolicate` (docs/operations.md).
        POWERTOOLS_SERVICE_NAME: props.serviceName ?? `wfm-${props.name}`,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        // EMF metrics (services/shared/observability.ts); the dimension `environment` tells TEST from LIVE.
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        // The Tracer never records response bodies: they hold personal data.
        POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
        // Without SDK tracing the code never loads the Tracer (services/shared/observability.ts).
        ...(sdkTracing ? {} : { POWERTOOLS_TRACE_ENABLED: 'false' }),
        [ENV.API_ENVIRONMENT]: props.apiEnvironment,
      },
    });

    logGroup.grantWrite(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, so AWS requires Resource "*".',
    });
    acknowledgeGuard(this, 'lambdaInVpc');
    acknowledgeLogGroup(logGroup, props.logRetention);
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'nodejs22.x is the target runtime on purpose: local development and tests pin Node 22 (the node@22 devDependency) so that they run what Lambda runs; moving to a newer runtime moves both together.',
    });
  }

  /**
   * Sets TABLE_NAME and grants exactly `actions` on the table and on each of its indexes.
   * No grantReadWriteData: a read-only area gets no write action, and nobody gets Scan.
   */
  bindTable(table: ITableV2, actions: readonly TableAction[]): void {
    if (actions.length === 0) throw new Error(`AreaFunction ${this.node.id}: bindTable needs at least one action.`);
    this.addEnvironment(ENV.TABLE_NAME, table.tableName);
    Grant.addToPrincipal({
      grantee: this,
      actions: actions.map(dynamoDbAction),
      resourceArns: [table.tableArn, ...AppTable.indexArns(table.tableArn)],
    });
  }

  /** Sets CURSOR_SECRET_ARN and grants reading that one secret's value. */
  bindCursorSecret(secret: ISecret): void {
    this.addEnvironment(ENV.CURSOR_SECRET_ARN, secret.secretArn);
    Grant.addToPrincipal({ grantee: this, actions: ['secretsmanager:GetSecretValue'], resourceArns: [secret.secretArn] });
  }

  /**
   * Sets RESTRICTED_DATA_KEY_ID and grants kms:GenerateDataKey on that key for a known purpose
   * (the encryption context every seal carries): enough to seal restricted data, not to read it
   * back. With `decrypt`, kms:Decrypt only for the readable purposes (the bank account), so
   * coordinates stay unreadable to every function.
   */
  bindRestrictedDataKey(key: IKey, options: { readonly decrypt?: boolean } = {}): void {
    this.addEnvironment(ENV.RESTRICTED_DATA_KEY_ID, key.keyArn);
    this.addToRolePolicy(
      new PolicyStatement({ actions: ['kms:GenerateDataKey'], resources: [key.keyArn], conditions: { StringEquals: { 'kms:EncryptionContext:purpose': [...RESTRICTED_PURPOSES] } } }),
    );
    if (options.decrypt) {
      this.addToRolePolicy(new PolicyStatement({ actions: ['kms:Decrypt'], resources: [key.keyArn], conditions: { StringEquals: { 'kms:EncryptionContext:purpose': [...READABLE_PURPOSES] } } }));
    }
  }

  /**
   * Sets SECRET_STORE_PREFIX (`wfm/<env>/`) and grants the secret-store actions of `access`
   * (read: GetSecretValue; write: PutSecretValue, CreateSecret) on the secrets named
   * `wfm/<env>/integrations/*` only: provider credentials, created at run time per integration.
   */
  bindIntegrationSecrets(apiEnvironment: ApiEnvironment, access: readonly ('read' | 'write')[]): void {
    const prefix = `wfm/${apiEnvironment.toLowerCase()}/`;
    this.addEnvironment(SECRET_STORE_PREFIX_ENV, prefix);
    Grant.addToPrincipal({ grantee: this, actions: secretStoreActions(access), resourceArns: [`arn:${Aws.PARTITION}:secretsmanager:${Aws.REGION}:${Aws.ACCOUNT_ID}:secret:${prefix}integrations/*`] });
    Validations.of(this.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${prefix}integrations/*]`,
      reason: 'Provider credentials are one secret per integration, created at run time under wfm/<env>/integrations/<organizationId>/<integrationId>: the prefix is the narrowest resource that covers secrets not yet created.',
    });
  }

  /**
   * Sets `variable` to the bucket's name and grants exactly each grant's object actions on the
   * keys under its prefix (never s3:*). The prefix wildcard is the narrowest resource that
   * covers objects not yet created: acknowledged per prefix. A grant that reads objects also
   * lists the bucket, under that prefix only: without s3:ListBucket, S3 answers a read of a
   * missing key with 403 AccessDenied instead of 404 NoSuchKey, and "not uploaded yet" would
   * become a 500.
   */
  bindBucketObjects(variable: string, bucket: { readonly name: string; readonly nagName: string }, grants: readonly ObjectGrant[], reason: string): void {
    const bucketName = bucket.name;
    this.addEnvironment(variable, bucketName);
    for (const grant of grants) {
      if (!/^[a-z0-9-]+\/$/.test(grant.prefix)) throw new Error(`AreaFunction ${this.node.id}: a bucket prefix is lower-case words ending in "/", got "${grant.prefix}".`);
      Grant.addToPrincipal({ grantee: this, actions: [...grant.actions], resourceArns: [`arn:${Aws.PARTITION}:s3:::${bucketName}/${grant.prefix}*`] });
      if (grant.actions.includes('s3:GetObject')) {
        this.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [`arn:${Aws.PARTITION}:s3:::${bucketName}`], conditions: { StringLike: { 's3:prefix': [`${grant.prefix}*`] } } }));
      }
      // On the role: the finding is on its policy, which sits beside the function.
      Validations.of(this.role!).acknowledge({ id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${bucket.nagName}/${grant.prefix}*]`, reason });
    }
  }
}
