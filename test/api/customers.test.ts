import { randomUUID } from 'node:crypto';
import { customerResponseSchema } from '../../services/customers/schemas';
import { CUSTOMER_DEMO_IDS } from '../../services/customers/seed';
import { call, countByType, expectPointers, expectProblem, itemsOfType, scanTable, startApi, type ApiFixture } from '../support/api';
import { auditOf, createContact, createLocation, ids, keyWith, read, send, sent } from './locations-fixture';

/**
 * Customers: create with a unique customer number (case-insensitive, atomic), linked
 * locations and contacts of this organization only, contact values only with contacts:read,
 * PATCH with If-Match (number moves, archive keeps the number), q search, and isolation.
 */
let api: ApiFixture;
const num = () => `C-${randomUUID().slice(0, 8)}`;
const etag = (res: { headers: Headers }) => res.headers.get('etag')!;
/** A location of the demo organization, archived (DELETE). */
const archivedLocation = async (): Promise<string> => {
  const location = await createLocation(api, { name: `Closed site ${randomUUID().slice(0, 6)}` });
  await sent(api, 'DELETE', `/locations/${location.id}`);
  return location.id;
};

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

describe('POST /customers', () => {
  it('creates a customer with links: 201 + Location + ETag, audit in the same change', async () => {
    const contact = await createContact(api, { name: 'Fay Manager', email: 'fay@customer.example' });
    const number = num();
    const res = await sent(api, 'POST', '/customers', { name: 'Harbour Holdings', customerNumber: number, billingAddress: 'Quay 1, Harbour', vatId: 'DE123456789', locationIds: [api.demo.locations[0]], contactIds: [contact.id] });
    expect(res.body).toMatchObject({ name: 'Harbour Holdings', customerNumber: number, locationIds: [api.demo.locations[0]], contactIds: [contact.id], archived: false, version: 1 });
    expect(res.body.contacts).toEqual([{ id: contact.id, name: 'Fay Manager', email: 'fay@customer.example', phone: null, role: null }]);
    expect(customerResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/customers/${res.body.id}`);
    expect(etag(res)).toBe(`"customer:${res.body.id}:v1"`);
    const [audit] = await auditOf(api, res.body.id);
    expect(audit).toMatchObject({ action: 'customer.created', entity: { type: 'customer', id: res.body.id }, requestId: res.requestId });
    expect(JSON.stringify(audit)).not.toContain('fay@customer.example');
    expect(JSON.stringify(audit)).not.toContain('Quay 1');
    const guards = (await itemsOfType(api.db, 'CustomerNumberGuard')).filter((g) => g.customerId === res.body.id);
    expect(guards).toHaveLength(1);
  });

  it('shows contact values only to keys with contacts:read', async () => {
    const contact = await createContact(api, { name: 'Hidden Person', phone: '+49 30 1234' });
    const created = await sent(api, 'POST', '/customers', { name: 'Private Co', customerNumber: num(), contactIds: [contact.id] });
    const token = await keyWith(api, ['customers:read']);
    const res = await read(api, `/customers/${created.body.id}`, token);
    expect(res.status).toBe(200);
    expect(res.body.contactIds).toEqual([contact.id]);
    expect(res.body.contacts).toBeUndefined();
    expect(res.text).not.toContain('Hidden Person');
  });

  it('refuses a customer number another customer holds, case-insensitively: 409, nothing written', async () => {
    const number = num();
    await sent(api, 'POST', '/customers', { name: 'First', customerNumber: number });
    const before = await countByType(api.db);
    const body = expectProblem(await send(api, 'POST', '/customers', { name: 'Second', customerNumber: number.toLowerCase() }), 409, 'UNIQUENESS_CONFLICT');
    expect(body.attribute).toBe('customerNumber');
    expect(await countByType(api.db)).toEqual(before);
  });

  it('lets exactly one of two concurrent creates with one number win', async () => {
    const number = num();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => send(api, 'POST', '/customers', { name: `Racer ${i}`, customerNumber: number })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expectProblem(r, 409, 'UNIQUENESS_CONFLICT');
    const holders = (await itemsOfType(api.db, 'Customer')).filter((c) => c.customerNumber === number);
    expect(holders).toHaveLength(1);
  });

  it('refuses links to another organization or unknown records with pointers', async () => {
    const foreign = await call('POST', `${api.orgUrl(api.demo.otherOrganizationId)}/contacts`, { token: api.demo.keys.otherOrganization, idempotencyKey: randomUUID(), body: { name: 'Globex person' } });
    expect(foreign.status).toBe(201);
    expectPointers(
      await send(api, 'POST', '/customers', { name: 'Links', customerNumber: num(), locationIds: [api.demo.locations[0], api.demo.otherOrganizationLocations[0]], contactIds: [foreign.body.id] }),
      ['/locationIds/1', '/contactIds/0'],
    );
    expectPointers(await send(api, 'POST', '/customers', { name: '', customerNumber: '', vatId: 'x'.repeat(31), locationIds: ['nope'], extra: 1 }), ['/name', '/customerNumber', '/vatId', '/locationIds/0', '/extra']);
  });

  it('refuses control and bidi formatting characters in the name and the VAT id (422 at each, nothing written); the billing address, free text, keeps line breaks and bidi', async () => {
    const before = await countByType(api.db);
    const res = await send(api, 'POST', '/customers', { name: 'Harbour\u202E Holdings', customerNumber: num(), vatId: 'DE123\n456789' });
    expectPointers(res, ['/name', '/vatId']);
    expect(res.body.errors.find((e: { pointer: string }) => e.pointer === '/name').detail).toMatch(/found U\+202E at character 8\.$/);
    expect(await countByType(api.db)).toEqual(before);
    const billingAddress = 'Quay 1\nHarbour\n\u2067שער 2\u2069';
    expect((await sent(api, 'POST', '/customers', { name: 'Harbour \u200fHoldings', customerNumber: num(), billingAddress })).body).toMatchObject({ name: 'Harbour \u200fHoldings', billingAddress });
  });

  it('refuses NUL, ESC and C1 controls in the billing address: 422 at /billingAddress naming the character, nothing written, on create and on PATCH', async () => {
    const before = await countByType(api.db);
    for (const [billingAddress, found] of [
      ['a\u0000b\u001b[31m', 'U+0000 at character 2'],
      ['Quay 1\u001b[2J', 'U+001B at character 7'],
      ['Quay\u00851', 'U+0085 at character 5'],
      ['Quay\u007f1', 'U+007F at character 5'],
    ]) {
      const res = await send(api, 'POST', '/customers', { name: 'Escape Co', customerNumber: num(), billingAddress });
      expectPointers(res, ['/billingAddress']);
      expect(res.body.errors[0].detail).toBe(`billingAddress must not contain control characters other than tab and line breaks (U+0000..U+0008, U+000B, U+000C, U+000E..U+001F, U+007F..U+009F); found ${found}.`);
      expect(res.text).not.toContain('\u001b');
    }
    expect(await countByType(api.db)).toEqual(before);
    const created = await sent(api, 'POST', '/customers', { name: 'Escape Later Co', customerNumber: num(), billingAddress: 'Quay 1' });
    expectPointers(await send(api, 'PATCH', `/customers/${created.body.id}`, { billingAddress: 'Quay\u00002' }, { ifMatch: etag(created) }), ['/billingAddress']);
    expect((await read(api, `/customers/${created.body.id}`)).body).toMatchObject({ billingAddress: 'Quay 1', version: 1 });
  });

  it('keeps tabs, line breaks (LF, CRLF) and bidi formatting in the billing address', async () => {
    const billingAddress = 'Quay 1\tDock\r\nHarbour\n\u2067שער 2\u2069 \u202eB\u202c \u200fend';
    const created = await sent(api, 'POST', '/customers', { name: 'Layout Co', customerNumber: num(), billingAddress });
    expect(created.body.billingAddress).toBe(billingAddress);
    expect((await read(api, `/customers/${created.body.id}`)).body.billingAddress).toBe(billingAddress);
    const stored = (await itemsOfType(api.db, 'Customer')).find((c) => c.id === created.body.id);
    expect(stored?.billingAddress).toBe(billingAddress);
  });

  it('names a value of the wrong type and what is expected, never "Required": 422, nothing written', async () => {
    const before = await countByType(api.db);
    const res = await send(api, 'POST', '/customers', { name: 'Typed Co', customerNumber: 42, billingAddress: ['Quay 1'], contactIds: 'x' });
    expectPointers(res, ['/customerNumber', '/billingAddress', '/contactIds']);
    const details = Object.fromEntries(res.body.errors.map((e: { pointer: string; detail: string }) => [e.pointer, e.detail]));
    expect(details).toEqual({
      '/customerNumber': 'customerNumber must be a string (a non-empty string); got a number.',
      '/billingAddress': 'billingAddress must be a string or null; got an array.',
      '/contactIds': 'contactIds must be an array of ids; got a string of 1 character.',
    });
    const missing = await send(api, 'POST', '/customers', { name: 'Untyped Co' });
    expectPointers(missing, ['/customerNumber']);
    expect(missing.body.errors[0].detail).toBe('customerNumber is required: a non-empty string.');
    expect(await countByType(api.db)).toEqual(before);
  });

  it('refuses a link to an archived location: 422 at its index, nothing written', async () => {
    const archived = await archivedLocation();
    const before = await countByType(api.db);
    const res = await send(api, 'POST', '/customers', { name: 'Closed links', customerNumber: num(), locationIds: [api.demo.locations[0], archived] });
    expectPointers(res, ['/locationIds/1']);
    expect(res.body.errors[0].detail).toContain('archived');
    expect(await countByType(api.db)).toEqual(before);
  });

  it('needs contacts:write to send contactIds: 403 SCOPE_REQUIRED naming it, nothing written', async () => {
    const contact = await createContact(api, { name: 'Scoped Person' });
    const token = await keyWith(api, ['customers:read', 'customers:write', 'contacts:read']);
    const before = await countByType(api.db);
    for (const contactIds of [[contact.id], []]) {
      const body = expectProblem(await send(api, 'POST', '/customers', { name: 'No contacts scope', customerNumber: num(), contactIds }, { token }), 403, 'SCOPE_REQUIRED');
      expect(body.requiredScopes).toEqual(['contacts:write']);
    }
    expect(await countByType(api.db)).toEqual(before);
    const created = await sent(api, 'POST', '/customers', { name: 'No contacts sent', customerNumber: num(), locationIds: [api.demo.locations[0]] }, 201, { token });
    expect(created.body.contactIds).toEqual([]);
  });

  it('needs an Idempotency-Key and customers:write', async () => {
    expectProblem(await send(api, 'POST', '/customers', { name: 'No key', customerNumber: num() }, { idempotencyKey: undefined }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    const token = await keyWith(api, ['customers:read']);
    expectProblem(await send(api, 'POST', '/customers', { name: 'Read only', customerNumber: num() }, { token }), 403, 'SCOPE_REQUIRED');
  });
});

describe('GET /customers', () => {
  it('lists by name, finds by q (name or number), and lists archived ones apart', async () => {
    const number = `QX-${randomUUID().slice(0, 6)}`;
    const created = await sent(api, 'POST', '/customers', { name: 'Zephyr Searchable', customerNumber: number });
    const byNumber = await read(api, `/customers?q=${encodeURIComponent(number)}`);
    expect(byNumber.body.items.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
    const list = await read(api, '/customers?limit=200');
    expect(list.body.items.map((c: { id: string }) => c.id)).toContain(created.body.id);
    await sent(api, 'PATCH', `/customers/${created.body.id}`, { archived: true }, 200, { ifMatch: etag(created) });
    expect((await read(api, '/customers?limit=200')).body.items.map((c: { id: string }) => c.id)).not.toContain(created.body.id);
    expect((await read(api, '/customers?archived=true&limit=200')).body.items.map((c: { id: string }) => c.id)).toContain(created.body.id);
  });

  it('never shows another organization a customer: 404 by id, absent from lists', async () => {
    const created = await sent(api, 'POST', '/customers', { name: 'Acme only', customerNumber: num() });
    const other = await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}/customers/${created.body.id}`, { token: api.demo.keys.otherOrganization });
    expectProblem(other, 404, 'RESOURCE_NOT_FOUND');
    const list = await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}/customers?limit=200`, { token: api.demo.keys.otherOrganization });
    expect(list.text).not.toContain(created.body.id);
    expectProblem(await call('GET', `${api.orgUrl()}/customers/${created.body.id}`, { token: api.demo.keys.otherOrganization }), 403, 'ACCESS_DENIED');
  });
});

describe('the demo seed', () => {
  it('writes its customers with their search words: found by q on /customers and /search before any edit', async () => {
    const [harbour, rail] = CUSTOMER_DEMO_IDS.customers;
    expect(ids(await read(api, '/customers?q=harbour%20holdings'))).toContain(harbour);
    expect(ids(await read(api, '/customers?q=C-1002'))).toContain(rail);
    const found = await read(api, '/search?q=central%20rail&types=customer');
    expect(found.status).toBe(200);
    expect(found.body.items.map((i: { type: string; id: string }) => [i.type, i.id])).toContainEqual(['customer', rail]);
    expect((await read(api, `/customers/${rail}`)).body.version).toBe(1);
  });
});

describe('PATCH /customers/{customerId}', () => {
  it('moves the number guard with the number; the old number becomes free', async () => {
    const oldNumber = num();
    const newNumber = num();
    const created = await sent(api, 'POST', '/customers', { name: 'Mover', customerNumber: oldNumber });
    const moved = await sent(api, 'PATCH', `/customers/${created.body.id}`, { customerNumber: newNumber }, 200, { ifMatch: etag(created) });
    expect(moved.body).toMatchObject({ customerNumber: newNumber, version: 2 });
    const guards = (await itemsOfType(api.db, 'CustomerNumberGuard')).filter((g) => g.customerId === created.body.id);
    expect(guards.map((g) => g.PK)).toEqual([`ORG#${api.demo.organizationId}#CUSTNO#${newNumber.toUpperCase()}`]);
    await sent(api, 'POST', '/customers', { name: 'Takes the old one', customerNumber: oldNumber });
    expectProblem(await send(api, 'PATCH', `/customers/${created.body.id}`, { customerNumber: oldNumber }, { ifMatch: etag(moved) }), 409, 'UNIQUENESS_CONFLICT');
  });

  it('needs If-Match (428) and the current ETag (412); no change keeps the ETag', async () => {
    const created = await sent(api, 'POST', '/customers', { name: 'Tagged', customerNumber: num() });
    expectProblem(await send(api, 'PATCH', `/customers/${created.body.id}`, { name: 'x' }), 428, 'ETAG_REQUIRED');
    expectProblem(await send(api, 'PATCH', `/customers/${created.body.id}`, { name: 'x' }, { ifMatch: '"customer:x:v9"' }), 412, 'ETAG_MISMATCH');
    const same = await sent(api, 'PATCH', `/customers/${created.body.id}`, { name: 'Tagged' }, 200, { ifMatch: etag(created) });
    expect(etag(same)).toBe(etag(created));
    const archived = await sent(api, 'PATCH', `/customers/${created.body.id}`, { archived: true }, 200, { ifMatch: etag(created) });
    expect(archived.body).toMatchObject({ archived: true, archivedAt: expect.any(String), version: 2 });
    expect((await auditOf(api, created.body.id)).map((a) => a.action)).toEqual(['customer.created', 'customer.archived']);
  });

  it('refuses a new link to an archived location (422 at its index, links unchanged); a location archived after linking stays linked', async () => {
    const archived = await archivedLocation();
    const created = await sent(api, 'POST', '/customers', { name: 'Link keeper', customerNumber: num(), locationIds: [api.demo.locations[0]] });
    expectPointers(await send(api, 'PATCH', `/customers/${created.body.id}`, { locationIds: [api.demo.locations[0], archived] }, { ifMatch: etag(created) }), ['/locationIds/1']);
    const unchanged = await read(api, `/customers/${created.body.id}`);
    expect(unchanged.body).toMatchObject({ locationIds: [api.demo.locations[0]], version: 1 });
    expect(etag(unchanged)).toBe(etag(created));
    expect((await auditOf(api, created.body.id)).map((a) => a.action)).toEqual(['customer.created']);

    const later = await createLocation(api, { name: `Site closing later ${randomUUID().slice(0, 6)}` });
    const linked = await sent(api, 'PATCH', `/customers/${created.body.id}`, { locationIds: [api.demo.locations[0], later.id] }, 200, { ifMatch: etag(created) });
    await sent(api, 'DELETE', `/locations/${later.id}`);
    const renamed = await sent(api, 'PATCH', `/customers/${created.body.id}`, { name: 'Link keeper renamed', locationIds: [later.id, api.demo.locations[0]] }, 200, { ifMatch: etag(linked) });
    expect(renamed.body.locationIds).toEqual([later.id, api.demo.locations[0]]);
  });

  it('needs contacts:write to replace contactIds: 403 SCOPE_REQUIRED naming it, the links stay', async () => {
    const [linked, other] = [await createContact(api, { name: 'Linked Person' }), await createContact(api, { name: 'Other Person' })];
    const created = await sent(api, 'POST', '/customers', { name: 'Keeps contacts', customerNumber: num(), contactIds: [linked.id] });
    const token = await keyWith(api, ['customers:read', 'customers:write', 'contacts:read']);
    for (const contactIds of [[linked.id, other.id], [], [linked.id]]) {
      const body = expectProblem(await send(api, 'PATCH', `/customers/${created.body.id}`, { contactIds }, { token, ifMatch: etag(created) }), 403, 'SCOPE_REQUIRED');
      expect(body.requiredScopes).toEqual(['contacts:write']);
    }
    const after = await read(api, `/customers/${created.body.id}`);
    expect(after.body).toMatchObject({ contactIds: [linked.id], version: 1 });
    expect(etag(after)).toBe(etag(created));
    expect((await auditOf(api, created.body.id)).map((a) => a.action)).toEqual(['customer.created']);
    const renamed = await sent(api, 'PATCH', `/customers/${created.body.id}`, { name: 'Renamed without contacts:write' }, 200, { token, ifMatch: etag(created) });
    expect(renamed.body).toMatchObject({ contactIds: [linked.id], version: 2 });
  });

  it('answers 404 for unknown and malformed ids', async () => {
    expectProblem(await send(api, 'PATCH', `/customers/${randomUUID()}`, { name: 'x' }, { ifMatch: '"x"' }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await read(api, '/customers/not-a-uuid'), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('the table', () => {
  it('holds no contact value on a customer item', async () => {
    const contact = await createContact(api, { name: 'Table Person', email: 'table@customer.example' });
    await sent(api, 'POST', '/customers', { name: 'Table Co', customerNumber: num(), contactIds: [contact.id] });
    const customers = (await scanTable(api.db)).filter((i) => i.itemType === 'Customer');
    expect(JSON.stringify(customers)).not.toContain('table@customer.example');
  });
});
