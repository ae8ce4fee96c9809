/**
 * How long API Gateway caches the authorizer's policy per token, and so how long a revoked
 * key may keep working. Import-free: the CDK app reads it at synth time.
 */
export const AUTHORIZER_CACHE_SECONDS = 60;
