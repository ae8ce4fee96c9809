/**
 * The authorizer's IAM policy. API Gateway caches it per token (identity source
 * `Authorization`), so it must cover every route of the key's own organization, whatever
 * route the first call used (a method-specific policy breaks the next call on another
 * route), and nothing of another organization: a call to another organization's URL then
 * gets API Gateway's 403 ACCESS_DENIED, cached or not.
 */
export interface PolicyDocument {
  readonly Version: '2012-10-17';
  readonly Statement: readonly { readonly Action: 'execute-api:Invoke'; readonly Effect: 'Allow' | 'Deny'; readonly Resource: readonly string[] }[];
}

/** `arn:aws:execute-api:<region>:<account>:<apiId>/<stage>/<METHOD>/<path>` */
export interface MethodArn {
  readonly prefix: string;
  readonly apiId: string;
  readonly stage: string;
  readonly method: string;
  readonly path: string;
}

export function parseMethodArn(arn: string): MethodArn | undefined {
  const match = /^(arn:[^:]+:execute-api:[^:]*:[^:]*):([^/]+)\/([^/]+)\/([^/]+)\/(.*)$/.exec(arn);
  if (!match) return undefined;
  return { prefix: match[1], apiId: match[2], stage: match[3], method: match[4], path: match[5] };
}

export function organizationPolicy(methodArn: string, organizationId: string): PolicyDocument {
  const arn = parseMethodArn(methodArn);
  if (!arn) throw new Error('The authorizer received a method ARN of an unexpected shape.');
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Action: 'execute-api:Invoke',
        Effect: 'Allow',
        Resource: [`${arn.prefix}:${arn.apiId}/${arn.stage}/*/v1/organizations/${organizationId}/*`],
      },
    ],
  };
}

/** IAM-style match of a resource pattern (`*` any characters, `?` one) against a method ARN. */
export function resourceMatches(pattern: string, arn: string): boolean {
  let regex = patterns.get(pattern);
  if (!regex) {
    regex = new RegExp(`^${pattern.split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/]/g, '\\$&'))).join('')}$`);
    if (patterns.size >= MAX_PATTERNS) patterns.clear();
    patterns.set(pattern, regex);
  }
  return regex.test(arn);
}

/**
 * Compiled patterns: a cached policy is checked on every request (the local gateway), with the
 * same few patterns (one per organization) each time. Bounded, as patterns come from policies.
 */
const MAX_PATTERNS = 256;
const patterns = new Map<string, RegExp>();

/** What API Gateway decides for a method ARN under a policy: explicit Deny wins, then Allow. */
export function policyAllows(policy: PolicyDocument, methodArn: string): boolean {
  const matching = policy.Statement.filter((s) => s.Resource.some((r) => resourceMatches(r, methodArn)));
  return matching.length > 0 && matching.every((s) => s.Effect === 'Allow');
}
