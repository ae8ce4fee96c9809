import { randomUUID } from 'node:crypto';
import { commerceStore, createInvoice, createQuote, invoiceEtag, issueInvoice, listQuotes, quoteEtag, recordPayment, sendQuote, type CommercePorts, type Writer } from './public';
import type { Db } from '../shared/ddb/client';
import type { DemoSeed } from '../shared/seed';
import { inUnitOfWork } from '../shared/ddb/unit-of-work';
import { CUSTOMER_DEMO_IDS } from '../customers/seed';

/** The customer the demo documents name: the first demo customer (customers/seed.ts runs first: registry order). */
export const DEMO_CUSTOMER_ID = CUSTOMER_DEMO_IDS.customers[0];

/**
 * Commerce demo data of one organization: a SENT quote, and an ISSUED invoice (number 1)
 * with a partial payment. Written through the commerce use cases, audited as the system
 * "Demo seed"; an organization that already has a quote is left alone.
 */
export async function seedCommerce(db: Db, organizationId: string, now: Date): Promise<void> {
  if ((await listQuotes(db, organizationId, { limit: 1 })).items.length > 0) return;
  const writer: Writer = { system: 'Demo seed', organizationId, requestId: randomUUID() };
  const run = <T>(work: (ports: CommercePorts) => Promise<T>) => inUnitOfWork(db, (unit) => work({ store: commerceStore(db, unit), now: () => now, newId: randomUUID }));
  const validUntil = new Date(now.getTime() + 30 * 86_400_000).toISOString().slice(0, 10);

  const quote = await run((ports) =>
    createQuote(ports, writer, {
      customerId: DEMO_CUSTOMER_ID,
      currency: 'EUR',
      validUntil,
      notes: 'Maintenance cleaning, Harbour Office Tower',
      items: [
        { description: 'Office cleaning, 5 days a week (month)', quantity: 1, unitPrice: 249_000, taxRate: 19 },
        { description: 'Window cleaning (hours)', quantity: 6.5, unitPrice: 3_850, taxRate: 19 },
      ],
    }),
  );
  await run((ports) => sendQuote(ports, writer, quote.id, quoteEtag(quote)));

  const draft = await run((ports) =>
    createInvoice(ports, writer, {
      customerId: DEMO_CUSTOMER_ID,
      currency: 'EUR',
      paymentTermDays: 14,
      items: [
        { description: 'Office cleaning (month)', quantity: 1, unitPrice: 249_000, taxRate: 19 },
        { description: 'Cleaning supplies', quantity: 3, unitPrice: 1_299, taxRate: 19 },
      ],
    }),
  );
  const issued = await run((ports) => issueInvoice(ports, writer, draft.id, invoiceEtag(draft)));
  await run((ports) => recordPayment(ports, writer, { invoiceId: issued.id, amount: 100_000, paidOn: now.toISOString().slice(0, 10), method: 'BANK_TRANSFER', reference: 'Demo partial payment' }));
}

/** The registry's demo seed of commerce (after customers, in registry order). */
export const seed: DemoSeed = (c) => seedCommerce(c.db, c.organizationId, c.now);
