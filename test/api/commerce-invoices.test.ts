import { invoiceResponseSchema, paymentResponseSchema } from '../../services/commerce/schemas';
import { countByType, expectPointers, expectProblem, itemsOfType, startApi, type ApiFixture } from '../support/api';
import { archivedCustomer, command, createInvoice, CUSTOMER, etag, issuedInvoice, line, newCustomer, pay, tryCommand } from './commerce-fixture';
import { auditOf, keyWith, read, send, sent } from './locations-fixture';

/**
 * Invoices and payments through the local gateway: drafts and their items, issuing with the
 * next number of the organization's sequence (concurrent issues: no gap, no duplicate),
 * immutability once issued, void keeping its number, partial payments, balance, PAID,
 * overpayment 422 (concurrent payments that together overpay: one wins), isolation.
 */
let api: ApiFixture;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

const inv = (id: string) => `/commerce/invoices/${id}`;

describe('draft invoices', () => {
  it('creates a DRAFT without a number, with server-computed totals, 201 + Location + ETag', async () => {
    const res = await createInvoice(api, { paymentTermDays: 14, items: [line({ quantity: 2.5, unitPrice: 1999, taxRate: 19 })] });
    // 2.5 × 1999 = 4997.5 -> 4998; 4998 × 19 % = 949.62 -> 950.
    expect(res.body).toMatchObject({ state: 'DRAFT', number: null, paymentTermDays: 14, subtotal: 4998, taxTotal: 950, total: 5948, amountPaid: 0, balance: 5948, issuedAt: null, dueDate: null });
    expect(invoiceResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}${inv(res.body.id)}`);
    expect(etag(res)).toBe(`"invoice:${res.body.id}:v1"`);
  });

  it('rejects client-sent totals and balances (422), and writes nothing', async () => {
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', '/commerce/invoices', { customerId: CUSTOMER, currency: 'EUR', total: 5, balance: 5, number: 7 }), ['/total', '/balance', '/number']);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('refuses an archived customer (422 at /customerId) on create and on a move, nothing written', async () => {
    const archived = await archivedCustomer(api);
    const d = await createInvoice(api);
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', '/commerce/invoices', { customerId: archived, currency: 'EUR', items: [line()] }), ['/customerId']);
    expectPointers(await send(api, 'PATCH', inv(d.body.id), { customerId: archived }, { ifMatch: etag(d) }), ['/customerId']);
    expect(await countByType(api.db)).toEqual(before);
    expect((await read(api, inv(d.body.id))).body).toMatchObject({ customerId: CUSTOMER, version: 1 });
  });

  it('issues a draft whose customer was archived after it was drafted', async () => {
    const customer = await newCustomer(api);
    const d = await createInvoice(api, { customerId: customer });
    const current = await read(api, `/customers/${customer}`);
    await sent(api, 'PATCH', `/customers/${customer}`, { archived: true }, 200, { ifMatch: etag(current) });
    const issued = await command(api, `${inv(d.body.id)}/issue`, d);
    expect(issued.body).toMatchObject({ state: 'ISSUED', customerId: customer, number: expect.any(Number) });
  });

  it('adds and removes items of a draft; the totals follow', async () => {
    const d = await createInvoice(api, { items: [] });
    const added = await sent(api, 'POST', `${inv(d.body.id)}/items`, line({ quantity: 1, unitPrice: 10_000, taxRate: 7 }));
    expect(added.body).toMatchObject({ netAmount: 10_000, taxAmount: 700, totalAmount: 10_700 });
    expect((await read(api, `${inv(d.body.id)}/items`)).body.items).toEqual([added.body]);
    expect((await read(api, `${inv(d.body.id)}/items/${added.body.id}`)).body).toEqual(added.body);
    const removed = await sent(api, 'DELETE', `${inv(d.body.id)}/items/${added.body.id}`, undefined, 200, { ifMatch: etag(added) });
    expect(removed.body).toMatchObject({ items: [], total: 0 });
    // The reference says the audit trail keeps that the item was there.
    expect((await auditOf(api, d.body.id)).map((a) => a.action)).toEqual(['invoice.created', 'invoice.item_added', 'invoice.item_removed']);
  });
});

describe('POST /commerce/invoices/{invoiceId}/issue', () => {
  it('assigns the next number, issuedAt and dueDate; an issued invoice is immutable (409 INVOICE_ISSUED)', async () => {
    const d = await createInvoice(api, { paymentTermDays: 10 });
    const issued = await command(api, `${inv(d.body.id)}/issue`, d);
    expect(issued.body).toMatchObject({ state: 'ISSUED', number: expect.any(Number), issuedAt: expect.any(String), version: 2 });
    const issueDay = Date.parse(`${issued.body.issuedAt.slice(0, 10)}T00:00:00Z`);
    expect(issued.body.dueDate).toBe(new Date(issueDay + 10 * 86_400_000).toISOString().slice(0, 10));
    expectProblem(await tryCommand(api, `${inv(d.body.id)}/issue`, issued), 409, 'INVOICE_ISSUED');
    expectProblem(await send(api, 'PATCH', inv(d.body.id), { notes: 'x' }, { ifMatch: etag(issued) }), 409, 'INVOICE_ISSUED');
    expectProblem(await send(api, 'POST', `${inv(d.body.id)}/items`, line()), 409, 'INVOICE_ISSUED');
    expectProblem(await send(api, 'DELETE', `${inv(d.body.id)}/items/${issued.body.items[0].id}`), 409, 'INVOICE_ISSUED');
    const [, issuedAudit] = await auditOf(api, d.body.id);
    expect(issuedAudit).toMatchObject({ action: 'invoice.issued', after: { state: 'ISSUED', number: issued.body.number }, requestId: issued.requestId });
  });

  it('refuses an invoice without items (422), without If-Match (428) or with a stale one (412)', async () => {
    const empty = await createInvoice(api, { items: [] });
    expectProblem(await tryCommand(api, `${inv(empty.body.id)}/issue`, empty), 422, 'VALIDATION_ERROR');
    const d = await createInvoice(api);
    expectProblem(await send(api, 'POST', `${inv(d.body.id)}/issue`), 428, 'ETAG_REQUIRED');
    expectProblem(await tryCommand(api, `${inv(d.body.id)}/issue`, `"invoice:${d.body.id}:v9"`), 412, 'ETAG_MISMATCH');
  });

  it('gives 32 concurrent issues consecutive numbers: no gap, no duplicate', async () => {
    const numberBefore = Math.max(0, ...(await itemsOfType(api.db, 'Invoice')).map((i) => i.number ?? 0));
    const drafts = [];
    for (let i = 0; i < 32; i += 1) drafts.push(await createInvoice(api));
    const first = await Promise.all(drafts.map((d) => tryCommand(api, `${inv(d.body.id)}/issue`, d)));
    // On a loaded machine an issue can run out of retries or time: then it is 503
    // TRANSACTION_CONFLICT with Retry-After and nothing written, and the client retries it.
    const results = [];
    for (const [i, r] of first.entries()) {
      if (r.status === 503) {
        expectProblem(r, 503, 'TRANSACTION_CONFLICT');
        results.push(await tryCommand(api, `${inv(drafts[i].body.id)}/issue`, drafts[i]));
      } else results.push(r);
    }
    expect(results.map((r) => r.status)).toEqual(Array(32).fill(200));
    const numbers = results.map((r) => r.body.number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 32 }, (_, i) => numberBefore + i + 1));
  }, 120_000);

  it('voids an issued invoice without payments: it keeps its number, and the number is not given again', async () => {
    const issued = await issuedInvoice(api);
    expectProblem(await tryCommand(api, `${inv(issued.body.id)}/void`, issued, {}), 422, 'VALIDATION_ERROR');
    const voided = await command(api, `${inv(issued.body.id)}/void`, issued, { reason: 'Wrong customer' });
    expect(voided.body).toMatchObject({ state: 'VOID', number: issued.body.number, voidReason: 'Wrong customer', voidedAt: expect.any(String) });
    expectProblem(await tryCommand(api, `${inv(issued.body.id)}/void`, voided, { reason: 'again' }), 409, 'INVOICE_VOID');
    const next = await issuedInvoice(api);
    expect(next.body.number).toBe(issued.body.number + 1);
    expect((await auditOf(api, issued.body.id)).at(-1)).toMatchObject({ action: 'invoice.voided', reason: 'Wrong customer' });
  });
});

describe('payments', () => {
  it('records partial payments, moves balance, and marks the invoice PAID at zero balance', async () => {
    const issued = await issuedInvoice(api, { items: [line({ quantity: 1, unitPrice: 10_000, taxRate: 0 })] });
    const id = issued.body.id;
    const first = await pay(api, id, 4_000, { reference: 'TRX-1', currency: 'EUR' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ invoiceId: id, amount: 4_000, currency: 'EUR', paidOn: '2030-01-15', method: 'BANK_TRANSFER', reference: 'TRX-1' });
    expect(paymentResponseSchema.strict().safeParse(first.body).error).toBeUndefined();
    expect(first.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/commerce/payments/${first.body.id}`);
    expect((await read(api, inv(id))).body).toMatchObject({ state: 'ISSUED', amountPaid: 4_000, balance: 6_000 });
    const body = expectProblem(await pay(api, id, 6_001), 422, 'VALIDATION_ERROR');
    expect(body).toMatchObject({ balance: 6_000, errors: [{ pointer: '/amount' }] });
    expect((await pay(api, id, 6_000)).status).toBe(201);
    expect((await read(api, inv(id))).body).toMatchObject({ state: 'PAID', amountPaid: 10_000, balance: 0, paidAt: expect.any(String) });
    expectProblem(await pay(api, id, 1), 409, 'INVOICE_PAID');
    const paid = await read(api, inv(id));
    expectProblem(await tryCommand(api, `${inv(id)}/void`, paid, { reason: 'x' }), 409, 'INVOICE_PAID');
    const list = await read(api, `/commerce/payments?invoiceId=${id}`);
    expect(list.body.items.map((p: { amount: number }) => p.amount)).toEqual([4_000, 6_000]);
    expect((await read(api, `/commerce/payments/${first.body.id}`)).body).toEqual(first.body);
    expect((await auditOf(api, id)).map((a) => a.action)).toEqual(['invoice.created', 'invoice.issued', 'invoice.payment_applied', 'invoice.paid']);
  });

  it('refuses payments on drafts and voids (409), in another currency (422), and a partially paid void (409)', async () => {
    const d = await createInvoice(api);
    expectProblem(await pay(api, d.body.id, 100), 409, 'INVOICE_DRAFT');
    const toVoid = await issuedInvoice(api);
    await command(api, `${inv(toVoid.body.id)}/void`, toVoid, { reason: 'Duplicate' });
    expectProblem(await pay(api, toVoid.body.id, 100), 409, 'INVOICE_VOID');
    const issued = await issuedInvoice(api);
    expectPointers(await pay(api, issued.body.id, 100, { currency: 'USD' }), ['/currency']);
    expect((await pay(api, issued.body.id, 100)).status).toBe(201);
    const now = await read(api, inv(issued.body.id));
    expectProblem(await tryCommand(api, `${inv(issued.body.id)}/void`, now, { reason: 'x' }), 409, 'INVOICE_PARTIALLY_PAID');
    expectPointers(await pay(api, issued.body.id, 0, { paidOn: '2030-02-30', method: 'CHEQUE' }), ['/amount', '/paidOn', '/method']);
  });

  it('of two concurrent payments that together overpay, exactly one is recorded', async () => {
    const issued = await issuedInvoice(api, { items: [line({ quantity: 1, unitPrice: 10_000, taxRate: 0 })] });
    const results = await Promise.all([pay(api, issued.body.id, 7_000), pay(api, issued.body.id, 7_000)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 422]);
    expect((await read(api, inv(issued.body.id))).body).toMatchObject({ amountPaid: 7_000, balance: 3_000 });
    expect((await itemsOfType(api.db, 'Payment')).filter((p) => p.invoiceId === issued.body.id)).toHaveLength(1);
  });
});

