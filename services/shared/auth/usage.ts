/**
 * Tenant-fair throttling: every API key belongs to one API Gateway usage plan whose throttle
 * applies per key, so one organization's burst cannot use up the stage's budget for all. The
 * authorizer hands API Gateway the key's usage identifier (`usageIdentifierKey`); the
 * operator CLI registers that identifier as an API Gateway API key of the plan when it issues
 * the key. The identifier is not a credential: only the authorizer, after checking the
 * bearer token, ever presents it.
 */
export const PER_KEY_THROTTLE = { rateLimit: 20, burstLimit: 40 } as const;

/** The API Gateway API key value of one of our keys (at least 20 characters, as API Gateway requires). */
export const usageIdentifierKey = (keyId: string): string => `wfm-usage-${keyId}`;
