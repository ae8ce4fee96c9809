import { randomUUID } from 'node:crypto';
import { quoteResponseSchema } from '../../services/commerce/schemas';
import { countByType, expectPointers, expectProblem, itemsOfType, startApi, type ApiFixture } from '../support/api';
import { acceptedQuote, archivedCustomer, command, createQuote, CUSTOMER, etag, line, newCustomer, sentQuote, tryCommand } from './commerce-fixture';
import { auditOf, keyWith, read, send, sent } from './locations-fixture';

/**
 * Quotes through the local gateway: server-computed money, the DRAFT -> SENT -> ACCEPTED |
 * DECLINED | EXPIRED flow with 409 QUOTE_<STATE>, items of drafts only, conversion into a
 * draft invoice in one transaction, scopes and isolation between organizations.
 */
let api: ApiFixture;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

describe('POST /commerce/quotes', () => {
  it('computes line and document amounts (per line, half away from zero) and answers 201 + Location + ETag', async () => {
    const res = await createQuote(api, { items: [line({ quantity: 1.5, unitPrice: 333, taxRate: 7.5 }), line({ quantity: 3, unitPrice: 1999, taxRate: 19 })] });
    // 1.5 × 333 = 499.5 -> 500; 500 × 7.5 % = 37.5 -> 38. 3 × 1999 = 5997; × 19 % = 1139.43 -> 1139.
    expect(res.body).toMatchObject({
      customerId: CUSTOMER,
      currency: 'EUR',
      state: 'DRAFT',
      items: [
        { quantity: 1.5, unitPrice: 333, taxRate: 7.5, netAmount: 500, taxAmount: 38, totalAmount: 538 },
        { quantity: 3, unitPrice: 1999, taxRate: 19, netAmount: 5997, taxAmount: 1139, totalAmount: 7136 },
      ],
      subtotal: 6497,
      taxTotal: 1177,
      total: 7674,
      invoiceId: null,
      version: 1,
    });
    expect(quoteResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/commerce/quotes/${res.body.id}`);
    expect(etag(res)).toBe(`"quote:${res.body.id}:v1"`);
    const [entry] = await auditOf(api, res.body.id);
    expect(entry).toMatchObject({ action: 'quote.created', entity: { type: 'quote', id: res.body.id }, after: { state: 'DRAFT', total: 7674 }, requestId: res.requestId });
  });

  it('rejects client-sent totals, bad currencies and bad money with 422 at the field, and writes nothing', async () => {
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', '/commerce/quotes', { customerId: CUSTOMER, currency: 'EUR', total: 100, subtotal: 90 }), ['/total', '/subtotal']);
    expectPointers(await send(api, 'POST', '/commerce/quotes', { customerId: CUSTOMER, currency: 'EUR', items: [{ ...line(), totalAmount: 1 }] }), ['/items/0/totalAmount']);
    expectPointers(await send(api, 'POST', '/commerce/quotes', { customerId: CUSTOMER, currency: 'XYZ' }), ['/currency']);
    expectPointers(await send(api, 'POST', '/commerce/quotes', { customerId: CUSTOMER, currency: 'eur' }), ['/currency']);
    expectPointers(await send(api, 'POST', '/commerce/quotes', { customerId: CUSTOMER, currency: 'EUR', items: [line({ unitPrice: 12.5, quantity: 0, taxRate: 101 })] }), [
      '/items/0/quantity',
      '/items/0/unitPrice',
      '/items/0/taxRate',
    ]);
    // Not silently rounded (to 1.5 and 7.5): within 1e-6 of an allowed value is still not one.
    expectPointers(await send(api, 'POST', '/commerce/quotes', { customerId: CUSTOMER, currency: 'EUR', items: [line({ quantity: 1.50000000000001, taxRate: 7.50000000000001 })] }), ['/items/0/quantity', '/items/0/taxRate']);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('names only customers of the organization: 422 at /customerId on create and on a move, nothing written', async () => {
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', '/commerce/quotes', { customerId: randomUUID(), currency: 'EUR', items: [line()] }), ['/customerId']);
    expectPointers(await send(api, 'POST', '/commerce/invoices', { customerId: randomUUID(), currency: 'EUR', items: [line()] }), ['/customerId']);
    expect(await countByType(api.db)).toEqual(before);
    const q = await createQuote(api);
    expect(q.status).toBe(201);
    const moved = await send(api, 'PATCH', `/commerce/quotes/${q.body.id}`, { customerId: randomUUID() }, { ifMatch: etag(q) });
    expectPointers(moved, ['/customerId']);
    expect((await read(api, `/commerce/quotes/${q.body.id}`)).body.customerId).toBe(CUSTOMER);
  });

  it('refuses an archived customer (422 at /customerId) on create and on a move, nothing written; a draft keeps a customer archived later', async () => {
    const archived = await archivedCustomer(api);
    const q = await createQuote(api);
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', '/commerce/quotes', { customerId: archived, currency: 'EUR', items: [line()] }), ['/customerId']);
    expectPointers(await send(api, 'PATCH', `/commerce/quotes/${q.body.id}`, { customerId: archived }, { ifMatch: etag(q) }), ['/customerId']);
    expect(await countByType(api.db)).toEqual(before);
    expect((await read(api, `/commerce/quotes/${q.body.id}`)).body).toMatchObject({ customerId: CUSTOMER, version: 1 });

    // Only new references are checked: a draft made before its customer was archived still changes and is sent.
    const customer = await newCustomer(api);
    const draft = await createQuote(api, { customerId: customer });
    const current = await read(api, `/customers/${customer}`);
    await sent(api, 'PATCH', `/customers/${customer}`, { archived: true }, 200, { ifMatch: etag(current) });
    const changed = await sent(api, 'PATCH', `/commerce/quotes/${draft.body.id}`, { notes: 'Still for them' }, 200, { ifMatch: etag(draft) });
    expect(changed.body).toMatchObject({ customerId: customer, notes: 'Still for them', version: 2 });
    expect((await command(api, `/commerce/quotes/${draft.body.id}/send`, changed)).body).toMatchObject({ state: 'SENT', customerId: customer });
  });

  it('needs commerce:write, and commerce:read to read', async () => {
    const readOnly = await keyWith(api, ['commerce:read']);
    expectProblem(await send(api, 'POST', '/commerce/quotes', { customerId: CUSTOMER, currency: 'EUR' }, { token: readOnly }), 403, 'SCOPE_REQUIRED');
    const q = await createQuote(api);
    expectProblem(await read(api, `/commerce/quotes/${q.body.id}`, await keyWith(api, ['commerce:write'])), 403, 'SCOPE_REQUIRED');
    expect((await read(api, `/commerce/quotes/${q.body.id}`, readOnly)).status).toBe(200);
  });
});

describe('quote flow', () => {
  it('goes DRAFT -> SENT -> ACCEPTED with If-Match, and refuses illegal moves with 409 QUOTE_<STATE>', async () => {
    const draft = await createQuote(api);
    const id = draft.body.id;
    expectProblem(await tryCommand(api, `/commerce/quotes/${id}/accept`, draft), 409, 'QUOTE_DRAFT');
    expectProblem(await send(api, 'POST', `/commerce/quotes/${id}/send`, undefined), 428, 'ETAG_REQUIRED');
    expectProblem(await tryCommand(api, `/commerce/quotes/${id}/send`, '"quote:x:v9"'), 412, 'ETAG_MISMATCH');
    const sentQ = await command(api, `/commerce/quotes/${id}/send`, draft);
    expect(sentQ.body).toMatchObject({ state: 'SENT', sentAt: expect.any(String), version: 2 });
    const body = expectProblem(await tryCommand(api, `/commerce/quotes/${id}/send`, sentQ), 409, 'QUOTE_SENT');
    expect(body.state).toBe('SENT');
    expectProblem(await send(api, 'PATCH', `/commerce/quotes/${id}`, { notes: 'x' }, { ifMatch: etag(sentQ) }), 409, 'QUOTE_SENT');
    expectProblem(await send(api, 'POST', `/commerce/quotes/${id}/items`, line()), 409, 'QUOTE_SENT');
    const accepted = await command(api, `/commerce/quotes/${id}/accept`, sentQ);
    expect(accepted.body).toMatchObject({ state: 'ACCEPTED', decidedAt: expect.any(String) });
    expectProblem(await tryCommand(api, `/commerce/quotes/${id}/decline`, accepted), 409, 'QUOTE_ACCEPTED');
    expect((await auditOf(api, id)).map((a) => a.action)).toEqual(['quote.created', 'quote.sent', 'quote.accepted']);
  });

  it('declines with a reason, expires, and refuses to accept after validUntil (409 QUOTE_EXPIRED)', async () => {
    const a = await sentQuote(api);
    const declined = await command(api, `/commerce/quotes/${a.body.id}/decline`, a, { reason: 'Too expensive' });
    expect(declined.body.state).toBe('DECLINED');
    expect((await auditOf(api, a.body.id)).at(-1)).toMatchObject({ action: 'quote.declined', reason: 'Too expensive' });
    const b = await sentQuote(api);
    expect((await command(api, `/commerce/quotes/${b.body.id}/expire`, b)).body.state).toBe('EXPIRED');
    const c = await sentQuote(api, { validUntil: '2020-01-31' });
    expectProblem(await tryCommand(api, `/commerce/quotes/${c.body.id}/accept`, c), 409, 'QUOTE_EXPIRED');
  });

  it('refuses to send a quote without items (422)', async () => {
    const q = await createQuote(api, { items: [] });
    expectProblem(await tryCommand(api, `/commerce/quotes/${q.body.id}/send`, q), 422, 'VALIDATION_ERROR');
  });

  it('changes a draft with PATCH (same values: same ETag)', async () => {
    const q = await createQuote(api);
    const same = await sent(api, 'PATCH', `/commerce/quotes/${q.body.id}`, { currency: 'EUR' }, 200, { ifMatch: etag(q) });
    expect(etag(same)).toBe(etag(q));
    const changed = await sent(api, 'PATCH', `/commerce/quotes/${q.body.id}`, { currency: 'CHF', validUntil: '2031-12-31', notes: 'Per month' }, 200, { ifMatch: etag(q) });
    expect(changed.body).toMatchObject({ currency: 'CHF', validUntil: '2031-12-31', notes: 'Per month', version: 2 });
    expectPointers(await send(api, 'PATCH', `/commerce/quotes/${q.body.id}`, { validUntil: '2031-02-30' }, { ifMatch: etag(changed) }), ['/validUntil']);
  });
});

describe('quote items', () => {
  it('adds, reads, lists and removes items of a draft; totals follow', async () => {
    const q = await createQuote(api, { items: [] });
    const added = await sent(api, 'POST', `/commerce/quotes/${q.body.id}/items`, line({ quantity: 2, unitPrice: 1000, taxRate: 20 }), 201, { ifMatch: etag(q) });
    expect(added.body).toMatchObject({ netAmount: 2000, taxAmount: 400, totalAmount: 2400 });
    expect(etag(added)).toBe(`"quote:${q.body.id}:v2"`);
    expect(added.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/commerce/quotes/${q.body.id}/items/${added.body.id}`);
    expect((await read(api, `/commerce/quotes/${q.body.id}/items/${added.body.id}`)).body).toEqual(added.body);
    const list = await read(api, `/commerce/quotes/${q.body.id}/items`);
    expect(list.body).toEqual({ items: [added.body], nextCursor: null });
    expect((await read(api, `/commerce/quotes/${q.body.id}`)).body).toMatchObject({ subtotal: 2000, taxTotal: 400, total: 2400 });
    expectProblem(await send(api, 'DELETE', `/commerce/quotes/${q.body.id}/items/${added.body.id}`, undefined, { ifMatch: etag(q) }), 412, 'ETAG_MISMATCH');
    const removed = await sent(api, 'DELETE', `/commerce/quotes/${q.body.id}/items/${added.body.id}`, undefined, 200, { ifMatch: etag(added) });
    expect(removed.body).toMatchObject({ items: [], total: 0, version: 3 });
    expectProblem(await read(api, `/commerce/quotes/${q.body.id}/items/${added.body.id}`), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('POST /commerce/quotes/{quoteId}/convert', () => {
  it('creates a draft invoice with the same amounts and marks the quote converted, in one transaction, once', async () => {
    const accepted = await acceptedQuote(api);
    const id = accepted.body.id;
    const res = await command(api, `/commerce/quotes/${id}/convert`, accepted, undefined, 201);
    expect(res.body).toMatchObject({ state: 'DRAFT', number: null, quoteId: id, customerId: CUSTOMER, currency: 'EUR', total: accepted.body.total, balance: accepted.body.total });
    expect(res.body.items.map((i: { netAmount: number }) => i.netAmount)).toEqual(accepted.body.items.map((i: { netAmount: number }) => i.netAmount));
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/commerce/invoices/${res.body.id}`);
    const quote = await read(api, `/commerce/quotes/${id}`);
    expect(quote.body).toMatchObject({ state: 'ACCEPTED', invoiceId: res.body.id });
    const both = (await auditOf(api, id)).at(-1)!;
    const created = (await auditOf(api, res.body.id))[0];
    expect([both.action, created.action, created.requestId]).toEqual(['quote.converted', 'invoice.created', both.requestId]);
    expectProblem(await tryCommand(api, `/commerce/quotes/${id}/convert`, quote), 409, 'QUOTE_CONVERTED');
    expect((await itemsOfType(api.db, 'Invoice')).filter((i) => i.quoteId === id)).toHaveLength(1);
  });

  it('converts only accepted quotes', async () => {
    const s = await sentQuote(api);
    expectProblem(await tryCommand(api, `/commerce/quotes/${s.body.id}/convert`, s), 409, 'QUOTE_SENT');
  });

  it('of concurrent conversions, exactly one creates an invoice', async () => {
    const accepted = await acceptedQuote(api);
    const results = await Promise.all(Array.from({ length: 6 }, () => tryCommand(api, `/commerce/quotes/${accepted.body.id}/convert`, accepted)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect([412, 409]).toContain(r.status);
    expect((await itemsOfType(api.db, 'Invoice')).filter((i) => i.quoteId === accepted.body.id)).toHaveLength(1);
  });
});

describe('lists and isolation', () => {
  it('lists by state and customer, oldest first, with sealed cursors', async () => {
    const customer = (await sent(api, 'POST', '/customers', { name: 'Quote list customer', customerNumber: `Q-${randomUUID().slice(0, 8)}` })).body.id;
    const a = await createQuote(api, { customerId: customer });
    const b = await sentQuote(api, { customerId: customer });
    const all = await read(api, `/commerce/quotes?customerId=${customer}&limit=1`);
    expect(all.body.items.map((q: { id: string }) => q.id)).toEqual([a.body.id]);
    const next = await read(api, `/commerce/quotes?customerId=${customer}&limit=1&cursor=${encodeURIComponent(all.body.nextCursor)}`);
    expect(next.body.items.map((q: { id: string }) => q.id)).toEqual([b.body.id]);
    const sentOnly = await read(api, `/commerce/quotes?customerId=${customer}&state=SENT`);
    expect(sentOnly.body.items.map((q: { id: string }) => q.id)).toEqual([b.body.id]);
    expect((await read(api, '/commerce/quotes?state=SENT')).body.items.every((q: { state: string }) => q.state === 'SENT')).toBe(true);
    expectProblem(await read(api, `/commerce/quotes?customerId=${customer}&cursor=${encodeURIComponent(all.body.nextCursor)}&state=DRAFT`), 422, 'VALIDATION_ERROR');
    expectProblem(await read(api, '/commerce/quotes?state=OPEN'), 422, 'VALIDATION_ERROR');
  });

  it("never reaches another organization's quote by id", async () => {
    const q = await createQuote(api);
    const other = api.demo.keys.otherOrganization;
    const res = await fetch(`${api.orgUrl(api.demo.otherOrganizationId)}/commerce/quotes/${q.body.id}`, { headers: { Authorization: `Bearer ${other}` } });
    expect(res.status).toBe(404);
    const list = await fetch(`${api.orgUrl(api.demo.otherOrganizationId)}/commerce/quotes`, { headers: { Authorization: `Bearer ${other}` } });
    expect(((await list.json()) as { items: { id: string }[] }).items.map((i) => i.id)).not.toContain(q.body.id);
  });
});
