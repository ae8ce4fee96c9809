import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One logger per process. Log ids only: never the bearer token, request or response bodies,
 * typed addresses, coordinates or bank data. The service name comes from
 * POWERTOOLS_SERVICE_NAME (set per function by the stack), the level from POWERTOOLS_LOG_LEVEL.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'wfm-api' });
