import { createHash, randomUUID } from 'node:crypto';
import { PLANNING_IDS } from '../../services/planning/seed';
import { call, countByType, expectPointers, expectProblem, itemsOfType, scanTable, startApi, type ApiFixture } from '../support/api';
import { auditOf, createContact, createLocation, keyWith, read, send, sent } from './locations-fixture';

/**
 * Customer access grants (secret shown once, stored hashed, never listed, logged or audited;
 * INVITED -> ACTIVE -> REVOKED; expiry) and feedback (OPEN -> ACKNOWLEDGED -> RESOLVED).
 */
let api: ApiFixture;
let customerId: string;
let contactId: string;
const etag = (res: { headers: Headers }) => res.headers.get('etag')!;
const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString();

beforeAll(async () => {
  api = await startApi();
  contactId = (await createContact(api, { name: 'Portal User', email: 'portal@customer.example' })).id;
  customerId = (await sent(api, 'POST', '/customers', { name: 'Access Co', customerNumber: `A-${randomUUID().slice(0, 8)}`, locationIds: [api.demo.locations[0]], contactIds: [contactId] })).body.id;
});
afterAll(() => api?.close());

const invite = (over: Record<string, unknown> = {}, options = {}) => send(api, 'POST', '/customer-access', { customerId, contactId, permissions: ['reports:read', 'feedback:write'], expiresAt: inDays(30), ...over }, options);

