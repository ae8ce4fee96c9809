import { randomUUID } from 'node:crypto';
import { contactResponseSchema, locationResponseSchema } from '../../services/locations/schemas';
import { call, countByType, expectPointers, expectProblem, itemsOfType, startApi, walkPages, withQuery, type ApiFixture } from '../support/api';
import { auditOf, createContact, createLocation, ids, keyWith, read, send, sent } from './locations-fixture';

/**
 * Reusable contacts are organization-owned personal data (organization-api.md, Data-protection
 * rules): their values appear in location responses, lists and search only for keys that hold
 * contacts:read (absent, not null, otherwise); creating, changing and linking them needs
 * contacts:write; they never reach the audit trail.
 */
let api: ApiFixture;
let locationsOnly: string;
let locationsWriter: string;
let contactsReader: string;

const ANNA = { name: 'Anna Kowalska', email: 'anna.kowalska@example.com', phone: '+49 40 123 4567', role: 'Facility manager' };
const BEN = { name: 'Ben Osei', email: null, phone: '040 987 65', role: null };
let anna: any;
let ben: any;
let site: any;

beforeAll(async () => {
  api = await startApi();
  locationsOnly = await keyWith(api, ['locations:read']);
  locationsWriter = await keyWith(api, ['locations:read', 'locations:write']);
  contactsReader = await keyWith(api, ['contacts:read']);
  anna = await createContact(api, ANNA);
  ben = await createContact(api, BEN);
  site = await createLocation(api, { name: 'Contact Tower', address: 'Alsterufer 4, Hamburg', contactIds: [anna.id, ben.id] });
});
afterAll(() => api?.close());

