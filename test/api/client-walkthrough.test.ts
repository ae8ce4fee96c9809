import { randomUUID } from 'node:crypto';
import { createClient, type WfmClient } from '../../clients/typescript';
import { startApi, type ApiFixture } from '../support/api';

/**
 * The walkthrough an integrator follows, through the generated TypeScript client
 * (clients/typescript) against the local gateway. The client's types come from
 * docs/openapi.json: when the contract changes, this file stops compiling (npm run typecheck)
 * or these assertions fail, before any integrator finds out.
 */
let api: ApiFixture;
let client: WfmClient;
let organizationId: string;

beforeAll(async () => {
  api = await startApi();
  organizationId = api.demo.organizationId;
  client = createClient({ baseUrl: api.gateway.url, apiKey: api.demo.keys.admin });
});
afterAll(() => api?.close());

describe('the typed client against the local API', () => {
  it('creates a material, reads it with its ETag, corrects it with If-Match and finds it in the list', async () => {
    const created = await client.POST('/v1/organizations/{organizationId}/materials', {
      params: { path: { organizationId }, header: { 'Idempotency-Key': randomUUID() } },
      body: { name: 'Floor cleaner', article: 'FC-10', supplier: 'CleanCo', unit: 'l', preferredOrderQuantity: 40, reorderLevel: 10 },
    });
    expect(created.response.status).toBe(201);
    const material = created.data!;
    expect(material).toMatchObject({ name: 'Floor cleaner', article: 'FC-10', unit: 'l', website: null, orderLink: null });
    expect(created.response.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${organizationId}/materials/${material.id}`);

    const read = await client.GET('/v1/organizations/{organizationId}/materials/{materialId}', { params: { path: { organizationId, materialId: material.id } } });
    expect(read.data).toEqual(material);
    const etag = read.response.headers.get('etag')!;

    const corrected = await client.PATCH('/v1/organizations/{organizationId}/materials/{materialId}', {
      params: { path: { organizationId, materialId: material.id }, header: { 'If-Match': etag, 'Idempotency-Key': randomUUID() } },
      body: { reorderLevel: 15 },
    });
    expect(corrected.response.status).toBe(200);
    expect(corrected.data?.reorderLevel).toBe(15);

    const list = await client.GET('/v1/organizations/{organizationId}/materials', { params: { path: { organizationId }, query: { q: 'floor cleaner' } } });
    expect(list.data?.items.map((m) => m.id)).toContain(material.id);
  });

  it('answers a stale ETag with the typed problem (412 ETAG_MISMATCH)', async () => {
    const { data: material } = await client.POST('/v1/organizations/{organizationId}/materials', {
      params: { path: { organizationId }, header: { 'Idempotency-Key': randomUUID() } },
      body: { name: `Gloves ${randomUUID().slice(0, 8)}` },
    });
    const stale = await client.PATCH('/v1/organizations/{organizationId}/materials/{materialId}', {
      params: { path: { organizationId, materialId: material!.id }, header: { 'If-Match': `"material:${material!.id}:v9"`, 'Idempotency-Key': randomUUID() } },
      body: { reorderLevel: 1 },
    });
    expect(stale.response.status).toBe(412);
    expect(stale.error).toMatchObject({ code: 'ETAG_MISMATCH', status: 412, requestId: stale.response.headers.get('x-request-id') });
  });

  it('creates an employee and lists it', async () => {
    const userName = `client.${randomUUID().slice(0, 8)}@acme.example`;
    const created = await client.POST('/v1/organizations/{organizationId}/employees', {
      params: { path: { organizationId }, header: { 'Idempotency-Key': randomUUID() } },
      body: { userName, givenName: 'Mira', familyName: 'Client', emails: [{ value: userName, type: 'work', primary: true }] },
    });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ userName, givenName: 'Mira', familyName: 'Client', active: true });

    const list = await client.GET('/v1/organizations/{organizationId}/employees', { params: { path: { organizationId }, query: { q: 'client' } } });
    expect(list.data?.items.map((e) => e.userName)).toContain(userName);
  });

  it('reads the organization, and is refused without a valid key', async () => {
    const organization = await client.GET('/v1/organizations/{organizationId}/organization', { params: { path: { organizationId } } });
    expect(organization.data?.id).toBe(organizationId);
    const anonymous = createClient({ baseUrl: api.gateway.url, apiKey: 'not-a-key' });
    const refused = await anonymous.GET('/v1/organizations/{organizationId}/materials', { params: { path: { organizationId } } });
    expect(refused.response.status).toBe(401);
    expect(refused.error).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});