describe('customer access', () => {
  it('shows the invitation secret once, stores only its hash, and never lists or audits it', async () => {
    const key = randomUUID();
    const expiresAt = inDays(30);
    const res = await invite({ expiresAt }, { idempotencyKey: key });
    expect(res.status).toBe(201);
    const secret: string = res.body.invitationSecret;
    expect(secret).toMatch(/^wfm_inv_[A-Za-z0-9_-]{43}$/);
    expect(res.body).toMatchObject({ customerId, contactId, state: 'INVITED', expired: false, permissions: ['feedback:write', 'reports:read'] });
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/customer-access/${res.body.id}`);
    const replay = await invite({ expiresAt }, { idempotencyKey: key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.body.id).toBe(res.body.id);
    expect(replay.body.invitationSecret).toBeUndefined();
    expect((await read(api, `/customer-access/${res.body.id}`)).body.invitationSecret).toBeUndefined();
    const list = await read(api, `/customer-access?customerId=${customerId}`);
    expect(list.body.items.map((g: { id: string }) => g.id)).toContain(res.body.id);
    expect(list.text).not.toContain(secret);
    const table = JSON.stringify(await scanTable(api.db));
    expect(table).not.toContain(secret);
    expect(table).not.toContain(secret.slice(8));
    const [grant] = (await itemsOfType(api.db, 'CustomerAccessGrant')).filter((g) => g.id === res.body.id);
    expect(grant.secretHash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(await auditOf(api, res.body.id))).not.toContain(grant.secretHash);
  });

  it('answers the create with Cache-Control: no-store, stored with the record so that its replay says it too; reads of the grant do not need it', async () => {
    const key = randomUUID();
    const expiresAt = inDays(30);
    const res = await invite({ expiresAt }, { idempotencyKey: key });
    expect({ status: res.status, cacheControl: res.headers.get('cache-control'), secret: typeof res.body.invitationSecret }).toEqual({ status: 201, cacheControl: 'no-store', secret: 'string' });
    const replay = await invite({ expiresAt }, { idempotencyKey: key });
    expect({ status: replay.status, replayed: replay.headers.get('idempotency-replayed'), cacheControl: replay.headers.get('cache-control'), id: replay.body.id }).toEqual({ status: 201, replayed: 'true', cacheControl: 'no-store', id: res.body.id });
    // The idempotency record holds the header (and never the secret).
    const records = (await itemsOfType(api.db, 'IdempotencyRecord')).filter((r) => typeof r.response?.bodyText === 'string' && r.response.bodyText.includes(res.body.id));
    expect(records).toHaveLength(1);
    expect(records[0].response.headers).toMatchObject({ 'Cache-Control': 'no-store' });
    expect(records[0].response.bodyText).not.toContain(res.body.invitationSecret);
    // A read holds no secret: no Cache-Control of its own.
    expect((await read(api, `/customer-access/${res.body.id}`)).headers.get('cache-control')).toBeNull();
    // A refusal holds no secret either.
    const refused = await invite({ contactId: randomUUID() });
    expect({ status: refused.status, cacheControl: refused.headers.get('cache-control') }).toEqual({ status: 422, cacheControl: null });
  });

  it('activates with the secret once; a wrong secret is 422; revoked is final', async () => {
    const res = await invite();
    const id = res.body.id;
    expectPointers(await send(api, 'POST', `/customer-access/${id}/activate`, { invitationSecret: 'wfm_inv_wrong' }, { ifMatch: etag(res) }), ['/invitationSecret']);
    const active = await sent(api, 'POST', `/customer-access/${id}/activate`, { invitationSecret: res.body.invitationSecret }, 200, { ifMatch: etag(res) });
    expect(active.body).toMatchObject({ state: 'ACTIVE', activatedAt: expect.any(String), version: 2 });
    expectProblem(await send(api, 'POST', `/customer-access/${id}/activate`, { invitationSecret: res.body.invitationSecret }, { ifMatch: etag(active) }), 409, 'CUSTOMER_ACCESS_ACTIVE');
    const [grant] = (await itemsOfType(api.db, 'CustomerAccessGrant')).filter((g) => g.id === id);
    expect(grant.secretHash).toBeNull();
    const revoked = await sent(api, 'POST', `/customer-access/${id}/revoke`, { reason: 'Contract ended' }, 200, { ifMatch: etag(active) });
    expect(revoked.body).toMatchObject({ state: 'REVOKED', revokedAt: expect.any(String) });
    expectProblem(await send(api, 'POST', `/customer-access/${id}/revoke`, undefined, { ifMatch: etag(revoked) }), 409, 'CUSTOMER_ACCESS_REVOKED');
    expectProblem(await send(api, 'POST', `/customer-access/${id}/activate`, { invitationSecret: 'x' }, { ifMatch: etag(revoked) }), 409, 'CUSTOMER_ACCESS_REVOKED');
    expect((await auditOf(api, id)).map((a) => a.action)).toEqual(['customer_access.invited', 'customer_access.activated', 'customer_access.revoked']);
  });

  it('refuses activation after expiry with 409 CUSTOMER_ACCESS_EXPIRED', async () => {
    const res = await invite({ expiresAt: new Date(Date.now() + 1500).toISOString() });
    await new Promise((r) => setTimeout(r, 1600));
    expect((await read(api, `/customer-access/${res.body.id}`)).body.expired).toBe(true);
    expectProblem(await send(api, 'POST', `/customer-access/${res.body.id}/activate`, { invitationSecret: res.body.invitationSecret }, { ifMatch: etag(res) }), 409, 'CUSTOMER_ACCESS_EXPIRED');
  });

  it('refuses activation once the customer is archived (409 CUSTOMER_ARCHIVED) or the contact unlinked (409 CUSTOMER_CONTACT_UNLINKED); the grant stays INVITED', async () => {
    const contact = await createContact(api, { name: 'Invited Person' });
    const customer = await sent(api, 'POST', '/customers', { name: 'Leaving Co', customerNumber: `L-${randomUUID().slice(0, 8)}`, contactIds: [contact.id] });
    const res = await invite({ customerId: customer.body.id, contactId: contact.id });
    expect(res.status).toBe(201);
    const activate = () => send(api, 'POST', `/customer-access/${res.body.id}/activate`, { invitationSecret: res.body.invitationSecret }, { ifMatch: etag(res) });
    const unchanged = async () => {
      const now = await read(api, `/customer-access/${res.body.id}`);
      expect(now.body).toMatchObject({ state: 'INVITED', activatedAt: null, version: 1 });
      expect(etag(now)).toBe(etag(res));
      expect((await auditOf(api, res.body.id)).map((a) => a.action)).toEqual(['customer_access.invited']);
    };

    const archived = await sent(api, 'PATCH', `/customers/${customer.body.id}`, { archived: true }, 200, { ifMatch: etag(customer) });
    expectProblem(await activate(), 409, 'CUSTOMER_ARCHIVED');
    await unchanged();

    const restored = await sent(api, 'PATCH', `/customers/${customer.body.id}`, { archived: false, contactIds: [] }, 200, { ifMatch: etag(archived) });
    expectProblem(await activate(), 409, 'CUSTOMER_CONTACT_UNLINKED');
    await unchanged();

    await sent(api, 'PATCH', `/customers/${customer.body.id}`, { contactIds: [contact.id] }, 200, { ifMatch: etag(restored) });
    expect((await activate()).body).toMatchObject({ state: 'ACTIVE', version: 2 });
  });

  it('needs a linked contact of an active customer and a future expiry within a year', async () => {
    const other = await createContact(api, { name: 'Not linked' });
    expectPointers(await invite({ contactId: other.id }), ['/contactId']);
    expectPointers(await invite({ customerId: randomUUID() }), ['/customerId']);
    expectPointers(await invite({ expiresAt: inDays(-1) }), ['/expiresAt']);
    expectPointers(await invite({ expiresAt: inDays(400) }), ['/expiresAt']);
    expectPointers(await invite({ permissions: ['admin'] }), ['/permissions/0']);
  });

  it('needs customer_access scopes; another organization sees nothing', async () => {
    const res = await invite();
    const readOnly = await keyWith(api, ['customers:read', 'customers:write']);
    expectProblem(await read(api, `/customer-access/${res.body.id}`, readOnly), 403, 'SCOPE_REQUIRED');
    expectProblem(await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}/customer-access/${res.body.id}`, { token: api.demo.keys.otherOrganization }), 404, 'RESOURCE_NOT_FOUND');
    const foreign = await call('POST', `${api.orgUrl(api.demo.otherOrganizationId)}/customer-access`, {
      token: api.demo.keys.otherOrganization,
      idempotencyKey: randomUUID(),
      body: { customerId, contactId, permissions: ['reports:read'], expiresAt: inDays(3) },
    });
    expectPointers(foreign, ['/customerId']);
  });
});

