import type { ApiKeyRecord } from '../api-keys/store';
import { bearerToken, parseApiKey, secretMatches } from '../shared/auth/api-key';
import { organizationPolicy, type PolicyDocument } from '../shared/auth/policy';
import type { AuthorizerContext } from '../shared/auth/principal';
import type { ApiEnvironment } from '../shared/config';
import { AUTHORIZER_CACHE_SECONDS } from './cache';

export interface AuthorizeDeps {
  /** The environment of the host this authorizer guards. */
  readonly environment: ApiEnvironment;
  readonly loadKey: (keyId: string) => Promise<ApiKeyRecord | undefined>;
  readonly now: () => Date;
}

export type Decision =
  | { readonly allow: true; readonly principalId: string; readonly policy: PolicyDocument; readonly context: AuthorizerContext; readonly lastUsedAt?: string }
  | { readonly allow: false; readonly reason: DenyReason; readonly keyId?: string };

export type DenyReason = 'missing-token' | 'malformed-token' | 'wrong-environment' | 'unknown-key' | 'wrong-secret' | 'revoked' | 'expired';

/**
 * Decides a request: input the Authorization header and the method ARN; output an Allow
 * policy for every route of the key's organization, or a reason to answer 401.
 * 1. Parse `Bearer <prefix><key-id>.<secret>`.
 * 2. The prefix's environment must be this host's (a TEST key works only on the TEST host).
 * 3. Load the key record by key-id; compare the secret's hash in constant time.
 * 4. Reject revoked keys, and keys that expire within the authorizer cache time (a cached
 *    allow must not outlive the key; a revocation takes up to that time to reach the cache).
 * 5. Allow the key's own organization. The organization of the URL is not compared here:
 *    API Gateway evaluates the policy, so another organization's URL gets 403, also when
 *    the policy comes from the cache.
 * Every reason gives the same 401 (no key-existence oracle); the reason is only logged.
 */
export async function authorize(deps: AuthorizeDeps, authorization: string | undefined, methodArn: string): Promise<Decision> {
  const token = bearerToken(authorization);
  if (!token) return { allow: false, reason: authorization ? 'malformed-token' : 'missing-token' };
  const key = parseApiKey(token);
  if (!key) return { allow: false, reason: 'malformed-token' };
  if (key.environment !== deps.environment) return { allow: false, reason: 'wrong-environment', keyId: key.keyId };
  const record = await deps.loadKey(key.keyId);
  if (!record) return { allow: false, reason: 'unknown-key', keyId: key.keyId };
  if (!secretMatches(key.secret, record.secretHash) || record.environment !== key.environment) {
    return { allow: false, reason: 'wrong-secret', keyId: key.keyId };
  }
  const now = deps.now().getTime();
  if (record.revokedAt && Date.parse(record.revokedAt) <= now) return { allow: false, reason: 'revoked', keyId: key.keyId };
  // API Gateway caches an allow for AUTHORIZER_CACHE_SECONDS whatever happens to the key, so a
  // key stops working that long before it expires: a cached policy never outlives the key.
  if (record.validUntil && Date.parse(record.validUntil) - AUTHORIZER_CACHE_SECONDS * 1000 <= now) return { allow: false, reason: 'expired', keyId: key.keyId };
  return {
    allow: true,
    principalId: record.keyId,
    policy: organizationPolicy(methodArn, record.organizationId),
    context: {
      organizationId: record.organizationId,
      keyId: record.keyId,
      keyLabel: record.label,
      environment: record.environment,
      scopes: record.scopes.join(' '),
    },
    ...(record.lastUsedAt ? { lastUsedAt: record.lastUsedAt } : {}),
  };
}

/** The route family of a method ARN: the first path segment below the organization (`timesheets`, `scim`...). */
export function routeFamilyOf(methodArn: string): string {
  const path = methodArn.split('/').slice(3).join('/');
  return /^v1\/organizations\/[^/]+\/([^/]+)/.exec(path)?.[1] ?? 'unknown';
}
