import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import type { ApiEnvironment } from '../services/shared/config';

export type EnvironmentName = 'test' | 'live';

export const ENVIRONMENT_NAMES: readonly EnvironmentName[] = ['test', 'live'];

/** Optional custom host of an environment, from context. */
export interface DomainContext {
  readonly domainName?: string;
  readonly certificateArn?: string;
  readonly hostedZoneId?: string;
  readonly hostedZoneName?: string;
}

export interface EnvironmentConfig extends DomainContext {
  /** The SNS topic alarms notify (context `alarmTopicArn`); absent: the stack makes its own. */
  readonly alarmTopicArn?: string;
  /** The IAM role of the scan channel, allowed to invoke evidence-ingest (context `evidenceInvokerArn`). */
  readonly evidenceInvokerArn?: string;
  /**
   * Set the account's API Gateway CloudWatch role (one per account and region; context
   * `manageApiGatewayAccount`, `false` where a landing zone or another stack owns it).
   * @default true
   */
  readonly manageApiGatewayAccount?: boolean;
  readonly name: EnvironmentName;
  /** What the authorizer accepts: TEST keys on the TEST stacks, LIVE keys on the LIVE stacks. */
  readonly apiEnvironment: ApiEnvironment;
  /** `WfmTest` / `WfmLive`: stacks are `<prefix>Data` and `<prefix>Api`. */
  readonly stackPrefix: string;
  /** Keep data on delete, table deletion protection on. */
  readonly retainData: boolean;
  /** CloudFormation termination protection on both stacks. */
  readonly terminationProtection: boolean;
  readonly logRetention: RetentionDays;
  readonly retainLogs: boolean;
}

const BASE: Readonly<Record<EnvironmentName, Omit<EnvironmentConfig, keyof DomainContext>>> = {
  test: {
    name: 'test',
    apiEnvironment: 'TEST',
    stackPrefix: 'WfmTest',
    retainData: false,
    terminationProtection: false,
    logRetention: RetentionDays.ONE_MONTH,
    retainLogs: false,
  },
  live: {
    name: 'live',
    apiEnvironment: 'LIVE',
    stackPrefix: 'WfmLive',
    retainData: true,
    terminationProtection: true,
    logRetention: RetentionDays.ONE_YEAR,
    retainLogs: true,
  },
};

const DOMAIN_KEYS: readonly (keyof DomainContext)[] = ['domainName', 'certificateArn', 'hostedZoneId', 'hostedZoneName'];

/**
 * The environment chosen with `-c env=test|live` (default `test`), with its optional custom
 * host. Domain keys come from the environment's context object in cdk.json
 * (`"live": { "domainName": "...", "certificateArn": "..." }`) and may be overridden on the
 * command line (`-c domainName=...`), which applies to the environment being synthesized.
 */
export function environmentFromContext(node: Node): EnvironmentConfig {
  const raw: unknown = node.tryGetContext('env') ?? 'test';
  if (typeof raw !== 'string' || !(ENVIRONMENT_NAMES as readonly string[]).includes(raw)) {
    throw new Error(`Context env must be one of ${ENVIRONMENT_NAMES.join(', ')} (e.g. -c env=live), got ${JSON.stringify(raw)}.`);
  }
  const name = raw as EnvironmentName;
  const perEnvironment = contextObject(node, name);
  const domain: Record<string, string> = {};
  for (const key of DOMAIN_KEYS) {
    const value: unknown = node.tryGetContext(key) ?? perEnvironment[key];
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string') throw new Error(`Context ${key} (env ${name}) must be a string, got ${JSON.stringify(value)}.`);
    domain[key] = value;
  }
  if (domain.domainName && !domain.certificateArn) {
    throw new Error(`Context certificateArn is required with domainName "${domain.domainName}" (env ${name}).`);
  }
  if (!domain.domainName && Object.keys(domain).length > 0) {
    throw new Error(`Context ${Object.keys(domain).join(', ')} (env ${name}) need domainName.`);
  }
  if (Boolean(domain.hostedZoneId) !== Boolean(domain.hostedZoneName)) {
    throw new Error(`Context hostedZoneId and hostedZoneName (env ${name}) go together: set both or neither.`);
  }
  const arns: Record<string, string> = {};
  for (const key of ['alarmTopicArn', 'evidenceInvokerArn'] as const) {
    const value: unknown = node.tryGetContext(key) ?? perEnvironment[key];
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string' || !value.startsWith('arn:')) throw new Error(`Context ${key} (env ${name}) must be an ARN, got ${JSON.stringify(value)}.`);
    arns[key] = value;
  }
  const manage: unknown = node.tryGetContext('manageApiGatewayAccount') ?? perEnvironment.manageApiGatewayAccount;
  if (manage !== undefined && manage !== true && manage !== false && manage !== 'true' && manage !== 'false') {
    throw new Error(`Context manageApiGatewayAccount (env ${name}) must be true or false, got ${JSON.stringify(manage)}.`);
  }
  return { ...BASE[name], ...domain, ...arns, ...(manage === undefined ? {} : { manageApiGatewayAccount: manage === true || manage === 'true' }) };
}

function contextObject(node: Node, key: string): Record<string, unknown> {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined) return {};
  if (typeof value === 'string') {
    // `-c live='{"domainName":...}'` arrives as a string.
    try {
      return contextObject({ tryGetContext: () => JSON.parse(value) } as unknown as Node, key);
    } catch {
      throw new Error(`Context ${key} must be an object of ${DOMAIN_KEYS.join(', ')}, got ${JSON.stringify(value)}.`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`Context ${key} must be an object of ${DOMAIN_KEYS.join(', ')}, got ${JSON.stringify(value)}.`);
  }
  return value as Record<string, unknown>;
}
