import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { customerKeys } from '../../services/customers/public';
import { randomUUID } from 'node:crypto';
import type { CommercePorts } from '../../services/commerce/domain';
import { createInvoice, issueInvoice, voidInvoice } from '../../services/commerce/domain-invoices';
import { recordPayment } from '../../services/commerce/domain-payments';
import { invoiceEtag } from '../../services/commerce/domain';
import { commerceStore, getInvoice, getSequence, listPayments } from '../../services/commerce/store';
import type { Principal } from '../../services/shared/auth/principal';
import type { Db } from '../../services/shared/ddb/client';
import { inUnitOfWork, type UnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { itemsOfType } from '../support/api';
import { createTestTable } from '../support/table';

/**
 * Invoice numbers and payments on DynamoDB Local, under concurrency: 32 concurrent issues
 * take 1..32 with no gap and no duplicate; a void keeps its number and the next issue takes
 * the next one; two payments that together overpay: exactly one commits.
 */
let db: Db;
const actorOf = (org: string) => {
  const principal: Principal = { organizationId: org, keyId: 'commerce', keyLabel: 'Commerce test', environment: 'TEST', scopes: new Set(['commerce:write']) };
  return { principal, requestId: `req-${randomUUID()}` };
};
const portsOf = (unit: UnitOfWork): CommercePorts => ({ store: commerceStore(db, unit), now: () => new Date(), newId: randomUUID });
/** Runs a use case as the area handler does: in a unit of work, again while a read went stale. */
const run = <T>(work: (ports: CommercePorts) => Promise<T>) => inUnitOfWork(db, (unit) => work(portsOf(unit)));

/** An active customer of `org` (that it exists and is not archived is all commerce checks). */
const customerOf = async (org: string) => {
  const id = randomUUID();
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...customerKeys.customer(org, id), itemType: 'Customer', archived: false } }));
  return id;
};
const draft = async (org: string, unitPrice = 10_000) => {
  const customerId = await customerOf(org);
  return run((ports) => createInvoice(ports, actorOf(org), { customerId, currency: 'EUR', items: [{ description: 'Work', quantity: 1, unitPrice, taxRate: 0 }] }));
};
const issue = (org: string, id: string) =>
  run(async (ports) => {
    const current = await ports.store.getInvoice(org, id);
    return issueInvoice(ports, actorOf(org), id, invoiceEtag(current!));
  });

beforeAll(async () => {
  db = await createTestTable();
});

describe('invoice numbering', () => {
  it('gives 32 concurrent issues the numbers 1..32: no gap, no duplicate', async () => {
    const org = randomUUID();
    const drafts = await Promise.all(Array.from({ length: 32 }, () => draft(org)));
    const issued = await Promise.all(drafts.map((d) => issue(org, d.id)));
    const numbers = issued.map((i) => i.number!).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
    expect((await getSequence(db, org))?.last).toBe(32);
    const stored = (await itemsOfType(db, 'Invoice')).filter((i) => i.organizationId === org);
    expect(new Set(stored.map((i) => i.number)).size).toBe(32);
    const claims = (await itemsOfType(db, 'InvoiceNumberClaim')).filter((c) => c.organizationId === org);
    expect(claims.map((c) => c.number).sort((a, b) => a - b)).toEqual(numbers);
    for (const c of claims) expect(stored.find((i) => i.id === c.invoiceId)?.number).toBe(c.number);
    expect((await itemsOfType(db, 'AuditEntry')).filter((a) => a.organizationId === org && a.action === 'invoice.issued')).toHaveLength(32);
  });

  it('keeps a void number; the next issue takes the next number; sequences are per organization', async () => {
    const org = randomUUID();
    const other = randomUUID();
    const first = await issue(org, (await draft(org)).id);
    const voided = await run((ports) => voidInvoice(ports, actorOf(org), first.id, invoiceEtag(first), 'Wrong customer'));
    expect(voided).toMatchObject({ state: 'VOID', number: 1, voidReason: 'Wrong customer' });
    const second = await issue(org, (await draft(org)).id);
    expect(second.number).toBe(2);
    expect((await issue(other, (await draft(other)).id)).number).toBe(1);
  });
});

describe('payments', () => {
  it('of two payments that together overpay, exactly one commits; the other is 422 on the new balance', async () => {
    const org = randomUUID();
    const invoice = await issue(org, (await draft(org, 10_000)).id);
    const attempt = (amount: number) =>
      run((ports) => recordPayment(ports, actorOf(org), { invoiceId: invoice.id, amount, paidOn: '2030-01-15', method: 'BANK_TRANSFER' })).then(
        (r) => ({ ok: true as const, r }),
        (e: { code?: string; extensions?: { balance?: number } }) => ({ ok: false as const, e }),
      );
    const outcomes = await Promise.all([attempt(6_000), attempt(6_000)]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    const lost = outcomes.find((o) => !o.ok)!;
    expect(lost.ok === false && lost.e).toMatchObject({ code: 'VALIDATION_ERROR', extensions: { balance: 4_000 } });
    const stored = await getInvoice(db, org, invoice.id);
    expect(stored).toMatchObject({ state: 'ISSUED', amountPaid: 6_000 });
    expect((await listPayments(db, org, { invoiceId: invoice.id, limit: 10 })).items.map((p) => p.amount)).toEqual([6_000]);
  });

  it('under 16 concurrent partial payments, the invoice holds exactly the committed sum and becomes PAID at zero balance', async () => {
    const org = randomUUID();
    const invoice = await issue(org, (await draft(org, 10_000)).id);
    const results = await Promise.allSettled(
      Array.from({ length: 16 }, () => run((ports) => recordPayment(ports, actorOf(org), { invoiceId: invoice.id, amount: 1_000, paidOn: '2030-01-15', method: 'CASH' }))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as { code: string }).code).toMatch(/^(VALIDATION_ERROR|INVOICE_PAID)$/);
    const stored = await getInvoice(db, org, invoice.id);
    const payments = (await listPayments(db, org, { invoiceId: invoice.id, limit: 50 })).items;
    expect(stored).toMatchObject({ state: 'PAID', amountPaid: 10_000, paidAt: expect.any(String) });
    expect(payments.reduce((s, p) => s + p.amount, 0)).toBe(10_000);
  });
});
