import type { Organization } from '../../services/organization/public';
import { settingsEtag, updateSettings, type OrganizationPorts, type SettingsChange } from '../../services/organization/domain';
import { assertNoReadOnlySettings, canonicalLocale, canonicalTimeZone, settingsPatchSchema, settingsResponse } from '../../services/organization/schemas';
import type { Principal } from '../../services/shared/auth/principal';
import { EtagMismatchError, ValidationError } from '../../services/shared/errors';

const ORG = '6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f';
const org = (over: Partial<Organization> = {}): Organization => ({
  id: ORG,
  name: 'Acme',
  entitlements: { timesheetCorrections: true },
  rolloutGates: { timesheetCorrections: false },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});
const principal: Principal = { organizationId: ORG, keyId: 'k1', keyLabel: 'Payroll sync', environment: 'TEST', scopes: new Set(['organization:write']) };

function fakeDeps(stored: Organization | undefined): { deps: OrganizationPorts; writes: SettingsChange[] } {
  const writes: SettingsChange[] = [];
  const deps: OrganizationPorts = {
    store: { getOrganization: async () => stored, saveSettings: (w) => void writes.push(w) },
    now: () => new Date('2026-03-02T08:00:00Z'),
    newId: () => 'a0000000-0000-4000-8000-000000000001',
  };
  return { deps, writes };
}

describe('canonicalTimeZone', () => {
  it('accepts IANA names in any case and answers the time zone database spelling (aliases may resolve)', () => {
    expect(canonicalTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('America/Argentina/Buenos_Aires')).toMatch(/^America\/(Argentina\/)?Buenos_Aires$/);
  });

  it('rejects offsets, abbreviations that are no zone, and unknown names', () => {
    for (const bad of ['+01:00', 'GMT+1:00', 'Mars/Olympus_Mons', '', 'Europe/', '../etc/passwd']) expect(canonicalTimeZone(bad)).toBeUndefined();
  });
});

describe('canonicalLocale', () => {
  it('answers the canonical form of a BCP 47 tag and rejects anything else', () => {
    expect(canonicalLocale('de-de')).toBe('de-DE');
    expect(canonicalLocale('EN')).toBe('en');
    expect(canonicalLocale('zh-hant-tw')).toBe('zh-Hant-TW');
    for (const bad of ['en_US', 'x', 'de-DE-', '123']) expect(canonicalLocale(bad)).toBeUndefined();
  });
});

describe('settingsPatchSchema', () => {
  it('normalizes what it accepts', () => {
    expect(settingsPatchSchema.parse({ timeZone: 'europe/vienna', locale: 'de-at', weekStartsOn: 'SUNDAY' })).toEqual({ timeZone: 'Europe/Vienna', locale: 'de-AT', weekStartsOn: 'SUNDAY' });
  });

  it('rejects an empty patch, unknown members and other weekdays', () => {
    expect(settingsPatchSchema.safeParse({}).success).toBe(false);
    expect(settingsPatchSchema.safeParse({ timezone: 'UTC' }).success).toBe(false);
    expect(settingsPatchSchema.safeParse({ weekStartsOn: 'monday' }).success).toBe(false);
  });

  it('names the read-only capability facts and updatedAt as such', () => {
    expect(() => assertNoReadOnlySettings({ capabilities: {}, updatedAt: 'x', locale: 'de' })).toThrow(ValidationError);
    try {
      assertNoReadOnlySettings({ capabilities: { timesheetCorrections: { enabled: true } } });
    } catch (error) {
      expect((error as ValidationError).errors).toEqual([{ pointer: '/capabilities', detail: expect.stringMatching(/read-only/) }]);
    }
    expect(() => assertNoReadOnlySettings({ locale: 'de' })).not.toThrow();
  });
});

describe('settingsResponse', () => {
  it('shows defaults until set, and the capability as entitled, gate and effective', () => {
    expect(settingsResponse(org())).toEqual({
      timeZone: 'UTC',
      locale: 'en',
      weekStartsOn: 'MONDAY',
      capabilities: { timesheetCorrections: { entitled: true, rolloutGateOpen: false, enabled: false } },
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
  });
});

describe('updateSettings', () => {
  const actor = { principal, requestId: 'req-1' };

  it('merges the patch, bumps the version and audits names with safe before/after values', async () => {
    const { deps, writes } = fakeDeps(org({ version: 3, settings: { timeZone: 'UTC', locale: 'en', weekStartsOn: 'MONDAY' } }));
    const after = await updateSettings(deps, actor, `"settings:${ORG}:v3"`, { timeZone: 'Europe/Berlin' });
    expect(after).toMatchObject({ version: 4, settings: { timeZone: 'Europe/Berlin', locale: 'en', weekStartsOn: 'MONDAY' }, updatedAt: '2026-03-02T08:00:00.000Z' });
    expect(settingsEtag(after)).toBe(`"settings:${ORG}:v4"`);
    expect(writes[0].audit).toMatchObject({
      action: 'organization.settings_updated',
      entity: { type: 'organization', id: ORG },
      actor: { type: 'API_KEY', keyId: 'k1', label: 'Payroll sync' },
      changedAttributes: ['timeZone'],
      before: { timeZone: 'UTC' },
      after: { timeZone: 'Europe/Berlin' },
      requestId: 'req-1',
    });
  });

  it('treats an organization never changed as version 0', async () => {
    const { deps } = fakeDeps(org());
    await expect(updateSettings(deps, actor, `"settings:${ORG}:v0"`, { locale: 'fr' })).resolves.toMatchObject({ version: 1 });
  });

  it('refuses a stale or foreign ETag with ETAG_MISMATCH and writes nothing', async () => {
    const { deps, writes } = fakeDeps(org({ version: 2 }));
    for (const stale of [`"settings:${ORG}:v1"`, `W/"settings:${ORG}:v2"`, '*', `"organization:${ORG}:v2"`]) {
      await expect(updateSettings(deps, actor, stale, { locale: 'fr' })).rejects.toBeInstanceOf(EtagMismatchError);
    }
    expect(writes).toEqual([]);
  });
});
