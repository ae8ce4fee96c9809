import { ALLOWED_DIMENSIONS, captureEmf, settle } from './metrics-capture';
import { entraUser, startScimHarness, type ScimHarness } from './scim-harness';

/**
 * The EMF lines of SCIM provisioning: one figure per committed outcome, and no personal data
 * (user names, e-mail addresses, external ids, names) in any metric, dimension or property.
 */
const emf = captureEmf();
let scim: ScimHarness;
beforeAll(async () => {
  scim = await startScimHarness();
});
afterAll(() => scim?.close());

describe('EMF metrics of SCIM provisioning', () => {
  it('counts each outcome without a trace of the person in any line', async () => {
    const user = entraUser();
    const created = await scim.request('POST', '/Users', { body: user });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const patch = { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: false }] };
    expect((await scim.request('PATCH', `/Users/${id}`, { body: patch })).status).toBe(200);
    // The same change again commits nothing, and counts nothing.
    expect((await scim.request('PATCH', `/Users/${id}`, { body: patch })).status).toBe(200);
    expect((await scim.request('DELETE', `/Users/${id}`)).status).toBe(204);
    // A create with the deleted user's externalId re-links the retained employee.
    expect((await scim.request('POST', '/Users', { body: user })).status).toBe(201);
    // A conflict is a problem code, not an outcome.
    expect((await scim.request('POST', '/Users', { body: user })).status).toBe(409);
    await settle();

    expect(emf.total('ScimUsersCreated')).toBe(1);
    expect(emf.total('ScimUsersDeactivated')).toBe(1);
    expect(emf.total('ScimUsersUpdated')).toBe(0);
    expect(emf.total('ScimUsersDeleted')).toBe(1);
    expect(emf.total('ScimUsersRelinked')).toBe(1);
    expect(emf.total('Requests')).toBe(6);
    expect(emf.withMetric('Problems').map((l) => l.code)).toEqual(['UNIQUENESS_CONFLICT']);

    const everything = emf.text();
    const personal = [user.userName, user.externalId, (user.emails as Array<{ value: string }>)[0].value, 'Given', 'Family'] as string[];
    for (const value of personal) expect(everything).not.toContain(value);
    const dimensions = new Set(emf.lines().flatMap((l) => l._aws.CloudWatchMetrics.flatMap((m) => m.Dimensions.flat())));
    expect([...dimensions].filter((d) => !ALLOWED_DIMENSIONS.includes(d))).toEqual([]);
  });
});