describe('contact values in location responses', () => {
  it('are shown, in link order, to a key with contacts:read', async () => {
    const res = await read(api, `/locations/${site.id}`);
    expect(res.body.contactIds).toEqual([anna.id, ben.id]);
    expect(res.body.contacts).toEqual([anna, ben]);
    expect(res.body.contacts[0]).toMatchObject(ANNA);
    expect(locationResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
  });

  it('are absent, not null, for a key without contacts:read, in reads, lists and search', async () => {
    const one = await read(api, `/locations/${site.id}`, locationsOnly);
    expect(one.status).toBe(200);
    expect(one.body.contactIds).toEqual([anna.id, ben.id]);
    expect('contacts' in one.body).toBe(false);
    expect(one.text).not.toContain('Kowalska');
    expect(locationResponseSchema.strict().safeParse(one.body).error).toBeUndefined();

    const listed = (await walkPages(`${api.orgUrl()}/locations`, locationsOnly)).flatMap((p) => p.body.items);
    expect(listed.length).toBeGreaterThan(0);
    for (const l of listed) expect('contacts' in l).toBe(false);
    const found = await call('GET', withQuery(`${api.orgUrl()}/locations`, { q: 'contact tower' }), { token: locationsOnly });
    expect(ids(found)).toEqual([site.id]);
    expect('contacts' in found.body.items[0]).toBe(false);
    expect(found.text).not.toMatch(/anna|kowalska|123 4567/i);
  });

  it('are shown in lists and search to a key with contacts:read', async () => {
    const found = await call('GET', withQuery(`${api.orgUrl()}/locations`, { q: 'alsterufer' }), { token: api.demo.keys.readOnly });
    expect(found.body.items).toHaveLength(1);
    expect(found.body.items[0].contacts).toEqual([anna, ben]);
  });

  it('are absent from the write responses of a key without contacts:read', async () => {
    const created = await sent(api, 'POST', '/locations', { name: 'Writer Site' }, 201, { token: locationsWriter });
    expect('contacts' in created.body).toBe(false);
    const patched = await sent(api, 'PATCH', `/locations/${site.id}`, { address: 'Alsterufer 5, Hamburg' }, 200, { token: locationsWriter, ifMatch: `"location:${site.id}:v1"` });
    expect(patched.body.contactIds).toEqual([anna.id, ben.id]);
    expect('contacts' in patched.body).toBe(false);
    const archived = await sent(api, 'DELETE', `/locations/${created.body.id}`, undefined, 200, { token: locationsWriter });
    expect('contacts' in archived.body).toBe(false);
  });

  it('are not searchable through locations: q matches name and address only', async () => {
    const res = await call('GET', withQuery(`${api.orgUrl()}/locations`, { q: 'kowalska' }), { token: api.demo.keys.admin });
    expect(res.body.items).toEqual([]);
  });
});

describe('linking contacts', () => {
  it('needs contacts:write: in a create, a PATCH of contactIds, and PUT/DELETE of a link', async () => {
    const before = await countByType(api.db);
    const denied = expectProblem(await send(api, 'POST', '/locations', { name: 'No Scope', contactIds: [anna.id] }, { token: locationsWriter }), 403, 'SCOPE_REQUIRED');
    expect(denied.requiredScopes).toEqual(['contacts:write']);
    const current = await read(api, `/locations/${site.id}`);
    expectProblem(await send(api, 'PATCH', `/locations/${site.id}`, { contactIds: [] }, { token: locationsWriter, ifMatch: current.headers.get('etag')! }), 403, 'SCOPE_REQUIRED');
    expectProblem(await send(api, 'PUT', `/locations/${site.id}/contacts/${anna.id}`, undefined, { token: locationsWriter }), 403, 'SCOPE_REQUIRED');
    expectProblem(await send(api, 'DELETE', `/locations/${site.id}/contacts/${anna.id}`, undefined, { token: locationsWriter }), 403, 'SCOPE_REQUIRED');
    expectProblem(await send(api, 'POST', '/contacts', { name: 'Nope' }, { token: locationsWriter }), 403, 'SCOPE_REQUIRED');
    expect(await countByType(api.db)).toEqual(before);
  });

  it("rejects another organization's contact in a body with 422 at its index, and writes nothing", async () => {
    const other = await call('POST', `${api.orgUrl(api.demo.otherOrganizationId)}/contacts`, { token: api.demo.keys.otherOrganization, idempotencyKey: randomUUID(), body: { name: 'Globex Contact' } });
    expect(other.status).toBe(201);
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', '/locations', { name: 'Mixed', contactIds: [anna.id, other.body.id] }), ['/contactIds/1']);
    expectPointers(await send(api, 'POST', '/locations', { name: 'Twice', contactIds: [anna.id, anna.id] }), ['/contactIds/1']);
    expect(await countByType(api.db)).toEqual(before);
    expectProblem(await send(api, 'PUT', `/locations/${site.id}/contacts/${other.body.id}`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('links and unlinks by PUT and DELETE, idempotently, with an audit entry naming only the contact id', async () => {
    const carl = await createContact(api, { name: 'Carl Privat', email: 'carl@private.example' });
    const place = await createLocation(api, { name: 'Link Place' });
    const linked = await sent(api, 'PUT', `/locations/${place.id}/contacts/${carl.id}`);
    expect(linked.body).toMatchObject({ contactIds: [carl.id], contacts: [carl], version: 2 });
    expect(linked.headers.get('etag')).toBe(`"location:${place.id}:v2"`);
    const again = await sent(api, 'PUT', `/locations/${place.id}/contacts/${carl.id}`);
    expect(again.body.version).toBe(2);
    const unlinked = await sent(api, 'DELETE', `/locations/${place.id}/contacts/${carl.id}`);
    expect(unlinked.body).toMatchObject({ contactIds: [], contacts: [], version: 3 });
    expect((await read(api, `/contacts/${carl.id}`)).status).toBe(200);
    const audits = await auditOf(api, place.id);
    expect(audits.map((a) => [a.action, a.references ?? null, a.changedAttributes])).toEqual([
      ['location.created', null, ['name']],
      ['location.contact_linked', { contactId: carl.id }, ['contactIds']],
      ['location.contact_unlinked', { contactId: carl.id }, ['contactIds']],
    ]);
  });
});

describe('/contacts', () => {
  it('creates with 201 + Location + ETag, reads and changes with If-Match', async () => {
    const res = await sent(api, 'POST', '/contacts', { name: 'Dora Day', email: 'dora@example.com', phone: '', role: '  ' });
    expect(res.body).toMatchObject({ name: 'Dora Day', email: 'dora@example.com', phone: null, role: null, version: 1 });
    expect(contactResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/contacts/${res.body.id}`);
    expect(res.headers.get('etag')).toBe(`"contact:${res.body.id}:v1"`);
    expectProblem(await send(api, 'PATCH', `/contacts/${res.body.id}`, { phone: '+1 555 0100' }), 428, 'ETAG_REQUIRED');
    expectProblem(await send(api, 'PATCH', `/contacts/${res.body.id}`, { phone: '+1 555 0100' }, { ifMatch: '"contact:x:v1"' }), 412, 'ETAG_MISMATCH');
    const changed = await sent(api, 'PATCH', `/contacts/${res.body.id}`, { phone: '+1 555 0100', email: null }, 200, { ifMatch: res.headers.get('etag')! });
    expect(changed.body).toMatchObject({ phone: '+1 555 0100', email: null, version: 2 });
    const audits = await auditOf(api, res.body.id);
    expect(audits.map((a) => [a.action, a.entity.type, a.changedAttributes])).toEqual([
      ['contact.created', 'contact', ['email', 'name']],
      ['contact.updated', 'contact', ['email', 'phone']],
    ]);
  });

  it('validates e-mail, phone and unknown fields', async () => {
    expectPointers(await send(api, 'POST', '/contacts', { name: 'X', email: 'not-an-email', phone: 'call me', fax: '1' }), ['/email', '/phone', '/fax']);
    expectPointers(await send(api, 'POST', '/contacts', { email: 'a@b.example' }), ['/name']);
  });

  it('shows a changed contact in every linked location', async () => {
    const eve = await createContact(api, { name: 'Eve Early' });
    const place = await createLocation(api, { name: 'Eve Place', contactIds: [eve.id] });
    await sent(api, 'PATCH', `/contacts/${eve.id}`, { name: 'Eve Later' }, 200, { ifMatch: `"contact:${eve.id}:v1"` });
    expect((await read(api, `/locations/${place.id}`)).body.contacts[0].name).toBe('Eve Later');
  });

  it('lists in creation order and searches name, e-mail and phone', async () => {
    const all = (await walkPages(withQuery(`${api.orgUrl()}/contacts`, { limit: 2 }), contactsReader)).flatMap((p) => ids(p));
    expect(all.slice(0, 2)).toEqual([anna.id, ben.id]);
    const search = async (q: string) => ids(await call('GET', withQuery(`${api.orgUrl()}/contacts`, { q }), { token: contactsReader }));
    expect(await search('kowal')).toEqual([anna.id]);
    expect(await search('anna.kowalska@ex')).toEqual([anna.id]);
    expect(await search('4940123')).toEqual([anna.id]);
    expect(await search('040 987')).toEqual([ben.id]);
    expect(await search('osei')).toEqual([ben.id]);
  });

  it('needs contacts:read to read, and answers 404 across organizations', async () => {
    expectProblem(await read(api, '/contacts', locationsOnly), 403, 'SCOPE_REQUIRED');
    expectProblem(await read(api, `/contacts/${anna.id}`, locationsOnly), 403, 'SCOPE_REQUIRED');
    expectProblem(await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}/contacts/${anna.id}`, { token: api.demo.keys.otherOrganization }), 404, 'RESOURCE_NOT_FOUND');
    const theirs = (await walkPages(`${api.orgUrl(api.demo.otherOrganizationId)}/contacts`, api.demo.keys.otherOrganization)).flatMap((p) => ids(p));
    expect(theirs).not.toContain(anna.id);
  });
});

describe('audit trail', () => {
  it('never holds a contact value', async () => {
    const audits = JSON.stringify(await itemsOfType(api.db, 'AuditEntry'));
    for (const value of [ANNA.name, ANNA.email, ANNA.phone, ANNA.role, BEN.name, BEN.phone, 'carl@private.example', 'Dora Day', '+1 555 0100']) {
      expect(audits).not.toContain(value);
    }
  });
});
