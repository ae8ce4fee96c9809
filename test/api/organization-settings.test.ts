import { randomUUID } from 'node:crypto';
import { issueApiKey } from '../../services/api-keys/issue';
import { listAuditEntries } from '../../services/audit/store';
import { organizationResponseSchema, settingsResponseSchema } from '../../services/organization/schemas';
import { setTimesheetCorrections } from '../../services/organization/public';
import { call, countByType, expectPointers, expectProblem, keyIdOf, startApi, type ApiFixture, type ApiResponse } from '../support/api';

/** GET /organization, GET|PATCH /settings through the local gateway with the real authorizer. */
let api: ApiFixture;
let gatedReader: string;
beforeAll(async () => {
  api = await startApi();
  gatedReader = (await issueApiKey(api.db, { organizationId: api.demo.gatedOrganizationId, environment: 'TEST', label: 'gated reader', scopes: ['organization:read'], now: new Date().toISOString() })).token;
});
afterAll(() => api?.close());

const url = (path: string, org?: string) => `${api.orgUrl(org)}${path}`;
const admin = () => api.demo.keys.admin;
const etag = (res: ApiResponse) => res.headers.get('etag')!;
const getSettings = () => call('GET', url('/settings'), { token: admin() });
/** `idempotencyKey: null` sends none. */
const patchSettings = (body: unknown, ifMatch?: string, idempotencyKey: string | null = randomUUID(), token = admin()) =>
  call('PATCH', url('/settings'), { token, body, ifMatch, idempotencyKey: idempotencyKey ?? undefined });

describe('GET /organization', () => {
  it('answers id, name and the capability facts with a strong ETag and no other member', async () => {
    const res = await call('GET', url('/organization'), { token: api.demo.keys.readOnly });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: api.demo.organizationId,
      name: 'Acme Facility Services',
      capabilities: { timesheetCorrections: { entitled: true, rolloutGateOpen: true, enabled: true } },
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect(organizationResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(etag(res)).toMatch(new RegExp(`^"organization:${api.demo.organizationId}:v\\d+"$`));
    expect(res.text).not.toMatch(/"PK"|"SK"|GSI|itemType|entitlements|rolloutGates/);
  });

  it('shows a closed rollout gate as not enabled', async () => {
    const res = await call('GET', url('/organization', api.demo.gatedOrganizationId), { token: gatedReader });
    expect(res.body.capabilities).toEqual({ timesheetCorrections: { entitled: true, rolloutGateOpen: false, enabled: false } });
  });

  it('is reachable only with the key of the same organization and organization:read', async () => {
    expectProblem(await call('GET', url('/organization'), { token: api.demo.keys.otherOrganization }), 403, 'ACCESS_DENIED');
    expectProblem(await call('GET', url('/organization'), { token: api.demo.keys.scim }), 403, 'SCOPE_REQUIRED');
  });
});

describe('GET /settings', () => {
  it('answers the settings, the capability facts and a strong ETag', async () => {
    const res = await call('GET', url('/settings', api.demo.gatedOrganizationId), { token: gatedReader });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      timeZone: 'UTC',
      locale: 'en',
      weekStartsOn: 'MONDAY',
      capabilities: { timesheetCorrections: { entitled: true, rolloutGateOpen: false, enabled: false } },
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect(settingsResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(etag(res)).toMatch(new RegExp(`^"settings:${api.demo.gatedOrganizationId}:v\\d+"$`));
  });

  it('changes its ETag when an operator changes the capability', async () => {
    const before = await getSettings();
    await setTimesheetCorrections(api.db, api.demo.organizationId, { rolloutGate: true }, new Date().toISOString());
    const after = await getSettings();
    expect(etag(after)).not.toBe(etag(before));
    expectProblem(await patchSettings({ locale: 'de' }, etag(before)), 412, 'ETAG_MISMATCH');
  });
});

describe('PATCH /settings', () => {
  it('changes the given settings, answers them with a new ETag, and audits in the same request', async () => {
    const current = await getSettings();
    const res = await patchSettings({ timeZone: 'europe/berlin', locale: 'de-de' }, etag(current));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ timeZone: 'Europe/Berlin', locale: 'de-DE', weekStartsOn: current.body.weekStartsOn });
    expect(settingsResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(etag(res)).not.toBe(etag(current));
    const read = await getSettings();
    expect(read.body).toEqual(res.body);
    expect(etag(read)).toBe(etag(res));

    const audit = (await listAuditEntries(api.db, api.demo.organizationId, { limit: 10, entity: { type: 'organization', id: api.demo.organizationId } })).items;
    const entry = audit.find((a) => a.requestId === res.requestId);
    expect(entry).toMatchObject({
      action: 'organization.settings_updated',
      actor: { type: 'API_KEY', keyId: keyIdOf(admin()), label: 'Demo key: admin' },
      changedAttributes: ['timeZone', 'locale'],
      after: { timeZone: 'Europe/Berlin', locale: 'de-DE' },
    });
  });

  it('answers 428 without If-Match and 412 with a stale one, changing nothing', async () => {
    const before = await countByType(api.db);
    expectProblem(await patchSettings({ locale: 'fr' }, undefined), 428, 'ETAG_REQUIRED');
    const current = await getSettings();
    await patchSettings({ weekStartsOn: 'SUNDAY' }, etag(current));
    const stale = await patchSettings({ locale: 'fr' }, etag(current));
    expectProblem(stale, 412, 'ETAG_MISMATCH');
    expect((await getSettings()).body.locale).not.toBe('fr');
    expect((await countByType(api.db)).AuditEntry).toBe((before.AuditEntry ?? 0) + 1);
  });

  it('needs an Idempotency-Key and replays the original response for the same key and input', async () => {
    const current = await getSettings();
    expectProblem(await patchSettings({ locale: 'it' }, etag(current), null), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    const key = randomUUID();
    const first = await patchSettings({ locale: 'it' }, etag(current), key);
    const again = await patchSettings({ locale: 'it' }, etag(current), key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(etag(again)).toBe(etag(first));
    expectProblem(await patchSettings({ locale: 'es' }, etag(current), key), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('rejects read-only capability facts, unknown members and invalid values with pointers', async () => {
    const current = etag(await getSettings());
    expectPointers(await patchSettings({ capabilities: { timesheetCorrections: { enabled: true } } }, current), ['/capabilities']);
    expectPointers(await patchSettings({ updatedAt: '2026-01-01T00:00:00Z', locale: 'de' }, current), ['/updatedAt']);
    expectPointers(await patchSettings({ timeZone: '+01:00', locale: 'en_US', weekStartsOn: 'Monday' }, current), ['/timeZone', '/locale', '/weekStartsOn']);
    expectPointers(await patchSettings({ timezone: 'UTC', locale: 'de' }, current), ['/timezone']);
    expectPointers(await patchSettings({}, current), ['']);
    expect(etag(await getSettings())).toBe(current);
  });

  it('needs organization:write, and never touches another organization', async () => {
    const current = etag(await getSettings());
    expectProblem(await patchSettings({ locale: 'fr' }, current, randomUUID(), api.demo.keys.readOnly), 403, 'SCOPE_REQUIRED');
    expectProblem(await patchSettings({ locale: 'fr' }, current, randomUUID(), api.demo.keys.otherOrganization), 403, 'ACCESS_DENIED');
    expect(etag(await getSettings())).toBe(current);
  });
});
