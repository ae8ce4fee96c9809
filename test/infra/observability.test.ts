import { ALARM_THRESHOLDS as T } from '../../lib/constructs/observability';
import { FUNCTIONS } from '../../services/registry';
import { logicalId, logicalIdOf, resourcesOf, synthesize } from './fixture';

/** Alarms, dashboard and logs an operator relies on (issue 12, "Alarms and a dashboard"). */
const built = synthesize({ env: 'test' });
const template = built.apiTemplate;
const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties ?? {});
const byMetric = (namespace: string, metricName: string) => alarms.filter((a) => a.Namespace === namespace && a.MetricName === metricName);
const topicId = logicalId(built.api, built.api.observability.topic.node.defaultChild);

describe('alarms', () => {
  it("alarm on each API's 5xx rate and p99 latency over three periods", () => {
    const fiveXx = byMetric('AWS/ApiGateway', '5XXError');
    expect(fiveXx).toHaveLength(2);
    for (const alarm of fiveXx) expect(alarm).toMatchObject({ Statistic: 'Average', Threshold: T.api5xxRate, EvaluationPeriods: 3, Period: 300, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    const latency = byMetric('AWS/ApiGateway', 'Latency');
    expect(latency).toHaveLength(2);
    for (const alarm of latency) expect(alarm).toMatchObject({ ExtendedStatistic: 'p99', Threshold: T.apiP99LatencyMs, EvaluationPeriods: 3 });
    const stages = [built.api.publicApi.stage, built.api.scimApi.stage].map((stage) => logicalId(built.api, stage.node.defaultChild)).sort();
    expect(fiveXx.map((a) => logicalIdOf(a.Dimensions.find((d: { Name: string }) => d.Name === 'Stage').Value)).sort()).toEqual(stages);
  });

  it('alarm on errors and throttles of every function, and on authorizer errors at a lower bar', () => {
    const errors = byMetric('AWS/Lambda', 'Errors');
    const throttles = byMetric('AWS/Lambda', 'Throttles');
    // Every function of the registry, plus the authorizer's own errors alarm.
    expect(errors).toHaveLength(FUNCTIONS.length + 1);
    expect(throttles).toHaveLength(FUNCTIONS.length);
    const authorizerFn = logicalId(built.api, built.api.functions.authorizer.node.defaultChild);
    const authorizerAlarms = errors.filter((a) => logicalIdOf(a.Dimensions[0].Value) === authorizerFn);
    expect(authorizerAlarms.map((a) => a.Threshold).sort()).toEqual([T.authorizerErrors, T.functionErrors].sort());
    for (const alarm of throttles) expect(alarm).toMatchObject({ Statistic: 'Sum', Threshold: T.functionThrottles });
  });

  it('alarm on DynamoDB throttles and system errors across the operations the API uses', () => {
    const math = alarms.filter((a) => Array.isArray(a.Metrics));
    const names = math.map((a) => new Set(a.Metrics.filter((m: { MetricStat?: unknown }) => m.MetricStat).map((m: { MetricStat: { Metric: { MetricName: string } } }) => m.MetricStat.Metric.MetricName)));
    expect(names.map((n) => [...n].join())).toEqual(expect.arrayContaining(['ThrottledRequests', 'SystemErrors']));
    for (const alarm of math) {
      expect(alarm.Metrics.filter((m: { MetricStat?: unknown }) => m.MetricStat).length).toBeLessThanOrEqual(10);
      expect(alarm.Threshold).toBe(1);
    }
  });

  it('alarm on dead letters and on messages waiting longer than three worker timeouts', () => {
    // One of each per queue: the reports queue and the integrations queue.
    const deadLetters = expect.objectContaining({ Statistic: 'Maximum', Threshold: T.deadLetterMessages });
    const oldest = expect.objectContaining({ Statistic: 'Maximum', Threshold: T.oldestMessageAgeSeconds });
    expect(byMetric('AWS/SQS', 'ApproximateNumberOfMessagesVisible')).toEqual([deadLetters, deadLetters]);
    expect(byMetric('AWS/SQS', 'ApproximateAgeOfOldestMessage')).toEqual([oldest, oldest]);
  });

  it('alarm on requests each WebACL blocks', () => {
    const blocked = byMetric('AWS/WAFV2', 'BlockedRequests');
    expect(blocked).toHaveLength(2);
    for (const alarm of blocked) expect(alarm).toMatchObject({ Statistic: 'Sum', Threshold: T.wafBlockedRequests, Dimensions: expect.arrayContaining([{ Name: 'Rule', Value: 'ALL' }]) });
  });

  it('notify one encrypted topic on alarm and on recovery, and never alarm on missing data', () => {
    expect(alarms.length).toBeGreaterThan(20);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions.map(logicalIdOf)).toEqual([topicId]);
      expect(alarm.OKActions.map(logicalIdOf)).toEqual([topicId]);
      expect(alarm.TreatMissingData).toBe('notBreaching');
    }
    const topic = resourcesOf(template, 'AWS::SNS::Topic')[topicId].Properties ?? {};
    const keyId = logicalIdOf(topic.KmsMasterKeyId) as string;
    const keyStatements = (resourcesOf(template, 'AWS::KMS::Key')[keyId].Properties?.KeyPolicy as { Statement: Record<string, any>[] }).Statement;
    expect(keyStatements).toContainEqual(expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'cloudwatch.amazonaws.com' }, Condition: expect.objectContaining({ StringEquals: { 'aws:SourceAccount': expect.anything() } }) }));
    // enforceSSL replaces SNS's default topic policy: CloudWatch must be allowed to publish in it,
    // for this account's alarms only, or every alarm's notification is refused on AWS.
    const topicPolicies = Object.values(resourcesOf(template, 'AWS::SNS::TopicPolicy')).filter((p) => JSON.stringify(p.Properties?.Topics) === JSON.stringify([{ Ref: topicId }]));
    expect(topicPolicies).toHaveLength(1);
    const statements = (topicPolicies[0].Properties?.PolicyDocument as { Statement: Record<string, any>[] }).Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: topicId },
        Condition: { StringEquals: { 'aws:SourceAccount': expect.anything() }, ArnLike: { 'aws:SourceArn': expect.anything() } },
      }),
    );
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
  });

  it('notify the topic given by context instead of making one', () => {
    const given = synthesize({ env: 'test', alarmTopicArn: 'arn:aws:sns:eu-central-1:111111111111:platform-alarms' });
    expect(resourcesOf(given.apiTemplate, 'AWS::SNS::Topic')).toEqual({});
    const some = Object.values(resourcesOf(given.apiTemplate, 'AWS::CloudWatch::Alarm'))[0].Properties;
    expect(some?.AlarmActions).toEqual(['arn:aws:sns:eu-central-1:111111111111:platform-alarms']);
  });
});

