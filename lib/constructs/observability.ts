import { Duration, Stack, type RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Dashboard, GraphWidget, Metric, TextWidget, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { limitGrantsToAwsServices } from '../guard';
import type { RoutedApi } from './api';
import type { ApiFirewall } from './api-firewall';

/**
 * The alarm thresholds, one place: every alarm below reads them, and test/infra asserts each
 * alarm's metric and threshold against them. Periods are 5 minutes.
 */
export const ALARM_THRESHOLDS = {
  /** Share of a stage's requests answered 5xx (the `5XXError` average), over 3 periods. */
  api5xxRate: 0.01,
  /** p99 of a stage's latency in milliseconds, over 3 periods: well under the 10 s function timeout. */
  apiP99LatencyMs: 3000,
  /** Errors of the key authorizer in one period: every failed authorization is a client locked out. */
  authorizerErrors: 3,
  /** Errors of one function in one period (unexpected failures: 4xx outcomes are not errors). */
  functionErrors: 5,
  /** Throttles of one function in one period: any throttle is a request refused for capacity. */
  functionThrottles: 1,
  /** DynamoDB throttled requests (all operations) in one period. */
  tableThrottles: 1,
  /** DynamoDB system errors (all operations) in one period. */
  tableSystemErrors: 1,
  /** Messages in a dead-letter queue: each is work that failed three times. */
  deadLetterMessages: 1,
  /** Age of the oldest queued message in seconds: three worker timeouts. */
  oldestMessageAgeSeconds: 900,
  /** Requests a WebACL blocked in one period: a burst of attacks or a client misbehaving. */
  wafBlockedRequests: 100,
} as const;

const PERIOD = Duration.minutes(5);

const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

export interface ObservabilityProps {
  /** TEST or LIVE, in names and descriptions. */
  readonly environmentName: string;
  /**
   * The SNS topic alarms notify, e.g. the platform team's.
   * @default - a topic of this stack, encrypted with its own key
   */
  readonly alarmTopicArn?: string;
  readonly apis: readonly RoutedApi[];
  readonly authorizer: IFunction;
  /** Every function, by registry name: each gets an errors and a throttles alarm, beside it. */
  readonly functions: Readonly<Record<string, IFunction>>;
  readonly table: ITableV2;
  /** Queues whose oldest message must not wait long. */
  readonly queues?: readonly IQueue[];
  /** Dead-letter queues that must stay empty. */
  readonly deadLetterQueues?: readonly IQueue[];
  readonly firewalls?: readonly ApiFirewall[];
  /** How long WAF logs are kept. */
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

/**
 * What an operator watches: alarms on the API (5xx rate, p99 latency), the authorizer, every
 * function (errors, throttles), the table (throttles, system errors), the queues (dead
 * letters, oldest message) and the WebACLs (blocked requests), all notifying one SNS topic;
 * one CloudWatch dashboard per environment with the same figures.
 */
export class Observability extends Construct {
  readonly topic: ITopic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.topic = props.alarmTopicArn ? Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn) : this.ownTopic();
    this.action = new SnsAction(this.topic);
    const t = ALARM_THRESHOLDS;

    const apiWidgets: GraphWidget[] = [];
    for (const api of props.apis) {
      const dimensionsMap = { ApiName: api.restApi.restApiName, Stage: api.stage.stageName };
      const metric = (metricName: string, statistic: string) => new Metric({ namespace: 'AWS/ApiGateway', metricName, dimensionsMap, statistic, period: PERIOD });
      this.alarm(this, `${api.node.id}5xxRate`, metric('5XXError', 'Average'), t.api5xxRate, 3, `${api.api} API: more than ${t.api5xxRate * 100}% of requests answered 5xx`);
      this.alarm(this, `${api.node.id}P99Latency`, metric('Latency', 'p99'), t.apiP99LatencyMs, 3, `${api.api} API: p99 latency above ${t.apiP99LatencyMs} ms`);
      apiWidgets.push(
        new GraphWidget({ title: `${api.api} API: requests, 4xx, 5xx`, left: [metric('Count', 'Sum'), metric('4XXError', 'Sum'), metric('5XXError', 'Sum')], width: 12 }),
        new GraphWidget({ title: `${api.api} API: latency`, left: [metric('Latency', 'p50'), metric('Latency', 'p99'), metric('IntegrationLatency', 'p99')], width: 12 }),
      );
    }

    this.alarm(this, 'AuthorizerErrors', props.authorizer.metricErrors({ period: PERIOD, statistic: 'Sum' }), t.authorizerErrors, 1, 'Key authorizer failing: clients cannot authenticate');
    for (const [name, fn] of Object.entries(props.functions)) {
      // Beside the function (its area's nested stack), so every stack stays small.
      this.alarm(fn, 'ErrorsAlarm', fn.metricErrors({ period: PERIOD, statistic: 'Sum' }), t.functionErrors, 1, `${name}: function errors`);
      this.alarm(fn, 'ThrottlesAlarm', fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }), t.functionThrottles, 1, `${name}: function throttled`);
    }

    // The operations this API uses (an alarm's math expression holds at most 10 metrics).
    const operations = { period: PERIOD, operations: TABLE_OPERATIONS };
    this.alarm(this, 'TableThrottles', props.table.metricThrottledRequestsForOperations(operations), t.tableThrottles, 1, 'DynamoDB requests throttled');
    this.alarm(this, 'TableSystemErrors', props.table.metricSystemErrorsForOperations(operations), t.tableSystemErrors, 1, 'DynamoDB system errors');

    for (const queue of props.deadLetterQueues ?? []) {
      this.alarm(queue, 'DepthAlarm', queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }), t.deadLetterMessages, 1, `Dead letters in ${queue.node.id}`);
    }
    for (const queue of props.queues ?? []) {
      this.alarm(queue, 'OldestMessageAlarm', queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' }), t.oldestMessageAgeSeconds, 1, `${queue.node.id}: messages waiting too long`);
    }

    const wafWidgets: GraphWidget[] = [];
    for (const firewall of props.firewalls ?? []) {
      const blocked = new Metric({
        namespace: 'AWS/WAFV2',
        metricName: 'BlockedRequests',
        dimensionsMap: { WebACL: firewall.webAclName, Region: Stack.of(this).region, Rule: 'ALL' },
        statistic: 'Sum',
        period: PERIOD,
      });
      this.alarm(this, `${firewall.node.id}Blocked`, blocked, t.wafBlockedRequests, 1, `${firewall.node.id}: many requests blocked`);
      wafWidgets.push(new GraphWidget({ title: `${firewall.node.id}: blocked requests`, left: [blocked], width: 12 }));
      firewall.enableLogging(props.logRetention, props.logRemovalPolicy);
    }

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-operations`,
      widgets: [
        [new TextWidget({ markdown: `# WFM ${props.environmentName}\nAlarms notify the alarm topic; thresholds in lib/constructs/observability.ts.`, width: 24, height: 2 })],
        apiWidgets,
        [
          new GraphWidget({ title: 'Function errors', left: Object.entries(props.functions).map(([name, fn]) => fn.metricErrors({ period: PERIOD, label: name })), width: 12 }),
          new GraphWidget({ title: 'Function throttles', left: Object.entries(props.functions).map(([name, fn]) => fn.metricThrottles({ period: PERIOD, label: name })), width: 12 }),
        ],
        [
          new GraphWidget({ title: 'DynamoDB throttled requests', left: [props.table.metricThrottledRequestsForOperations(operations)], width: 6 }),
          new GraphWidget({ title: 'DynamoDB system errors', left: [props.table.metricSystemErrorsForOperations(operations)], width: 6 }),
          new GraphWidget({
            title: 'Queues: dead letters and oldest message',
            left: (props.deadLetterQueues ?? []).map((q) => q.metricApproximateNumberOfMessagesVisible({ period: PERIOD })),
            right: (props.queues ?? []).map((q) => q.metricApproximateAgeOfOldestMessage({ period: PERIOD })),
            width: 12,
          }),
        ],
        wafWidgets,
      ],
    });
  }

  /** An alarm at or above `threshold` for `periods` consecutive periods; missing data is not breaching. */
  private alarm(scope: Construct, id: string, metric: IMetric, threshold: number, periods: number, description: string): Alarm {
    const alarm = new Alarm(scope, id, {
      metric,
      threshold,
      evaluationPeriods: periods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }

  /**
   * A topic of this stack, encrypted with a key CloudWatch may use to publish (the AWS managed
   * SNS key does not allow it). `enforceSSL` gives the topic a policy of its own, which replaces
   * SNS's default one: without an Allow for CloudWatch there, every alarm's publish would be
   * refused on AWS. Both grants hold only for this account's alarms.
   */
  private ownTopic(): ITopic {
    const { account, region, partition } = Stack.of(this);
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    const ownAlarms = { StringEquals: { 'aws:SourceAccount': account }, ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` } };
    const key = new Key(this, 'AlarmTopicKey', { description: 'WFM alarm topic encryption', enableKeyRotation: true });
    key.addToResourcePolicy(new PolicyStatement({ sid: 'AllowCloudWatchAlarms', principals: [cloudWatch], actions: ['kms:Decrypt', 'kms:GenerateDataKey*'], resources: ['*'], conditions: ownAlarms }));
    limitGrantsToAwsServices(key);
    const topic = new Topic(this, 'AlarmTopic', { displayName: 'WFM alarms', masterKey: key, enforceSSL: true });
    topic.addToResourcePolicy(new PolicyStatement({ sid: 'AllowCloudWatchAlarms', principals: [cloudWatch], actions: ['sns:Publish'], resources: [topic.topicArn], conditions: ownAlarms }));
    return topic;
  }
}