describe('isolation and scopes', () => {
  it("never pays or reads another organization's invoice", async () => {
    const issued = await issuedInvoice(api);
    const other = api.demo.keys.otherOrganization;
    const url = `${api.orgUrl(api.demo.otherOrganizationId)}/commerce`;
    const res = await fetch(`${url}/payments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${other}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'iso-1' },
      body: JSON.stringify({ invoiceId: issued.body.id, amount: 1, paidOn: '2030-01-01', method: 'CASH' }),
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: { pointer: string }[] }).errors.map((e) => e.pointer)).toEqual(['/invoiceId']);
    expect((await fetch(`${url}/invoices/${issued.body.id}`, { headers: { Authorization: `Bearer ${other}` } })).status).toBe(404);
    expect((await read(api, inv(issued.body.id))).body.amountPaid).toBe(0);
  });

  it('needs commerce:write to pay', async () => {
    const issued = await issuedInvoice(api);
    expectProblem(await send(api, 'POST', '/commerce/payments', { invoiceId: issued.body.id, amount: 1, paidOn: '2030-01-01', method: 'CASH' }, { token: await keyWith(api, ['commerce:read']) }), 403, 'SCOPE_REQUIRED');
  });
});

describe('demo seed', () => {
  it('has a SENT quote and an ISSUED invoice with a partial payment, audited as the demo seed', async () => {
    const quotes = (await read(api, `/commerce/quotes?state=SENT&customerId=${CUSTOMER}`)).body.items;
    expect(quotes).toHaveLength(1);
    const [invoice] = (await read(api, `/commerce/invoices?customerId=${CUSTOMER}`)).body.items;
    expect(invoice).toMatchObject({ state: 'ISSUED', number: 1, amountPaid: 100_000 });
    expect(invoice.balance).toBeGreaterThan(0);
    expect((await auditOf(api, invoice.id))[0].actor).toEqual({ type: 'SYSTEM', label: 'Demo seed' });
  });
});
