import { Duration, NestedStack, RemovalPolicy, type NestedStackProps } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { functionConstructId, type AreaDefinition, type ApiName, type FunctionDefinition } from '../../services/shared/area';
import type { ApiEnvironment } from '../../services/shared/config';
import type { RoutedApi } from '../constructs/api';
import { AreaFunction } from '../constructs/area-function';
import { BUCKET_ENV } from '../../services/shared/aws/s3';
import { documentsBucketName, documentsBucketNagName, reportsBucketName, reportsBucketNagName } from './data-stack';

export interface AreaStackProps extends NestedStackProps {
  /** The area's declaration (services/<area>/area.ts). */
  readonly area: AreaDefinition;
  readonly apiEnvironment: ApiEnvironment;
  readonly table: ITableV2;
  readonly cursorSecret: ISecret;
  readonly restrictedDataKey: IKey;
  /** The REST APIs; the area's routes go on the one its declaration names. */
  readonly apis: Readonly<Record<ApiName, RoutedApi>>;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** @default RemovalPolicy.DESTROY */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * One area of the registry in its own nested stack: its Lambda function and the further
 * functions it declares (each with exactly the IAM its permissions row lists), and its routes
 * on its REST API (RoutedApi.addAreaRoutes). Every area is the same few dozen resources, so
 * the catalogue can grow without any stack nearing CloudFormation's 500-resource limit.
 */
export class AreaStack extends NestedStack {
  /** The area's functions by registry name: the area's own first. */
  readonly functions: Readonly<Record<string, AreaFunction>>;

  constructor(scope: Construct, id: string, props: AreaStackProps) {
    super(scope, id, { description: `WFM ${props.apiEnvironment} ${props.area.name}: functions and routes`, ...props });
    const functions: Record<string, AreaFunction> = {};
    for (const definition of [props.area as FunctionDefinition, ...(props.area.functions ?? [])]) {
      functions[definition.name] = bindFunction(this, definition, props);
    }
    this.functions = functions;
    props.apis[props.area.api].addAreaRoutes(this, props.area.name, functions[props.area.name]);
  }
}

/** The buckets a permissions row may grant objects of: the variable that names each, and why its grants end in a prefix wildcard. */
const BUCKETS = {
  documentsBucket: {
    variable: BUCKET_ENV.documents,
    name: documentsBucketName,
    nagName: documentsBucketNagName,
    reason: 'Documents are objects under uploads/<organizationId>/ and documents/<organizationId>/ named by ids: the prefix is the narrowest resource that covers objects not yet created.',
  },
  reportsBucket: {
    variable: BUCKET_ENV.reports,
    name: reportsBucketName,
    nagName: reportsBucketNagName,
    reason: 'Export files are objects under reports/<organizationId>/<manifestId>: the prefix is the narrowest resource that covers files not yet created.',
  },
} as const;

/** A function of the registry, with its IAM bound from its permissions row. */
export function bindFunction(
  scope: Construct,
  definition: FunctionDefinition,
  props: Pick<AreaStackProps, 'apiEnvironment' | 'table' | 'cursorSecret' | 'restrictedDataKey' | 'logRetention' | 'logRemovalPolicy'>,
): AreaFunction {
  const { name, permissions } = definition;
  const fn = new AreaFunction(scope, functionConstructId(name), {
    name,
    entry: definition.entry,
    apiEnvironment: props.apiEnvironment,
    logRetention: props.logRetention,
    logRemovalPolicy: props.logRemovalPolicy,
    description: `WFM ${props.apiEnvironment} ${name}: ${definition.description}`,
    timeout: definition.timeoutSeconds === undefined ? undefined : Duration.seconds(definition.timeoutSeconds),
    assets: definition.assets,
  });
  // A function that reads no table (the API reference) gets neither its name nor a grant.
  if (permissions.table.length > 0) fn.bindTable(props.table, permissions.table);
  if (permissions.cursorSecret) fn.bindCursorSecret(props.cursorSecret);
  if (permissions.restrictedDataKey) fn.bindRestrictedDataKey(props.restrictedDataKey, { decrypt: permissions.restrictedDataDecrypt });
  if (permissions.integrationSecrets) fn.bindIntegrationSecrets(props.apiEnvironment, permissions.integrationSecrets);
  for (const [row, bucket] of Object.entries(BUCKETS) as [keyof typeof BUCKETS, (typeof BUCKETS)[keyof typeof BUCKETS]][]) {
    const grants = permissions[row];
    if (grants) fn.bindBucketObjects(bucket.variable, { name: bucket.name(props.apiEnvironment), nagName: bucket.nagName(props.apiEnvironment) }, grants, bucket.reason);
  }
  return fn;
}