describe('dashboard and logs', () => {
  it('draws one dashboard per environment', () => {
    const dashboards = Object.values(resourcesOf(template, 'AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0].Properties?.DashboardName).toBe('WfmTestApi-operations');
  });

  it('logs WAF decisions to aws-waf-logs-* with the Authorization header and the query string redacted', () => {
    const configs = Object.values(resourcesOf(template, 'AWS::WAFv2::LoggingConfiguration'));
    expect(configs).toHaveLength(2);
    for (const config of configs) {
      expect(config.Properties?.RedactedFields).toContainEqual({ SingleHeader: { Name: 'authorization' } });
      // Search words and SCIM filters (names, e-mail addresses) are personal data.
      expect(config.Properties?.RedactedFields).toContainEqual({ QueryString: {} });
      const destination = JSON.stringify(config.Properties?.LogDestinationConfigs);
      const group = resourcesOf(template, 'AWS::Logs::LogGroup')[/"Ref":"([^"]+)"}\]\]/.exec(destination)![1]];
      expect(destination).toContain(':log-group:');
      expect(group.Properties?.LogGroupName).toMatch(/^aws-waf-logs-WfmTestApi-/);
    }
  });

  it('keeps API Gateway execution logs for the retention of the environment', () => {
    const groups = Object.values(resourcesOf(template, 'AWS::Logs::LogGroup')).filter((g) => JSON.stringify(g.Properties?.LogGroupName ?? '').includes('API-Gateway-Execution-Logs_'));
    expect(groups).toHaveLength(2);
    for (const group of groups) expect(group.Properties?.RetentionInDays).toBe(30);
  });

  it('lets clients without a User-Agent through the common rule set (counted, not blocked)', () => {
    const acls = Object.values(resourcesOf(template, 'AWS::WAFv2::WebACL'));
    for (const acl of acls) {
      const common = acl.Properties?.Rules.find((r: { Name: string }) => r.Name === 'AWSManagedRulesCommonRuleSet');
      expect(common.Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual(expect.arrayContaining([{ Name: 'NoUserAgent_HEADER', ActionToUse: { Count: {} } }]));
    }
  });
});
