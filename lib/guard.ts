import { Validations } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IConstruct } from 'constructs';

/**
 * The AWS Control Tower proactive controls (cfn-guard rules of @cdklabs/cdk-validator-cfnguard)
 * that this app does not meet on purpose, by rule name. Every synth runs them beside cdk-nag;
 * each finding is fixed where it is real, or acknowledged next to the resource with the
 * reason below (test/infra/guard.test.ts checks both).
 */
export const GUARD_PLUGIN = 'cdk-validator-cfnguard';

export const GUARD_RULES = {
  lambdaInVpc: 'lambda_inside_vpc_check',
  lambdaPublicAccess: 'lambda_function_public_access_prohibited_check',
  logGroupKms: 'cloudwatch_log_group_encrypted_check',
  logGroupRetention: 'cloudwatch_log_group_retention_period_check',
  s3Kms: 's3_bucket_default_encryption_kms_check',
  s3Logging: 's3_bucket_logging_enabled_check',
  s3ObjectLock: 's3_bucket_object_lock_enabled_check',
  s3Versioning: 's3_bucket_versioning_enabled_check',
  s3Notifications: 's3_event_notifications_enabled_check',
  sqsKms: 'sqs_queue_encryption_check',
  sqsDlq: 'sqs_dlq_check',
} as const;

export const GUARD_REASONS: Readonly<Record<keyof typeof GUARD_RULES, string>> = {
  lambdaInVpc:
    'Outside a VPC by design: the functions reach only DynamoDB, KMS, Secrets Manager, SQS and S3 over their public AWS endpoints with IAM; a VPC would add NAT or endpoint cost and cold-start latency without narrowing any path.',
  lambdaPublicAccess:
    'The permission is for apigateway.amazonaws.com with a SourceArn naming this RestApi (built with Fn::Join, which the rule does not read as a local reference) and, for the authorizer, SourceAccount: it is not public.',
  logGroupKms:
    'CloudWatch Logs encrypts at rest with AWS-owned keys, and our log lines carry ids only: no personal data (the WAF logs redact the query string, where search words and SCIM filters carry names and e-mail addresses) and no tokens (Authorization redacted). Access logs keep the client IP and user agent for abuse investigation, as any web server log does. A customer key per log group would add cost and a key-policy dependency without protecting more.',
  logGroupRetention:
    'TEST keeps logs a month on purpose (LIVE keeps them a year, which meets the rule): TEST holds no production data and its logs are for debugging.',
  s3Kms: 'S3-managed encryption (SSE-S3): access is IAM-scoped to the reports/ prefix, and a customer key would add a KMS call and a key grant to every export written and read.',
  s3Logging: 'This is the access-log bucket itself: logging it into itself would loop, and logging it elsewhere would need a bucket for logs of logs.',
  s3ObjectLock: 'Export files are replaced explicitly (versioned, noncurrent versions kept 90 days) and TEST must be deletable; Object Lock would forbid both, and retention of payroll records is a decision for the business, not the template.',
  s3Versioning: 'Access logs are append-only records of requests; versions add nothing, and they expire by lifecycle.',
  s3Notifications: 'Nothing consumes object events: exports are tracked by their manifests in DynamoDB, not by S3 notifications.',
  sqsKms: 'SQS-managed encryption (SSE-SQS) protects the job messages, which carry ids only; a customer key would add KMS calls to every send and receive.',
  sqsDlq: 'This is the dead-letter queue: its messages are kept 14 days for an operator and alarmed on; a dead-letter queue of its own would only move them again.',
};

/** Acknowledges a guard rule at `scope` (and everything below it) with its reason. */
export function acknowledgeGuard(scope: IConstruct, ...rules: (keyof typeof GUARD_RULES)[]): void {
  for (const rule of rules) Validations.of(scope).acknowledge({ id: `${GUARD_PLUGIN}::${GUARD_RULES[rule]}`, reason: GUARD_REASONS[rule] });
}

/** CT.KMS.PR.3: only AWS services acting for a principal may create grants on the key. */
export function limitGrantsToAwsServices(key: IKey): void {
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'GrantsOnlyForAwsServices',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['kms:CreateGrant'],
      resources: ['*'],
      conditions: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
    }),
  );
}
