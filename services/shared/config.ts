/**
 * Process configuration, read from the environment when first needed so that tests and the
 * local runtime can set it before use. Lambda functions get these from the CDK stack.
 */
export type ApiEnvironment = 'TEST' | 'LIVE';

export const ENV = {
  TABLE_NAME: 'TABLE_NAME',
  DYNAMODB_ENDPOINT: 'DYNAMODB_ENDPOINT',
  API_ENVIRONMENT: 'API_ENVIRONMENT',
  CURSOR_SECRET: 'CURSOR_SECRET',
  CURSOR_SECRET_ARN: 'CURSOR_SECRET_ARN',
  RESTRICTED_DATA_KEY_ID: 'RESTRICTED_DATA_KEY_ID',
  RESTRICTED_DATA_LOCAL_KEY: 'RESTRICTED_DATA_LOCAL_KEY',
} as const;

/** The CloudWatch namespace of the API's own metrics (POWERTOOLS_METRICS_NAMESPACE, set by the stack). */
export const METRICS_NAMESPACE = 'WFM';

export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new ConfigurationError(`Environment variable ${name} is not set.`);
  }
  return value;
}

export function apiEnvironment(): ApiEnvironment {
  const value = requiredEnv(ENV.API_ENVIRONMENT);
  if (value !== 'TEST' && value !== 'LIVE') {
    throw new ConfigurationError(`${ENV.API_ENVIRONMENT} must be TEST or LIVE, got "${value}".`);
  }
  return value;
}
