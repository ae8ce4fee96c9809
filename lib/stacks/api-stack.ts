import { Aws, CfnOutput, Duration, Fn, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { ArnPrincipal } from 'aws-cdk-lib/aws-iam';
import { UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { AREAS, FUNCTIONS, PLATFORM_FUNCTIONS } from '../../services/registry';
import type { JobQueueName } from '../../services/shared/permissions';
import { PUBLIC_ROUTES } from '../../services/routes';
import { functionConstructId, ORG_PREFIX, PUBLIC_BASE_URL_VARIABLE, routeRows, SCIM_PREFIX, type AreaDefinition } from '../../services/shared/area';
import { PER_KEY_THROTTLE } from '../../services/shared/auth/usage';
import type { ApiEnvironment } from '../../services/shared/config';
import { ApiDomain } from '../constructs/api-domain';
import { ApiFirewall } from '../constructs/api-firewall';
import { Observability } from '../constructs/observability';
import { acknowledgeGuard } from '../guard';
import { ApiGatewayAccountLogging } from '../constructs/api-gateway-account';
import { ORIGIN_HEADER, RoutedApi, STAGE_NAMES } from '../constructs/api';
import type { AreaFunction } from '../constructs/area-function';
import { AreaStack, bindFunction } from './area-stack';
import type { FunctionName } from '../permissions';

export interface ApiStackProps extends StackProps {
  /** TEST or LIVE: the authorizer accepts only keys of this environment (API_ENVIRONMENT). */
  readonly apiEnvironment: ApiEnvironment;
  /** The table of the data stack. */
  readonly table: ITableV2;
  /** The secret that seals list cursors. */
  readonly cursorSecret: ISecret;
  /** The KMS key that seals restricted evidence. */
  readonly restrictedDataKey: IKey;
  /**
   * Retention of function and access logs.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * Keep log groups when they leave the stack.
   * @default false
   */
  readonly retainLogs?: boolean;
  /**
   * Create the account's API Gateway CloudWatch role (one per account and region). Turn it off
   * where a platform team or another stack already manages it.
   * @default true
   */
  readonly manageApiGatewayAccount?: boolean;
  /**
   * Sustained requests per minute one client IP may send (WAF rate-based rule on the public API).
   * @default 3000
   */
  readonly requestsPerIpPerMinute?: number;
  /**
   * The environment's own host, e.g. `api.test.example.com`, mapped to the public API stage.
   * @default - no custom domain: clients use the execute-api URL
   */
  readonly domainName?: string;
  /**
   * ACM certificate of `domainName` in the stack's region; required with `domainName`.
   * @default - none
   */
  readonly certificateArn?: string;
  /**
   * Route 53 hosted zone for an alias record of `domainName`; needs `hostedZoneName`.
   * @default - no DNS record
   */
  readonly hostedZoneId?: string;
  /**
   * Name of that hosted zone, e.g. `example.com`.
   * @default - no DNS record
   */
  readonly hostedZoneName?: string;
  /**
   * The areas to deploy.
   * @default AREAS - the registry's
   */
  readonly areas?: readonly AreaDefinition[];
  /**
   * The IAM principal (role ARN) of the scan channel that invokes evidence-ingest.
   * @default - nobody outside this account's IAM policies may invoke it
   */
  readonly evidenceInvokerArn?: string;
  /**
   * The SNS topic every alarm notifies (e.g. the platform team's, from context `alarmTopicArn`).
   * @default - a topic of this stack, encrypted with its own key
   */
  readonly alarmTopicArn?: string;
}

/** The report worker's ceiling of concurrent runs (the SQS event source's MaximumConcurrency; 2 is its minimum). */
export const REPORT_WORKER_CONCURRENCY = 5;

/** `materials` -> `AreaMaterials`: the construct id of an area's nested stack. */
export const areaStackId = (name: string): string => `Area${functionConstructId(name).replace(/Function$/, '')}`;

/**
 * The job queues: each an area's (its API function has the queue's name), with the worker that
 * consumes it and the sweeper that sends again what was lost; who may send is the functions'
 * `jobQueues` rows.
 * - reports: the API queues export jobs; the worker writes the files. Messages that keep
 *   failing go to the dead-letter queue after 3 deliveries. A job whose message was never sent
 *   (the send after the commit failed) stays in the due list: the sweeper sends it again.
 * - integrations: the API queues jobs; the worker queues its own retries, its backoff being the
 *   message delay; the sweeper sends again the messages of due jobs (lost, backed off, or
 *   whose run died).
 */
const JOB_QUEUES: Readonly<Record<JobQueueName, { readonly id: string; readonly worker: string; readonly sweeper: string; readonly urlVariable: string; readonly maxReceiveCount: number; readonly sweeperDescription: string }>> = {
  reports: { id: 'Reports', worker: 'reports-worker', sweeper: 'reports-sweeper', urlVariable: 'REPORTS_QUEUE_URL', maxReceiveCount: 3, sweeperDescription: 'Re-queues export jobs still QUEUED after 2 minutes' },
  integrations: {
    id: 'Integrations',
    worker: 'integrations-worker',
    sweeper: 'integrations-sweeper',
    urlVariable: 'INTEGRATIONS_QUEUE_URL',
    maxReceiveCount: 5,
    sweeperDescription: 'Re-queues due integration jobs (lost messages, ended backoffs, dead runs)',
  },
};

/** Functions that are not request/response run longer than an API call: their timeout, by name. */
export const FUNCTION_TIMEOUT: Readonly<Record<FunctionName, Duration>> = Object.fromEntries(
  FUNCTIONS.filter((f) => f.timeoutSeconds !== undefined).map((f) => [f.name, Duration.seconds(f.timeoutSeconds!)]),
);

/**
 * The stateless half of an environment: one function per area, the authorizer, the
 * evidence-ingest function, the public and SCIM REST APIs with their WebACLs, and the
 * optional custom host.
 */
export class ApiStack extends Stack {
  /** Every function of the environment by registry name: the platform's here, the areas' in their nested stacks. */
  readonly functions: Readonly<Record<FunctionName, AreaFunction>>;
  /** The nested stack of each area, by area name. */
  readonly areaStacks: Readonly<Record<string, AreaStack>>;
  readonly publicApi: RoutedApi;
  readonly scimApi: RoutedApi;
  readonly reportsQueue?: Queue;
  readonly observability: Observability;
  /** The usage plan of every API key: its throttle applies per key. */
  readonly usagePlan: UsagePlan;
  readonly domain?: ApiDomain;

  /**
   * A job queue of an area, in the area's nested stack beside its functions: the queue (its
   * visibility six times the worker's timeout, as AWS recommends for Lambda event sources: a
   * message is never delivered again while a slow or retried run still works on it) with a
   * dead-letter queue (JOB_QUEUES); the functions whose row lists the queue in `jobQueues` get its
   * URL in `urlVariable` and may send; the sweeper runs every minute; the worker consumes one
   * message at a time, at most REPORT_WORKER_CONCURRENCY
   * at once, so a burst of jobs waits in the queue instead of taking the account's concurrency
   * from the API and its authorizer.
   */
  private jobQueue(name: JobQueueName, functions: Readonly<Record<string, AreaFunction>>): { queue: Queue; deadLetters: Queue } | undefined {
    const options = JOB_QUEUES[name];
    const prefix = options.id;
    const worker = functions[options.worker];
    const sweeper = functions[options.sweeper];
    // A stack without the area (or its worker and sweeper) has no queue.
    if (!functions[name] || !worker || !sweeper) return undefined;
    // The functions whose permissions row names this queue (services/shared/permissions.ts jobQueues).
    const senders = FUNCTIONS.filter((f) => f.permissions.jobQueues?.includes(name)).map((f) => {
      const fn = functions[f.name];
      if (!fn) throw new Error(`The ${f.name} function sends to the ${name} queue but is not in this stack.`);
      return fn;
    });
    const scope = Stack.of(worker);
    const deadLetters = new Queue(scope, `${prefix}DeadLetterQueue`, { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    acknowledgeGuard(deadLetters, 'sqsDlq');
    const queue = new Queue(scope, `${prefix}Queue`, {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: worker.timeout ? Duration.seconds(worker.timeout.toSeconds() * 6) : Duration.minutes(6),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: options.maxReceiveCount },
    });
    for (const fn of senders) {
      fn.addEnvironment(options.urlVariable, queue.queueUrl);
      queue.grantSendMessages(fn);
    }
    new Rule(scope, `${prefix}SweeperSchedule`, {
      description: options.sweeperDescription,
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(sweeper, { retryAttempts: 0 })],
    });
    worker.addEventSource(new SqsEventSource(queue, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: REPORT_WORKER_CONCURRENCY }));
    return { queue, deadLetters };
  }

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    if (props.domainName && !props.certificateArn) {
      throw new Error(`${id}: certificateArn is required when domainName is set (domainName "${props.domainName}").`);
    }
    if (!props.domainName && (props.certificateArn || props.hostedZoneId || props.hostedZoneName)) {
      throw new Error(`${id}: certificateArn, hostedZoneId and hostedZoneName need domainName.`);
    }
    const logRetention = props.logRetention ?? RetentionDays.ONE_MONTH;
    const logRemovalPolicy = props.retainLogs ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY;
    const shared = {
      apiEnvironment: props.apiEnvironment,
      table: props.table,
      cursorSecret: props.cursorSecret,
      restrictedDataKey: props.restrictedDataKey,
      logRetention,
      logRemovalPolicy,
    };

    // The platform's functions stay here; each area brings its own in its nested stack.
    const functions: Record<FunctionName, AreaFunction> = {};
    for (const definition of PLATFORM_FUNCTIONS) functions[definition.name] = bindFunction(this, definition, shared);
    // The scan channel invokes evidence-ingest directly (no route): only the principal named
    // by context may, through the function's resource policy.
    if (props.evidenceInvokerArn) {
      functions['evidence-ingest'].addPermission('ScanChannelInvoke', { principal: new ArnPrincipal(props.evidenceInvokerArn), action: 'lambda:InvokeFunction' });
    }

    const accountLogging = props.manageApiGatewayAccount === false ? undefined : new ApiGatewayAccountLogging(this, 'ApiGatewayAccount');
    const common = {
      authorizerFunction: functions.authorizer,
      accessLogRetention: logRetention,
      accessLogRemovalPolicy: logRemovalPolicy,
      stageDependsOn: accountLogging?.account,
    };
    const areas = props.areas ?? AREAS;
    const routes = areas.flatMap(routeRows);
    this.scimApi = new RoutedApi(this, 'ScimApi', { ...common, api: 'scim', routes, description: `WFM ${props.apiEnvironment} SCIM 2.0 provisioning` });
    // Behind a custom domain the public API has one way in: its execute-api URL is turned off.
    // (The SCIM API keeps its own: the public API's forward calls it, and its WebACL admits
    // only that forward.)
    this.publicApi = new RoutedApi(this, 'PublicApi', {
      ...common,
      api: 'public',
      routes,
      description: `WFM ${props.apiEnvironment} organization API`,
      disableExecuteApiEndpoint: Boolean(props.domainName),
    });
    const apis = { public: this.publicApi, scim: this.scimApi };

    const areaStacks: Record<string, AreaStack> = {};
    for (const area of areas) {
      const stack = new AreaStack(this, areaStackId(area.name), { ...shared, area, apis });
      areaStacks[area.name] = stack;
      Object.assign(functions, stack.functions);
    }
    this.areaStacks = areaStacks;
    this.functions = functions;
    const pipeline = this.jobQueue('reports', functions);
    this.reportsQueue = pipeline?.queue;
    const pipelines = [pipeline, this.jobQueue('integrations', functions)].filter((p) => p !== undefined);

    // One host for both: the public API forwards the SCIM paths to the SCIM RestApi.
    const scimPrefix = `${ORG_PREFIX}${SCIM_PREFIX}`;
    // The public base URL is configuration of the stages (absolute URLs in responses, e.g.
    // SCIM's meta.location), never taken from request headers: the custom host, or the public
    // API's execute-api URL with its stage.
    const publicBaseUrl = props.domainName
      ? `https://${props.domainName}`
      : `https://${this.publicApi.restApi.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${STAGE_NAMES.public}`;
    const stageVariables = { [PUBLIC_BASE_URL_VARIABLE]: publicBaseUrl };
    this.scimApi.deploy(stageVariables);
    // Known to this stack only (its id's UUID, never in the template as a literal): the SCIM
    // WebACL lets through only requests that came by the public API's forward.
    const originSecret = Fn.select(2, Fn.split('/', Aws.STACK_ID));
    this.publicApi.forwardTo(this.scimApi, scimPrefix, originSecret);
    // The API reference and its document: the route table's public routes, without a key.
    this.publicApi.addPublicRoutes(PUBLIC_ROUTES, (name) => functions[name]);
    this.publicApi.deploy(stageVariables);

    // Tenant-fair throttling: every key is an API key of this plan (the CLI registers it).
    this.usagePlan = new UsagePlan(this, 'PerKeyUsagePlan', {
      name: `${this.stackName}-per-key`,
      description: 'Per API key throttle: one organization cannot use up the stage for all',
      throttle: { ...PER_KEY_THROTTLE },
      apiStages: [this.publicApi, this.scimApi].map((api) => ({ api: api.restApi, stage: api.stage })),
    });

    const publicFirewall = new ApiFirewall(this, 'PublicFirewall', { requestsPerIpPerMinute: props.requestsPerIpPerMinute ?? 3000 });
    publicFirewall.protect(this.publicApi.stage);
    // No per-IP rule: behind the forward, SCIM requests come from API Gateway's addresses.
    const scimFirewall = new ApiFirewall(this, 'ScimFirewall', { requiredHeader: { name: ORIGIN_HEADER, value: originSecret } });
    scimFirewall.protect(this.scimApi.stage);

    this.observability = new Observability(this, 'Observability', {
      environmentName: props.apiEnvironment,
      alarmTopicArn: props.alarmTopicArn,
      apis: [this.publicApi, this.scimApi],
      authorizer: functions.authorizer,
      functions,
      table: props.table,
      queues: pipelines.map((p) => p.queue),
      deadLetterQueues: pipelines.map((p) => p.deadLetters),
      firewalls: [publicFirewall, scimFirewall],
      logRetention,
      logRemovalPolicy,
    });

    if (props.domainName && props.certificateArn) {
      this.domain = new ApiDomain(this, 'Domain', {
        domainName: props.domainName,
        certificateArn: props.certificateArn,
        hostedZoneId: props.hostedZoneId,
        hostedZoneName: props.hostedZoneName,
        restApi: this.publicApi.restApi,
        stage: this.publicApi.stage,
      });
    }

    const base = this.domain
      ? `https://${props.domainName}${ORG_PREFIX}`
      : this.publicApi.urlForPath(ORG_PREFIX);
    new CfnOutput(this, 'PublicBaseUrl', { value: base, description: 'Base URL of the organization API: replace {organizationId}' });
    new CfnOutput(this, 'ScimBaseUrl', { value: `${base}${SCIM_PREFIX}`, description: 'SCIM 2.0 base URL for identity providers: replace {organizationId}' });
    new CfnOutput(this, 'PublicAccessLogGroupName', { value: this.publicApi.accessLogs.logGroupName, description: 'Access log of the public stage (npm run consumers)' });
    new CfnOutput(this, 'ScimAccessLogGroupName', { value: this.scimApi.accessLogs.logGroupName, description: 'Access log of the SCIM stage (npm run consumers)' });
    new CfnOutput(this, 'UsagePlanId', { value: this.usagePlan.usagePlanId, description: 'Usage plan of every API key: USAGE_PLAN_ID for npm run keys' });
    if (this.domain) {
      new CfnOutput(this, 'RegionalDomainName', { value: this.domain.domain.domainNameAliasDomainName, description: `CNAME/alias target of ${props.domainName}` });
    }
    for (const name of Object.keys(functions)) {
      new CfnOutput(this, `${functionConstructId(name)}Name`, { value: functions[name].functionName, description: `Lambda function ${name}` });
    }
  }
}
