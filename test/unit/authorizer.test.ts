import { authorize, type AuthorizeDeps } from '../../services/authorizer/authorize';
import { AUTHORIZER_CACHE_SECONDS } from '../../services/authorizer/cache';
import type { ApiKeyRecord } from '../../services/api-keys/store';
import { generateApiKey } from '../../services/shared/auth/api-key';
import { policyAllows } from '../../services/shared/auth/policy';

const methodArn = (path: string, method = 'GET') => `arn:aws:execute-api:eu-central-1:123456789012:api1/api/${method}${path}`;
const NOW = new Date('2026-06-01T12:00:00Z');

function setup(overrides: Partial<ApiKeyRecord> = {}, environment: 'TEST' | 'LIVE' = 'TEST') {
  const issued = generateApiKey(environment);
  const record: ApiKeyRecord = {
    keyId: issued.keyId,
    organizationId: 'org-a',
    environment,
    label: 'Payroll sync',
    scopes: ['timesheets:read', 'audit:read'],
    secretHash: issued.secretHash,
    createdAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
  const deps: AuthorizeDeps = { environment: 'TEST', loadKey: async (id) => (id === record.keyId ? record : undefined), now: () => NOW };
  return { token: issued.token, deps };
}

describe('authorize', () => {
  it('allows the key organization on every route and hands over organization, key id, label and scopes', async () => {
    const { token, deps } = setup();
    const decision = await authorize(deps, `Bearer ${token}`, methodArn('/v1/organizations/org-a/timesheets'));
    if (!decision.allow) throw new Error('expected allow');
    expect(decision.context).toEqual({ organizationId: 'org-a', keyId: expect.any(String), keyLabel: 'Payroll sync', environment: 'TEST', scopes: 'timesheets:read audit:read' });
    expect(policyAllows(decision.policy, methodArn('/v1/organizations/org-a/audit'))).toBe(true);
    expect(policyAllows(decision.policy, methodArn('/v1/organizations/org-a/timesheets/1', 'PATCH'))).toBe(true);
    expect(policyAllows(decision.policy, methodArn('/v1/organizations/org-b/timesheets'))).toBe(false);
  });

  it('allows its own organization even when the URL names another one (API Gateway then denies with 403)', async () => {
    const { token, deps } = setup();
    const decision = await authorize(deps, `Bearer ${token}`, methodArn('/v1/organizations/org-b/timesheets'));
    expect(decision.allow).toBe(true);
    if (decision.allow) expect(policyAllows(decision.policy, methodArn('/v1/organizations/org-b/timesheets'))).toBe(false);
  });

  const denied = async (reason: string, header: string | undefined, deps: AuthorizeDeps) => {
    const decision = await authorize(deps, header, methodArn('/v1/organizations/org-a/timesheets'));
    expect(decision).toMatchObject({ allow: false, reason });
  };

  it('denies a missing header', async () => denied('missing-token', undefined, setup().deps));
  it('denies another scheme', async () => denied('malformed-token', `Basic ${setup().token}`, setup().deps));
  it('denies a token of another shape', async () => denied('malformed-token', 'Bearer non-token', setup().deps));
  it('denies a LIVE key on the TEST host', async () => {
    const { token, deps } = setup({}, 'LIVE');
    await denied('wrong-environment', `Bearer ${token}`, deps);
  });
  it('denies an unknown key id', async () => denied('unknown-key', `Bearer ${generateApiKey('TEST').token}`, setup().deps));
  it('denies a wrong secret for a known key id', async () => {
    const { token, deps } = setup();
    const tampered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    await denied('wrong-secret', `Bearer ${tampered}`, deps);
  });
  it('denies a revoked key', async () => {
    const { token, deps } = setup({ revokedAt: '2026-05-01T00:00:00Z' });
    await denied('revoked', `Bearer ${token}`, deps);
  });
  it('denies an expired key, and one that expires within the cache time (a cached allow must not outlive it)', async () => {
    const expired = setup({ validUntil: '2026-06-01T12:00:00Z' });
    await denied('expired', `Bearer ${expired.token}`, expired.deps);
    const expiringWhileCached = setup({ validUntil: new Date(NOW.getTime() + AUTHORIZER_CACHE_SECONDS * 1000).toISOString() });
    await denied('expired', `Bearer ${expiringWhileCached.token}`, expiringWhileCached.deps);
    const valid = setup({ validUntil: new Date(NOW.getTime() + AUTHORIZER_CACHE_SECONDS * 1000 + 1).toISOString() });
    expect((await authorize(valid.deps, `Bearer ${valid.token}`, methodArn('/v1/organizations/org-a/x'))).allow).toBe(true);
  });
});
