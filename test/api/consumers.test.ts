import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueApiKey } from '../../services/api-keys/issue';
import { getApiKey, KEY_USE_INTERVAL_MS, recordKeyUse, revokeApiKey } from '../../services/api-keys/store';
import { checkConsumers, localUses } from '../../services/cli/consumers-check';
import { call, startApi, type ApiFixture } from '../support/api';

/**
 * The release gate (issue 20) on the local runtime: the local gateway writes the deployed
 * stages' access-log lines, the authorizer records each key's last use, and the check stops
 * the release exactly when a key that is not internal was used within the window (revoked since or not).
 */
let api: ApiFixture;
let accessLog: string;
const since = () => new Date(Date.now() - 60 * 60 * 1000);
const check = () => checkConsumers({ db: api.db, environment: 'TEST', since: since(), uses: localUses(accessLog, since()) });

beforeAll(async () => {
  accessLog = join(mkdtempSync(join(tmpdir(), 'wfm-access-')), 'access.log');
  api = await startApi({ accessLogPath: accessLog });
});
afterAll(() => api.close());

describe('npm run consumers -- check', () => {
  let external: { token: string; keyId: string };

  it('passes (exit 0) while only internal keys were used, even with an unused external key issued', async () => {
    expect((await call('GET', `${api.orgUrl()}/audit?limit=1`, { token: api.demo.keys.admin })).status).toBe(200);
    const issued = await issueApiKey(api.db, { organizationId: api.demo.organizationId, environment: 'TEST', label: 'Acme payroll partner', scopes: ['audit:read'], now: new Date().toISOString() });
    external = { token: issued.token, keyId: issued.record.keyId };
    const result = await check();
    expect(result.exitCode).toBe(0);
    const row = result.report.rows.find((r) => r.keyId === external.keyId);
    expect(row).toMatchObject({ active: false, external: false });
    expect(row?.lastUsedAt).toBeUndefined();
  });

  it('stops the release (exit 1) once the external key is used, naming the key, its organization and last use', async () => {
    expect((await call('GET', `${api.orgUrl()}/audit?limit=1`, { token: external.token })).status).toBe(200);
    const result = await check();
    expect(result.exitCode).toBe(1);
    expect(result.report.external).toEqual([expect.objectContaining({ keyId: external.keyId, organizationId: api.demo.organizationId, label: 'Acme payroll partner', requests: 1 })]);
    const printed = result.lines.join('\n');
    expect(printed).toContain(external.keyId);
    expect(printed).toContain(api.demo.organizationId);
    expect(printed).toMatch(/STOP the release/);
    // The authorizer recorded the use on the key (at most once per interval).
    expect(await getApiKey(api.db, external.keyId)).toMatchObject({ lastUsedAt: expect.any(String), lastRoute: 'audit' });
  });

  it('still stops the release once the key is revoked: its holder used the contract within the window', async () => {
    await revokeApiKey(api.db, external.keyId, new Date().toISOString());
    const result = await check();
    expect(result.exitCode).toBe(1);
    expect(result.report.external).toEqual([expect.objectContaining({ keyId: external.keyId, revoked: true })]);
    expect(result.lines.join('\n')).toMatch(/EXTERNAL, revoked/);
  });

  it('leaves the revoked key out once its last use is before the window', async () => {
    const later = new Date(Date.now() + 1000);
    const result = await checkConsumers({ db: api.db, environment: 'TEST', since: later, uses: localUses(accessLog, later) });
    expect(result.exitCode).toBe(0);
    expect(result.report.rows.map((r) => r.keyId)).not.toContain(external.keyId);
  });
});

describe('recording key uses', () => {
  it('writes at most once per key per interval', async () => {
    const { record } = await issueApiKey(api.db, { organizationId: api.demo.organizationId, environment: 'TEST', label: 'Clocked', scopes: ['audit:read'], internal: true, now: new Date().toISOString() });
    const t0 = new Date('2026-11-24T10:00:00.000Z');
    expect(await recordKeyUse(api.db, record.keyId, t0, 'audit')).toBe(true);
    expect(await recordKeyUse(api.db, record.keyId, new Date(t0.getTime() + KEY_USE_INTERVAL_MS - 1), 'timesheets')).toBe(false);
    expect(await getApiKey(api.db, record.keyId)).toMatchObject({ lastUsedAt: t0.toISOString(), lastRoute: 'audit' });
    expect(await recordKeyUse(api.db, record.keyId, new Date(t0.getTime() + KEY_USE_INTERVAL_MS), 'timesheets')).toBe(true);
  });
});
