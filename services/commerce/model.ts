import * as z from 'zod';
import { onIndexes } from '../shared/ddb/table-spec';

/**
 * The entities of the commerce area as stored: each type is the output of its item schema,
 * parsed on read. Money is integer minor units of the document's ISO 4217 currency,
 * quantities are milli-units, tax rates basis points (19 % = 1900): integers only, so every
 * sum is exact (domain-money.ts computes and rounds). Keys (docs/areas/commerce.md):
 *   quote            PK ORG#<org>#QUOTE#<id>      SK QUOTE       (lines embedded)
 *   invoice          PK ORG#<org>#INVOICE#<id>    SK INVOICE     (lines embedded)
 *   payment          PK ORG#<org>#PAYMENT#<id>    SK PAYMENT
 *   number sequence  PK ORG#<org>#INVSEQ          SK INVSEQ      (`last` number taken)
 *   number claim     PK ORG#<org>#INVNO#<n>       SK INVNO       (which invoice holds n)
 *   GSI1 ORG#<org>#QUOTES | ORG#<org>#INVOICES | ORG#<org>#PAYMENTS      / <createdAt>#<id>
 *   GSI2 ORG#<org>#QUOTES#<state> | ORG#<org>#INVOICES#<state>           / <createdAt>#<id>
 *        ORG#<org>#INVOICE#<invoiceId>#PAYMENTS (payments of one invoice) / <createdAt>#<id>
 *   GSI3 ORG#<org>#CUST#<customerId>#QUOTES | ...#INVOICES               / <createdAt>#<id>
 */

const nullableText = z.string().nullable().default(null);

/** One line of a quote or an invoice, with the amounts the server computed for it. */
export const lineSchema = z
  .object({
    id: z.string(),
    description: z.string(),
    quantityMilli: z.number().int(),
    unitPrice: z.number().int(),
    taxRateBp: z.number().int(),
    net: z.number().int(),
    tax: z.number().int(),
    total: z.number().int(),
  })
  .readonly();
export type Line = z.output<typeof lineSchema>;

/** The sums of a document's lines. */
export const totalsSchema = z.object({ subtotal: z.number().int(), taxTotal: z.number().int(), total: z.number().int() }).readonly();
export type Totals = z.output<typeof totalsSchema>;

export const QUOTE_STATES = ['DRAFT', 'SENT', 'ACCEPTED', 'DECLINED', 'EXPIRED'] as const;
export type QuoteState = (typeof QUOTE_STATES)[number];
export const INVOICE_STATES = ['DRAFT', 'ISSUED', 'PAID', 'VOID'] as const;
export type InvoiceState = (typeof INVOICE_STATES)[number];
export const PAYMENT_METHODS = ['BANK_TRANSFER', 'CARD', 'CASH', 'DIRECT_DEBIT', 'OTHER'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

const documentFields = {
  id: z.string(),
  organizationId: z.string(),
  customerId: z.string(),
  currency: z.string(),
  notes: nullableText,
  lines: z.array(lineSchema).readonly(),
  totals: totalsSchema,
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
};

export const quoteSchema = z
  .object({
    ...documentFields,
    state: z.enum(QUOTE_STATES),
    validUntil: nullableText,
    sentAt: nullableText,
    decidedAt: nullableText,
    invoiceId: nullableText,
  })
  .readonly();
export type Quote = z.output<typeof quoteSchema>;

export const invoiceSchema = z
  .object({
    ...documentFields,
    state: z.enum(INVOICE_STATES),
    number: z.number().int().nullable().default(null),
    paymentTermDays: z.number().int(),
    quoteId: nullableText,
    issuedAt: nullableText,
    dueDate: nullableText,
    amountPaid: z.number().int(),
    paidAt: nullableText,
    voidedAt: nullableText,
    voidReason: nullableText,
  })
  .readonly();
export type Invoice = z.output<typeof invoiceSchema>;

export const paymentSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    invoiceId: z.string(),
    currency: z.string(),
    amount: z.number().int(),
    paidOn: z.string(),
    method: z.enum(PAYMENT_METHODS),
    reference: nullableText,
    createdAt: z.string(),
  })
  .readonly();
