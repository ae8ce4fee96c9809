import { issueApiKey } from '../../services/api-keys/issue';
import { getApiKey, listApiKeys, revokeApiKey } from '../../services/api-keys/store';
import { putOrganization, setTimesheetCorrections } from '../../services/organization/public';
import { parseApiKey, secretMatches } from '../../services/shared/auth/api-key';
import type { Db } from '../../services/shared/ddb/client';
import { createTestTable } from '../support/table';

let db: Db;
const ORG = '11111111-1111-4111-8111-111111111111';
const now = '2026-06-01T00:00:00.000Z';

beforeAll(async () => {
  db = await createTestTable();
  await putOrganization(db, { id: ORG, name: 'Org', entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: now, updatedAt: now });
});

describe('issueApiKey', () => {
  it('stores only the hash of the secret, and the clear token matches it', async () => {
    const { token, record } = await issueApiKey(db, { organizationId: ORG, environment: 'TEST', label: ' Payroll sync ', scopes: ['timesheets:write', 'timesheets:read'], now });
    const stored = await getApiKey(db, record.keyId);
    const { secret } = parseApiKey(token)!;
    expect(stored).toMatchObject({ label: 'Payroll sync', scopes: ['timesheets:read', 'timesheets:write'], environment: 'TEST', organizationId: ORG });
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(secretMatches(secret, stored!.secretHash)).toBe(true);
  });

  it('refuses timesheets:write while the entitlement or the rollout gate is off, and allows other scopes', async () => {
    await setTimesheetCorrections(db, ORG, { rolloutGate: false }, now);
    await expect(issueApiKey(db, { organizationId: ORG, environment: 'TEST', label: 'x', scopes: ['timesheets:write'], now })).rejects.toThrow(/timesheets:write cannot be granted/);
    await expect(issueApiKey(db, { organizationId: ORG, environment: 'TEST', label: 'x', scopes: ['timesheets:read'], now })).resolves.toBeDefined();
    await setTimesheetCorrections(db, ORG, { rolloutGate: true, entitlement: false }, now);
    await expect(issueApiKey(db, { organizationId: ORG, environment: 'TEST', label: 'x', scopes: ['timesheets:write'], now })).rejects.toThrow(/entitlement false/);
    await setTimesheetCorrections(db, ORG, { entitlement: true }, now);
  });

  it.each([
    [{ scopes: ['timesheets:delete'] }, /Unknown scope/],
    [{ scopes: [] }, /at least one scope/],
    [{ label: '  ' }, /label/],
    [{ organizationId: '22222222-2222-4222-8222-222222222222' }, /does not exist/],
    [{ validUntil: 'soon' }, /RFC 3339/],
  ])('refuses %j', async (change, message) => {
    await expect(issueApiKey(db, { organizationId: ORG, environment: 'TEST', label: 'x', scopes: ['audit:read'], now, ...change })).rejects.toThrow(message);
  });
});

describe('listing and revoking', () => {
  it('lists the keys of one organization without secrets, and revokes once', async () => {
    const { record } = await issueApiKey(db, { organizationId: ORG, environment: 'LIVE', label: 'to revoke', scopes: ['audit:read'], now });
    const listed = await listApiKeys(db, ORG);
    expect(listed.map((k) => k.keyId)).toContain(record.keyId);
    const first = await revokeApiKey(db, record.keyId, '2026-06-02T00:00:00.000Z');
    const second = await revokeApiKey(db, record.keyId, '2026-06-03T00:00:00.000Z');
    expect(first?.revokedAt).toBe('2026-06-02T00:00:00.000Z');
    expect(second?.revokedAt).toBe('2026-06-02T00:00:00.000Z');
    expect(await revokeApiKey(db, 'unknownunknownunknow', now)).toBeUndefined();
  });
});