describe('archiving a customer or unlinking a contact while access is active', () => {
  /** A customer linking two fresh contacts, with the demo location. */
  async function customerWithContacts() {
    const a = await createContact(api, { name: 'Granted Contact' });
    const b = await createContact(api, { name: 'Other Contact' });
    const customer = await sent(api, 'POST', '/customers', { name: 'Guarded Co', customerNumber: `G-${randomUUID().slice(0, 8)}`, locationIds: [api.demo.locations[0]], contactIds: [a.id, b.id] });
    return { customer, a: a.id as string, b: b.id as string };
  }
  /** An ACTIVE grant of this customer's contact. */
  async function activeGrant(customer: string, contact: string, expiresAt = inDays(30)) {
    const res = await invite({ customerId: customer, contactId: contact, expiresAt });
    expect(res.status).toBe(201);
    return sent(api, 'POST', `/customer-access/${res.body.id}/activate`, { invitationSecret: res.body.invitationSecret }, 200, { ifMatch: etag(res) });
  }
  const stored = async (id: string) => (await itemsOfType(api.db, 'Customer')).find((c) => c.id === id)!;
  const patch = (id: string, body: Record<string, unknown>, ifMatch: string) => send(api, 'PATCH', `/customers/${id}`, body, { ifMatch });

  it('refuses to archive a customer with an ACTIVE grant (409 CUSTOMER_ACCESS_GRANTED naming it, nothing written); after the revocation the archive goes through', async () => {
    const { customer, a } = await customerWithContacts();
    const grant = await activeGrant(customer.body.id, a);
    const before = await countByType(api.db);
    const refused = expectProblem(await patch(customer.body.id, { archived: true }, etag(customer)), 409, 'CUSTOMER_ACCESS_GRANTED');
    expect(refused.activeGrantIds).toEqual([grant.body.id]);
    expect(refused.detail).toContain(`/customer-access/{grantId}/revoke`);
    expect(refused.detail).not.toContain('Granted Contact');
    expect(await countByType(api.db)).toEqual(before);
    expect(await stored(customer.body.id)).toMatchObject({ archived: false, archivedAt: null, version: 1 });
    expect((await auditOf(api, customer.body.id)).map((e) => e.action)).toEqual(['customer.created']);
    expect((await read(api, `/customer-access/${grant.body.id}`)).body).toMatchObject({ state: 'ACTIVE', expired: false });
    expect((await read(api, `/customers?archived=true&q=${encodeURIComponent(customer.body.customerNumber)}`)).body.items).toEqual([]);

    await sent(api, 'POST', `/customer-access/${grant.body.id}/revoke`, { reason: 'Customer leaves' }, 200, { ifMatch: etag(grant) });
    const archived = await patch(customer.body.id, { archived: true }, etag(customer));
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ archived: true, version: 2 });
    expect(await stored(customer.body.id)).toMatchObject({ archived: true, version: 2 });
  });

  it("refuses to unlink an ACTIVE grant's contact (409, the link stays) but unlinks another contact; after the revocation the unlink goes through", async () => {
    const { customer, a, b } = await customerWithContacts();
    const grant = await activeGrant(customer.body.id, a);
    const refused = expectProblem(await patch(customer.body.id, { contactIds: [b] }, etag(customer)), 409, 'CUSTOMER_ACCESS_GRANTED');
    expect(refused.activeGrantIds).toEqual([grant.body.id]);
    expect(refused.detail).toContain(a);
    expect(await stored(customer.body.id)).toMatchObject({ contactIds: [a, b], version: 1 });
    // Archiving and unlinking in one PATCH is refused as well.
    expectProblem(await patch(customer.body.id, { archived: true, contactIds: [] }, etag(customer)), 409, 'CUSTOMER_ACCESS_GRANTED');

    const kept = await patch(customer.body.id, { contactIds: [a] }, etag(customer));
    expect(kept.status).toBe(200);
    expect(kept.body.contactIds).toEqual([a]);

    await sent(api, 'POST', `/customer-access/${grant.body.id}/revoke`, undefined, 200, { ifMatch: etag(grant) });
    const unlinked = await patch(customer.body.id, { contactIds: [] }, etag(kept));
    expect(unlinked.status).toBe(200);
    expect(await stored(customer.body.id)).toMatchObject({ contactIds: [], version: 3 });
  });

  it('lets expired grants (INVITED or ACTIVE) and INVITED ones not block: an archive and an unlink go through', async () => {
    const { customer, a, b } = await customerWithContacts();
    const soon = new Date(Date.now() + 1500).toISOString();
    const lapsedInvite = await invite({ customerId: customer.body.id, contactId: a, expiresAt: soon });
    const lapsedActive = await activeGrant(customer.body.id, b, soon);
    const pending = await invite({ customerId: customer.body.id, contactId: b });
    await new Promise((r) => setTimeout(r, 1600));
    expect((await read(api, `/customer-access/${lapsedInvite.body.id}`)).body).toMatchObject({ state: 'INVITED', expired: true });
    expect((await read(api, `/customer-access/${lapsedActive.body.id}`)).body).toMatchObject({ state: 'ACTIVE', expired: true });

    const unlinked = await patch(customer.body.id, { contactIds: [a] }, etag(customer));
    expect(unlinked.status).toBe(200);
    const archived = await patch(customer.body.id, { archived: true }, etag(unlinked));
    expect(archived.status).toBe(200);
    expect(await stored(customer.body.id)).toMatchObject({ archived: true, contactIds: [a], version: 3 });
    // The pending invitation stays INVITED and cannot be activated while the customer is archived.
    expectProblem(await send(api, 'POST', `/customer-access/${pending.body.id}/activate`, { invitationSecret: pending.body.invitationSecret }, { ifMatch: etag(pending) }), 409, 'CUSTOMER_ARCHIVED');
  });

  it('lets REVOKED grants (revoked while INVITED or while ACTIVE) not block', async () => {
    const { customer, a, b } = await customerWithContacts();
    const invited = await invite({ customerId: customer.body.id, contactId: a });
    await sent(api, 'POST', `/customer-access/${invited.body.id}/revoke`, undefined, 200, { ifMatch: etag(invited) });
    const active = await activeGrant(customer.body.id, b);
    await sent(api, 'POST', `/customer-access/${active.body.id}/revoke`, undefined, 200, { ifMatch: etag(active) });
    const listed = await read(api, `/customer-access?customerId=${customer.body.id}`);
    expect(listed.body.items.map((g: { state: string }) => g.state)).toEqual(['REVOKED', 'REVOKED']);

    const unlinked = await patch(customer.body.id, { contactIds: [] }, etag(customer));
    expect(unlinked.status).toBe(200);
    const archived = await patch(customer.body.id, { archived: true }, etag(unlinked));
    expect(archived.status).toBe(200);
    expect(await stored(customer.body.id)).toMatchObject({ archived: true, contactIds: [] });
  });
});

