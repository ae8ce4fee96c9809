import { ArnFormat, Names, Stack, type RemovalPolicy } from 'aws-cdk-lib';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnLoggingConfiguration, CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { problemBody } from '../../services/shared/http/problems';
import { acknowledgeLogGroup } from './api';

export interface ApiFirewallProps {
  /**
   * Requests one client IP may send per minute before the WebACL blocks it with 429. Set it
   * where the WebACL sees client addresses; leave it out where traffic arrives from API
   * Gateway's own addresses (the SCIM stage behind the public API's forward).
   * @default - no rate-based rule
   */
  readonly requestsPerIpPerMinute?: number;
  /**
   * A header every request must carry with this exact value, else 403: puts an API behind
   * another API's forward, which adds it (the SCIM API behind the public API).
   * @default - no header required
   */
  readonly requiredHeader?: { readonly name: string; readonly value: string };
}

/**
 * A regional WAFv2 WebACL for API Gateway stages: AWS managed rules (common rule set and
 * known bad inputs) and, optionally, a per-IP rate limit.
 *
 * The common rule set's 8 KB body limit is set to count, not block: the API accepts bodies up
 * to 64 KiB and answers larger ones itself with 413 PAYLOAD_TOO_LARGE in the contract's format.
 */
export class ApiFirewall extends Construct {
  readonly webAcl: CfnWebACL;
  private readonly redactedHeaders: string[] = ['authorization'];
  /** The WebACL's name (the `WebACL` dimension of its CloudWatch metrics). */
  readonly webAclName: string;

  constructor(scope: Construct, id: string, props: ApiFirewallProps = {}) {
    super(scope, id);
    const limit = props.requestsPerIpPerMinute;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 10)) {
      throw new Error(`ApiFirewall ${id}: requestsPerIpPerMinute must be an integer of at least 10 (the WAF minimum), got ${limit}.`);
    }
    const metricPrefix = Names.uniqueId(this).replace(/[^A-Za-z0-9]/g, '').slice(-100);
    const visibility = (name: string): CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `${metricPrefix}${name}`.slice(0, 128),
    });
    const managed = (priority: number, name: string, ruleActionOverrides?: CfnWebACL.RuleActionOverrideProperty[]): CfnWebACL.RuleProperty => ({
      name,
      priority,
      overrideAction: { none: {} },
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name, ruleActionOverrides } },
      visibilityConfig: visibility(name),
    });

    const rules: CfnWebACL.RuleProperty[] = [
      managed(10, 'AWSManagedRulesCommonRuleSet', [
        { name: 'SizeRestrictions_BODY', actionToUse: { count: {} } },
        // HTTP clients that send no User-Agent (.NET's HttpClient, many scripts) are legitimate
        // integrations here; the key authorizer decides who may call (docs/decisions.md).
        { name: 'NoUserAgent_HEADER', actionToUse: { count: {} } },
      ]),
      managed(20, 'AWSManagedRulesKnownBadInputsRuleSet'),
    ];
    if (limit !== undefined) {
      rules.push({
        name: 'RateLimitPerIp',
        priority: 1,
        action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: 'rateLimited' } } },
        statement: { rateBasedStatement: { aggregateKeyType: 'IP', limit, evaluationWindowSec: 60 } },
        visibilityConfig: visibility('RateLimitPerIp'),
      });
    }

    if (props.requiredHeader) {
      this.redactedHeaders.push(props.requiredHeader.name.toLowerCase());
      rules.push({
        name: 'OnlyThroughTheForward',
        priority: 0,
        action: { block: { customResponse: { responseCode: 403, customResponseBodyKey: 'notForwarded' } } },
        statement: {
          notStatement: {
            statement: {
              byteMatchStatement: {
                fieldToMatch: { singleHeader: { Name: props.requiredHeader.name.toLowerCase() } },
                positionalConstraint: 'EXACTLY',
                searchString: props.requiredHeader.value,
                textTransformations: [{ priority: 0, type: 'NONE' }],
              },
            },
          },
        },
        visibilityConfig: visibility('OnlyThroughTheForward'),
      });
    }
    this.webAclName = `${Stack.of(this).stackName}-${id}`.slice(0, 128);
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: this.webAclName,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('WebAcl'),
      rules,
      customResponseBodies:
        limit === undefined && !props.requiredHeader
          ? undefined
          : {
              ...(props.requiredHeader
                ? {
                    // In the SCIM error schema: only identity providers call the SCIM API.
                    notForwarded: {
                      contentType: 'APPLICATION_JSON',
                      content: JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '403', detail: 'Call SCIM through the organization API host: /v1/organizations/{organizationId}/scim/v2.' }),
                    },
                  }
                : {}),
              ...(limit !== undefined
                ? {
                    // WAF answers before API Gateway assigns a request id, so the body has none;
                    // WAF only offers application/json as the content type.
                    rateLimited: {
                      contentType: 'APPLICATION_JSON',
                      content: JSON.stringify({
                        ...problemBody('RATE_LIMITED', `More than ${limit} requests per minute from this address: slow down and retry in a minute.`, '', ''),
                        requestId: undefined,
                        instance: undefined,
                      }),
                    },
                  }
                : {}),
            },
    });
  }

  /**
   * Logs the WebACL's decisions to a log group of its own (WAF requires the `aws-waf-logs-`
   * prefix), with the Authorization header (and a required header's secret) redacted: bearer
   * tokens never reach a log.
   */
  enableLogging(retention: RetentionDays, removalPolicy: RemovalPolicy): LogGroup {
    const logGroup = new LogGroup(this, 'Logs', { logGroupName: `aws-waf-logs-${this.webAclName}`, retention, removalPolicy });
    acknowledgeLogGroup(logGroup, retention);
    const logging = new CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      logDestinationConfigs: [Stack.of(this).formatArn({ service: 'logs', resource: 'log-group', resourceName: logGroup.logGroupName, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
      // Query strings carry search words and SCIM filters (names, e-mail addresses): personal
      // data the logs must not hold, like the credentials in the redacted headers.
      redactedFields: [...this.redactedHeaders.map((name) => ({ singleHeader: { Name: name } })), { queryString: {} }],
    });
    // The destination is named, not referenced: wait for the log group explicitly.
    logging.node.addDependency(logGroup);
    return logGroup;
  }

  /** Puts a REST API stage behind this WebACL. */
  protect(stage: Stage): CfnWebACLAssociation {
    return new CfnWebACLAssociation(this, `Association${Names.uniqueId(stage).slice(-40)}`, {
      resourceArn: stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
