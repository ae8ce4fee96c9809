import type { ApiEnvironment } from '../config';
import { ScopeRequiredError } from '../errors';

/**
 * Who is calling: the API key, as the authorizer resolved it. Handlers and domain code get
 * this, never the event. The key (id and label) is the audit actor.
 */
export interface Principal {
  readonly organizationId: string;
  readonly keyId: string;
  readonly keyLabel: string;
  readonly environment: ApiEnvironment;
  readonly scopes: ReadonlySet<string>;
}

/** The authorizer context as API Gateway passes it: string values only. */
export interface AuthorizerContext {
  readonly organizationId: string;
  readonly keyId: string;
  readonly keyLabel: string;
  readonly environment: ApiEnvironment;
  /** Space-separated. */
  readonly scopes: string;
}

export const toAuthorizerContext = (p: Principal): AuthorizerContext => ({
  organizationId: p.organizationId,
  keyId: p.keyId,
  keyLabel: p.keyLabel,
  environment: p.environment,
  scopes: [...p.scopes].join(' '),
});

export function principalFrom(context: Record<string, unknown> | null | undefined): Principal | undefined {
  if (!context) return undefined;
  const { organizationId, keyId, keyLabel, environment, scopes } = context;
  if (typeof organizationId !== 'string' || typeof keyId !== 'string' || typeof scopes !== 'string') return undefined;
  if (environment !== 'TEST' && environment !== 'LIVE') return undefined;
  return {
    organizationId,
    keyId,
    keyLabel: typeof keyLabel === 'string' ? keyLabel : keyId,
    environment,
    scopes: new Set(scopes.split(' ').filter(Boolean)),
  };
}

export const hasScope = (p: Principal, scope: string): boolean => p.scopes.has(scope);

/** Throws SCOPE_REQUIRED naming every missing scope. */
export function requireScopes(p: Principal, scopes: readonly string[], anyOf: readonly string[] = []): void {
  const missing = scopes.filter((s) => !p.scopes.has(s));
  if (missing.length > 0) throw new ScopeRequiredError(missing);
  if (anyOf.length > 0 && !anyOf.some((s) => p.scopes.has(s))) throw new ScopeRequiredError(anyOf, 'any');
}
