/**
 * One access log line per request, JSON: the deployed stages write these fields (API Gateway
 * `$context` variables, lib/constructs/api.ts), and the local gateway writes the same names to
 * .local/access.log, so that `npm run consumers` reads both the same way. The key is
 * identified by the authorizer's key id, never by the Authorization header; no bodies, no
 * query strings.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  method: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  path: '$context.path',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  latency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  keyId: '$context.authorizer.keyId',
  organizationId: '$context.authorizer.organizationId',
  authorizerStatus: '$context.authorizer.status',
  authorizerLatency: '$context.authorizer.latency',
  errorType: '$context.error.responseType',
  errorMessage: '$context.error.message',
  wafStatus: '$context.waf.status',
} as const;

export type AccessLogLine = Partial<Record<keyof typeof ACCESS_LOG_FIELDS, string>>;