export type Payment = z.output<typeof paymentSchema>;

/** The organization's invoice number sequence: the last number taken (0: none yet). */
export const sequenceSchema = z.object({ organizationId: z.string(), last: z.number().int() }).readonly();
export type InvoiceSequence = z.output<typeof sequenceSchema>;

const position = (createdAt: string, id: string) => `${createdAt}#${id}`;

export const commerceKeys = {
  quote: (org: string, id: string) => ({ PK: `ORG#${org}#QUOTE#${id}`, SK: 'QUOTE' }),
  invoice: (org: string, id: string) => ({ PK: `ORG#${org}#INVOICE#${id}`, SK: 'INVOICE' }),
  payment: (org: string, id: string) => ({ PK: `ORG#${org}#PAYMENT#${id}`, SK: 'PAYMENT' }),
  sequence: (org: string) => ({ PK: `ORG#${org}#INVSEQ`, SK: 'INVSEQ' }),
  numberClaim: (org: string, n: number) => ({ PK: `ORG#${org}#INVNO#${n}`, SK: 'INVNO' }),
  quotes: (org: string) => `ORG#${org}#QUOTES`,
  quotesInState: (org: string, state: QuoteState) => `ORG#${org}#QUOTES#${state}`,
  customerQuotes: (org: string, customerId: string) => `ORG#${org}#CUST#${customerId}#QUOTES`,
  invoices: (org: string) => `ORG#${org}#INVOICES`,
  invoicesInState: (org: string, state: InvoiceState) => `ORG#${org}#INVOICES#${state}`,
  customerInvoices: (org: string, customerId: string) => `ORG#${org}#CUST#${customerId}#INVOICES`,
  payments: (org: string) => `ORG#${org}#PAYMENTS`,
  invoicePayments: (org: string, invoiceId: string) => `ORG#${org}#INVOICE#${invoiceId}#PAYMENTS`,
};

export const quoteToItem = (q: Quote): Record<string, unknown> => {
  const at = position(q.createdAt, q.id);
  return {
    ...commerceKeys.quote(q.organizationId, q.id),
    ...onIndexes(at, { GSI1: commerceKeys.quotes(q.organizationId), GSI2: commerceKeys.quotesInState(q.organizationId, q.state), GSI3: commerceKeys.customerQuotes(q.organizationId, q.customerId) }),
    itemType: 'Quote',
    ...q,
  };
};

export const invoiceToItem = (i: Invoice): Record<string, unknown> => {
  const at = position(i.createdAt, i.id);
  return {
    ...commerceKeys.invoice(i.organizationId, i.id),
    ...onIndexes(at, { GSI1: commerceKeys.invoices(i.organizationId), GSI2: commerceKeys.invoicesInState(i.organizationId, i.state), GSI3: commerceKeys.customerInvoices(i.organizationId, i.customerId) }),
    itemType: 'Invoice',
    ...i,
  };
};

export const paymentToItem = (p: Payment): Record<string, unknown> => {
  const at = position(p.createdAt, p.id);
  return {
    ...commerceKeys.payment(p.organizationId, p.id),
    ...onIndexes(at, { GSI1: commerceKeys.payments(p.organizationId), GSI2: commerceKeys.invoicePayments(p.organizationId, p.invoiceId) }),
    itemType: 'Payment',
    ...p,
  };
};

export const sequenceToItem = (s: InvoiceSequence): Record<string, unknown> => ({ ...commerceKeys.sequence(s.organizationId), itemType: 'InvoiceSequence', ...s });

export const numberClaimItem = (org: string, n: number, invoiceId: string): Record<string, unknown> => ({
  ...commerceKeys.numberClaim(org, n),
  itemType: 'InvoiceNumberClaim',
  organizationId: org,
  number: n,
  invoiceId,
});

export const quoteFromItem = (item: Record<string, unknown>): Quote => quoteSchema.parse(item);
export const invoiceFromItem = (item: Record<string, unknown>): Invoice => invoiceSchema.parse(item);
export const paymentFromItem = (item: Record<string, unknown>): Payment => paymentSchema.parse(item);
export const sequenceFromItem = (item: Record<string, unknown>): InvoiceSequence => sequenceSchema.parse(item);