describe('feedback', () => {
  const feedback = (over: Record<string, unknown> = {}) => send(api, 'POST', '/feedback', { rating: 4, category: 'CLEANLINESS', comment: 'Windows streaky on floor 3', locationId: api.demo.locations[0], ...over });

  it('records OPEN feedback, keeps the comment out of the audit, and moves OPEN -> ACKNOWLEDGED -> RESOLVED', async () => {
    const res = await feedback({ customerId });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ rating: 4, category: 'CLEANLINESS', state: 'OPEN', customerId, inspectionId: null, visitConfirmationId: null, resolutionNote: null });
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/feedback/${res.body.id}`);
    const ack = await sent(api, 'POST', `/feedback/${res.body.id}/acknowledge`, undefined, 200, { ifMatch: etag(res) });
    expect(ack.body).toMatchObject({ state: 'ACKNOWLEDGED', acknowledgedAt: expect.any(String) });
    expectProblem(await send(api, 'POST', `/feedback/${res.body.id}/acknowledge`, {}, { ifMatch: etag(ack) }), 409, 'FEEDBACK_ACKNOWLEDGED');
    const resolved = await sent(api, 'POST', `/feedback/${res.body.id}/resolve`, { resolutionNote: 'Re-cleaned' }, 200, { ifMatch: etag(ack) });
    expect(resolved.body).toMatchObject({ state: 'RESOLVED', resolutionNote: 'Re-cleaned' });
    expectProblem(await send(api, 'POST', `/feedback/${res.body.id}/resolve`, { resolutionNote: 'again' }, { ifMatch: etag(resolved) }), 409, 'FEEDBACK_RESOLVED');
    expectProblem(await send(api, 'POST', `/feedback/${res.body.id}/acknowledge`, {}, { ifMatch: etag(resolved) }), 409, 'FEEDBACK_RESOLVED');
    const audits = await auditOf(api, res.body.id);
    expect(audits.map((a) => a.action)).toEqual(['feedback.created', 'feedback.acknowledged', 'feedback.resolved']);
    expect(JSON.stringify(audits)).not.toContain('streaky');
    expect(JSON.stringify(audits)).not.toContain('Re-cleaned');
  });

  it('filters by state and by location', async () => {
    const res = await feedback({ locationId: api.demo.locations[1], rating: 2, category: 'PUNCTUALITY' });
    const open = await read(api, '/feedback?state=OPEN&limit=200');
    expect(open.body.items.every((f: { state: string }) => f.state === 'OPEN')).toBe(true);
    expect(open.body.items.map((f: { id: string }) => f.id)).toContain(res.body.id);
    const atLocation = await read(api, `/feedback?locationId=${api.demo.locations[1]}&limit=200`);
    expect(atLocation.body.items.map((f: { id: string }) => f.id)).toContain(res.body.id);
    expect(atLocation.body.items.every((f: { locationId: string }) => f.locationId === api.demo.locations[1])).toBe(true);
    expect((await read(api, `/feedback?state=OPEN&locationId=${api.demo.locations[1]}`)).status).toBe(422);
  });

  it('checks rating, category and references (foreign location, customer not linking the location, unknown inspection)', async () => {
    expectPointers(await feedback({ rating: 6, category: 'MOOD' }), ['/rating', '/category']);
    expectPointers(await feedback({ locationId: api.demo.otherOrganizationLocations[0] }), ['/locationId']);
    expectPointers(await feedback({ locationId: api.demo.locations[1], customerId }), ['/customerId']);
    expectPointers(await feedback({ inspectionId: randomUUID() }), ['/inspectionId']);
  });

  it('names a rating of the wrong type with what was given, and says "Required" only when it is absent: 422, nothing written', async () => {
    const before = await countByType(api.db);
    for (const [rating, detail] of [
      [4.5, 'rating must be a whole number from 1 to 5; got the number 4.5.'],
      ['4', 'rating must be a whole number from 1 to 5; got a string of 1 character.'],
      [null, 'rating must be a whole number from 1 to 5; got null.'],
      [undefined, 'rating must be a whole number from 1 to 5.'],
    ] as const) {
      const res = await feedback({ rating });
      expectPointers(res, ['/rating']);
      expect(res.body.errors[0].detail).toBe(detail);
      expect(res.body.detail).toBe(`/rating: ${detail}`);
    }
    const overflow = await call('POST', `${api.orgUrl()}/feedback`, {
      token: api.demo.keys.admin,
      idempotencyKey: randomUUID(),
      headers: { 'Content-Type': 'application/json' },
      rawBody: `{"rating":1e400,"category":"CLEANLINESS","locationId":"${api.demo.locations[0]}"}`,
    });
    expectPointers(overflow, ['/rating']);
    expect(overflow.body.errors[0].detail).toBe('rating must be a whole number from 1 to 5; got a number too large to represent (beyond ±1.8e308, it reads as Infinity).');
    expect(await countByType(api.db)).toEqual(before);
  });

  it('refuses NUL and escape sequences in the comment and the resolution note (422 at the field, nothing written) and keeps line breaks and tabs', async () => {
    const before = await countByType(api.db);
    const bad = await feedback({ comment: 'Streaky\u001b[31m windows' });
    expectPointers(bad, ['/comment']);
    expect(bad.body.errors[0].detail).toMatch(/^comment must not contain control characters other than tab and line breaks .*; found U\+001B at character 8\.$/);
    expect(await countByType(api.db)).toEqual(before);
    const comment = 'Floor 3:\n\tstreaky\r\nFloor 4: ok';
    const created = await feedback({ comment });
    expect(created.status).toBe(201);
    expect(created.body.comment).toBe(comment);
    const unresolved = await send(api, 'POST', `/feedback/${created.body.id}/resolve`, { resolutionNote: 'Re-cleaned\u0000' }, { ifMatch: etag(created) });
    expectPointers(unresolved, ['/resolutionNote']);
    expect(unresolved.body.errors[0].detail).toMatch(/found U\+0000 at character 11\.$/);
    expect((await read(api, `/feedback/${created.body.id}`)).body).toMatchObject({ state: 'OPEN', resolutionNote: null, comment });
  });

  it('records feedback that names a visit confirmation at its location: echoed, read back, listed, and named in the audit entry', async () => {
    const [visitId] = PLANNING_IDS.visits; // the seeded confirmation at demo location 0
    const res = await feedback({ visitConfirmationId: visitId });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ locationId: api.demo.locations[0], visitConfirmationId: visitId, inspectionId: null });
    expect((await read(api, `/feedback/${res.body.id}`)).body.visitConfirmationId).toBe(visitId);
    const listed = (await read(api, `/feedback?locationId=${api.demo.locations[0]}&limit=200`)).body.items.find((f: { id: string }) => f.id === res.body.id);
    expect(listed.visitConfirmationId).toBe(visitId);
    const [created] = await auditOf(api, res.body.id);
    expect(created).toMatchObject({ action: 'feedback.created', references: { locationId: api.demo.locations[0], visitConfirmationId: visitId } });
    expect(created.references).not.toHaveProperty('inspectionId');
  });

  it('refuses a visit confirmation of another organization, an unknown one, or one made at another location: 422 at /visitConfirmationId, nothing written', async () => {
    const before = await countByType(api.db);
    const foreign = await feedback({ visitConfirmationId: PLANNING_IDS.otherVisit });
    expectPointers(foreign, ['/visitConfirmationId']);
    expect(foreign.body.errors[0].detail).toContain('does not exist');
    expectPointers(await feedback({ visitConfirmationId: randomUUID() }), ['/visitConfirmationId']);
    const elsewhere = await feedback({ visitConfirmationId: PLANNING_IDS.visits[1] }); // made at demo location 1
    expectPointers(elsewhere, ['/visitConfirmationId']);
    expect(elsewhere.body.errors[0].detail).toContain(`location ${api.demo.locations[0]}`);
    expectPointers(await feedback({ visitConfirmationId: 'not-a-uuid' }), ['/visitConfirmationId']);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('refuses an archived location or an archived customer: 422 at the field, nothing written', async () => {
    const closed = await createLocation(api, { name: `Closed site ${randomUUID().slice(0, 6)}` });
    await sent(api, 'DELETE', `/locations/${closed.id}`);
    const former = await sent(api, 'POST', '/customers', { name: 'Former Co', customerNumber: `F-${randomUUID().slice(0, 8)}`, locationIds: [api.demo.locations[0]] });
    await sent(api, 'PATCH', `/customers/${former.body.id}`, { archived: true }, 200, { ifMatch: etag(former) });
    const before = await countByType(api.db);
    const atClosed = await feedback({ locationId: closed.id });
    expectPointers(atClosed, ['/locationId']);
    expect(atClosed.body.errors[0].detail).toContain('archived');
    const byFormer = await feedback({ customerId: former.body.id });
    expectPointers(byFormer, ['/customerId']);
    expect(byFormer.body.errors[0].detail).toContain('archived');
    expect(await countByType(api.db)).toEqual(before);
    expect((await read(api, `/feedback?locationId=${closed.id}`)).body.items).toEqual([]);
  });

  it('needs feedback scopes; another organization gets 404', async () => {
    const res = await feedback();
    const token = await keyWith(api, ['feedback:read']);
    expectProblem(await send(api, 'POST', `/feedback/${res.body.id}/acknowledge`, {}, { token, ifMatch: etag(res) }), 403, 'SCOPE_REQUIRED');
    expectProblem(await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}/feedback/${res.body.id}`, { token: api.demo.keys.otherOrganization }), 404, 'RESOURCE_NOT_FOUND');
  });
});
