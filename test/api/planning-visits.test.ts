import { randomUUID } from 'node:crypto';
import { planningArea } from '../../services/planning/area';
import { PLANNING_IDS } from '../../services/planning/seed';
import { ingestVisitConfirmation } from '../../services/planning/public';
import { visitResponseSchema } from '../../services/planning/schemas';
import { sealRestricted } from '../../services/shared/crypto/restricted';
import { countByType, expectParameters, expectProblem, itemsOfType, startApi, withQuery, type ApiFixture } from '../support/api';
import { ids, keyWith, read, send } from './locations-fixture';

/**
 * Visit confirmations: appended by the evidence channel (planning/public.ts), read-only on the
 * API with work_events:read; signatures, devices, tags and positions are sealed and never
 * returned; another organization's confirmations are never reachable.
 */
let api: ApiFixture;
const deps = () => ({ db: api.db, now: () => new Date(), newId: randomUUID, seal: sealRestricted });

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

describe('GET /visit-confirmations', () => {
  it('lists the seeded confirmations by confirmedAt with nothing sensitive', async () => {
    const res = await read(api, '/visit-confirmations', await keyWith(api, ['work_events:read']));
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(expect.arrayContaining([...PLANNING_IDS.visits]));
    expect(ids(res)).not.toContain(PLANNING_IDS.otherVisit);
    for (const v of res.body.items) expect(visitResponseSchema.strict().safeParse(v).error).toBeUndefined();
    expect(res.text).not.toMatch(/signature|demo-device|tag-depot|53\.55127|9\.99341|base64/);
    const sealed = (await itemsOfType(api.db, 'RestrictedEvidence')).filter((i) => i.kind === 'VISIT');
    expect(sealed.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(sealed)).not.toContain('demo-device');
  });

  it('filters by location, employee, verification state and [from, to)', async () => {
    const [l0, l1] = api.demo.locations;
    expect(ids(await read(api, withQuery('/visit-confirmations', { locationId: l1 })))).toEqual([PLANNING_IDS.visits[1]]);
    expect(ids(await read(api, withQuery('/visit-confirmations', { employeeId: api.demo.employees[0] })))).toEqual([PLANNING_IDS.visits[0]]);
    expect(ids(await read(api, withQuery('/visit-confirmations', { verificationState: 'REVIEW_REQUIRED' })))).toEqual([PLANNING_IDS.visits[1]]);
    const first = (await read(api, `/visit-confirmations/${PLANNING_IDS.visits[0]}`)).body;
    expect(ids(await read(api, withQuery('/visit-confirmations', { locationId: l0, from: first.confirmedAt, to: new Date(Date.parse(first.confirmedAt) + 1).toISOString() })))).toEqual([first.id]);
    expectParameters(await read(api, withQuery('/visit-confirmations', { verificationState: 'MAYBE' })), ['verificationState']);
  });

  it('gets one with its ETag (a confirmation never changes: version 1), declared by the route', async () => {
    const id = PLANNING_IDS.visits[1];
    const got = await read(api, `/visit-confirmations/${id}`, await keyWith(api, ['work_events:read']));
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(`"visit-confirmation:${id}:v1"`);
    expect(planningArea.routes.getVisitConfirmation.success.headers).toContain('ETag');
  });

  it('gets one; another organization\'s id is 404; needs work_events:read; no writes exist', async () => {
    const got = await read(api, `/visit-confirmations/${PLANNING_IDS.visits[0]}`);
    expect(got.body).toMatchObject({ id: PLANNING_IDS.visits[0], locationId: api.demo.locations[0], employeeIds: [api.demo.employees[0]], method: 'CUSTOMER_CONTACT', verificationState: 'VERIFIED' });
    expectProblem(await read(api, `/visit-confirmations/${PLANNING_IDS.otherVisit}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await read(api, '/visit-confirmations', await keyWith(api, ['planning:read'])), 403, 'SCOPE_REQUIRED');
    expect((await send(api, 'POST', '/visit-confirmations', {})).status).toBe(405);
  });
});

describe('the evidence channel', () => {
  it('appends once per id and refuses employees or locations of another organization (422, nothing written)', async () => {
    const id = randomUUID();
    const input = { id, locationId: api.demo.locations[0], employeeIds: [api.demo.employees[1]], confirmedAt: new Date().toISOString(), method: 'LOCATION_TAG', verificationState: 'VERIFIED' };
    expect(await ingestVisitConfirmation(deps(), api.demo.organizationId, input)).toEqual({ visitConfirmationId: id, duplicate: false });
    expect(await ingestVisitConfirmation(deps(), api.demo.organizationId, input)).toEqual({ visitConfirmationId: id, duplicate: true });
    const before = await countByType(api.db);
    await expect(ingestVisitConfirmation(deps(), api.demo.organizationId, { ...input, id: randomUUID(), employeeIds: [api.demo.otherOrganizationEmployees[0]] })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(ingestVisitConfirmation(deps(), api.demo.organizationId, { ...input, id: randomUUID(), locationId: api.demo.otherOrganizationLocations[0] })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(ingestVisitConfirmation(deps(), api.demo.organizationId, { ...input, method: 'PIGEON' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await countByType(api.db)).toEqual(before);
  });
});
