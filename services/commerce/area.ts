import type * as z from 'zod';
import { defineArea } from '../shared/area';
import { actionRoute, createRoute, listRoute, readRoute, removeRoute, updateRoute } from '../shared/route-shapes';
import type { ProblemRef } from '../shared/errors';
import { READ_WRITE } from '../shared/permissions';
import { pageSchema } from '../shared/schemas/fields';
import { createInvoiceBody, createPaymentBody, createQuoteBody, declineQuoteBody, invoiceListQuery, invoiceResponseSchema, lineBody, lineResponseSchema, paymentListQuery, paymentResponseSchema, quoteListQuery, quoteResponseSchema, updateInvoiceBody, updateQuoteBody, voidInvoiceBody } from './schemas';
import { PROBLEMS } from './problems';

const MONEY = 'Money is integer minor units of the currency; line amounts and totals are computed by the server (per line, half away from zero) and a request that sends one is 422.';
const R = ['commerce:read'] as const;
const W = ['commerce:write'] as const;

const QUOTE_CONFLICTS = [PROBLEMS.QUOTE_DRAFT, PROBLEMS.QUOTE_SENT, PROBLEMS.QUOTE_ACCEPTED, PROBLEMS.QUOTE_DECLINED, PROBLEMS.QUOTE_EXPIRED, PROBLEMS.QUOTE_CONVERTED];
const INVOICE_CONFLICTS = [PROBLEMS.INVOICE_DRAFT, PROBLEMS.INVOICE_ISSUED, PROBLEMS.INVOICE_PARTIALLY_PAID, PROBLEMS.INVOICE_PAID, PROBLEMS.INVOICE_VOID];
/** The 409s of an operation that starts only from the `from` states: every other state's of `all`, in its order. */
const conflictsExcept = (all: readonly ProblemRef[], ...from: ProblemRef[]): ProblemRef[] => all.filter((p) => !from.includes(p));

/**
 * The item routes of a commerce document: the same for quotes and invoices, as the domain's
 * item operations are (domain.ts). `conflicts` lists the document's state 409s, DRAFT first:
 * items change only on a draft.
 */
const itemRoutes = (noun: 'quote' | 'invoice', aNoun: string, schema: z.ZodType, conflicts: readonly ProblemRef[]) => {
  const items = `/commerce/${noun}s/{${noun}Id}/items`;
  const notDraft = conflictsExcept(conflicts, conflicts[0]);
  const theNoun = `the ${noun}`;
  return {
    list: readRoute({
      path: items,
      scopes: R,
      summary: `${aNoun[0].toUpperCase()}${aNoun.slice(1)}'s items`,
      description: `Every item of ${theNoun} in the order they were added (at most 100: one page, \`nextCursor\` null).`,
      schema: pageSchema(lineResponseSchema),
      returns: 'The items.',
    }),
    add: {
      method: 'POST',
      path: items,
      scopes: W,
      summary: `Add an item to a DRAFT ${noun}`,
      description: `Adds a line; ${theNoun}'s totals follow. ETag is ${theNoun}'s new ETag. If-Match (${theNoun}'s ETag) is optional and honoured when sent. ${MONEY}`,
      body: lineBody,
      idempotencyKey: 'required',
      ifMatch: 'optional',
      success: { status: 201, description: 'The added item.', schema: lineResponseSchema, headers: ['ETag', 'Location'] },
      problems: notDraft,
    },
    get: readRoute({
      path: `${items}/{itemId}`,
      scopes: R,
      summary: `Get one item of ${aNoun}`,
      description: `One line of ${theNoun}; ETag is ${theNoun}'s.`,
      schema: lineResponseSchema,
      returns: 'The item.',
    }),
    remove: removeRoute({
      path: `${items}/{itemId}`,
      scopes: W,
      summary: `Remove an item from a DRAFT ${noun}`,
      description: `Removes a line of a DRAFT ${noun} (the audit trail keeps that it was there); answers ${theNoun} with its new totals. If-Match (${theNoun}'s ETag) is optional and honoured when sent.`,
      schema,
      returns: `The ${noun} after the change.`,
      problems: notDraft,
    }),
  } as const;
};
const quoteItems = itemRoutes('quote', 'a quote', quoteResponseSchema, QUOTE_CONFLICTS);
const invoiceItems = itemRoutes('invoice', 'an invoice', invoiceResponseSchema, INVOICE_CONFLICTS);

const quoteCommand = (verb: string, summary: string, description: string) =>
  actionRoute({
    path: `/commerce/quotes/{quoteId}/${verb}`,
    scopes: W,
    summary,
    description: `${description} If-Match is the quote's ETag. The body may be absent or \`{}\`.`,
    schema: quoteResponseSchema,
    returns: 'The quote after the change.',
  });

/** Quotes and invoices with their items, the invoice number sequence, and payments. */
export const commerceArea = defineArea({
  name: 'commerce',
  api: 'public',
  description: 'Quotes, invoices with gap-free numbers, and payments.',
  // Documents, the number sequence and payments in conditional transactions; cursors sealed.
  permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false },
  problems: PROBLEMS,
  demoSeed: true,
  auditEntityTypes: ['quote', 'invoice', 'payment'],
  schemas: {
    Quote: quoteResponseSchema,
    QuoteList: pageSchema(quoteResponseSchema),
    Invoice: invoiceResponseSchema,
    InvoiceList: pageSchema(invoiceResponseSchema),
    DocumentItem: lineResponseSchema,
    DocumentItemList: pageSchema(lineResponseSchema),
    Payment: paymentResponseSchema,
    PaymentList: pageSchema(paymentResponseSchema),
  },
  routes: {
    listQuotes: listRoute({
      path: '/commerce/quotes',
      scopes: R,
      summary: 'List quotes',
      description: 'Quotes, oldest first (createdAt, then id), optionally of one state and/or one customer.',
      query: quoteListQuery,
      schema: pageSchema(quoteResponseSchema),
      returns: 'A page of quotes.',
    }),
    createQuote: createRoute({
      path: '/commerce/quotes',
      scopes: W,
      summary: 'Create a quote',
      description: `Creates a DRAFT quote, optionally with its items (at most 100). ${MONEY}`,
      body: createQuoteBody,
      schema: quoteResponseSchema,
      returns: 'The created quote.',
    }),
    getQuote: readRoute({
      path: '/commerce/quotes/{quoteId}',
      scopes: R,
      summary: 'Get one quote',
      description: 'One quote with its items and totals.',
      schema: quoteResponseSchema,
      returns: 'The quote.',
    }),
    updateQuote: updateRoute({
      path: '/commerce/quotes/{quoteId}',
      scopes: W,
      summary: 'Update a DRAFT quote',
      description: 'Changes customer, currency, validity or notes of a DRAFT quote (409 QUOTE_<STATE> otherwise). A change to the current values changes nothing.',
      body: updateQuoteBody,
      idempotencyKey: 'required',
      schema: quoteResponseSchema,
      returns: 'The quote after the change.',
      problems: conflictsExcept(QUOTE_CONFLICTS, PROBLEMS.QUOTE_DRAFT),
    }),
    listQuoteItems: quoteItems.list,
    addQuoteItem: quoteItems.add,
    getQuoteItem: quoteItems.get,
    removeQuoteItem: quoteItems.remove,
    sendQuote: { ...quoteCommand('send', 'Send a quote', 'DRAFT -> SENT; a quote without items is 422.'), problems: conflictsExcept(QUOTE_CONFLICTS, PROBLEMS.QUOTE_DRAFT) },
    acceptQuote: {
      ...quoteCommand('accept', 'Accept a quote', 'SENT -> ACCEPTED. After `validUntil` it is 409 QUOTE_EXPIRED.'),
      problems: conflictsExcept(QUOTE_CONFLICTS, PROBLEMS.QUOTE_SENT),
    },
    declineQuote: {
      ...quoteCommand('decline', 'Decline a quote', 'SENT -> DECLINED, with an optional `reason` (audited).'),
      body: declineQuoteBody,
      bodyOptional: true,
      problems: conflictsExcept(QUOTE_CONFLICTS, PROBLEMS.QUOTE_SENT),
    },
    expireQuote: {
      ...quoteCommand('expire', 'Expire a quote', 'SENT -> EXPIRED: the offer lapsed or was withdrawn.'),
      problems: conflictsExcept(QUOTE_CONFLICTS, PROBLEMS.QUOTE_SENT),
    },
    convertQuote: {
      method: 'POST',
      path: '/commerce/quotes/{quoteId}/convert',
      scopes: W,
      summary: 'Convert an accepted quote into a draft invoice',
      description:
        "Creates a DRAFT invoice with the quote's customer, currency, notes and items (same amounts) and marks the quote converted (`invoiceId`), in one transaction; a quote converts once (409 QUOTE_CONVERTED). If-Match is the quote's ETag. Location and ETag are the invoice's. The body may be absent or `{}`.",
      idempotencyKey: 'required',
      ifMatch: 'required',
      success: { status: 201, description: 'The new draft invoice.', schema: invoiceResponseSchema, headers: ['ETag', 'Location'] },
      problems: conflictsExcept(QUOTE_CONFLICTS, PROBLEMS.QUOTE_ACCEPTED),
    },

    listInvoices: listRoute({
      path: '/commerce/invoices',
      scopes: R,
      summary: 'List invoices',
      description: 'Invoices, oldest first (createdAt, then id), optionally of one state and/or one customer.',
      query: invoiceListQuery,
      schema: pageSchema(invoiceResponseSchema),
      returns: 'A page of invoices.',
    }),
    createInvoice: createRoute({
      path: '/commerce/invoices',
      scopes: W,
      summary: 'Create a draft invoice',
      description: `Creates a DRAFT invoice (no number until issued), optionally with its items (at most 100). ${MONEY}`,
      body: createInvoiceBody,
      schema: invoiceResponseSchema,
      returns: 'The created invoice.',
    }),
    getInvoice: readRoute({
      path: '/commerce/invoices/{invoiceId}',
      scopes: R,
      summary: 'Get one invoice',
      description: 'One invoice with its items, totals, payments total and balance.',
      schema: invoiceResponseSchema,
      returns: 'The invoice.',
    }),
    updateInvoice: updateRoute({
      path: '/commerce/invoices/{invoiceId}',
      scopes: W,
      summary: 'Update a DRAFT invoice',
      description: 'Changes customer, currency, payment term or notes of a DRAFT invoice; an issued invoice is immutable (409 INVOICE_<STATE>: void it and issue a new one).',
      body: updateInvoiceBody,
      idempotencyKey: 'required',
      schema: invoiceResponseSchema,
      returns: 'The invoice after the change.',
      problems: conflictsExcept(INVOICE_CONFLICTS, PROBLEMS.INVOICE_DRAFT),
    }),
    listInvoiceItems: invoiceItems.list,
    addInvoiceItem: invoiceItems.add,
    getInvoiceItem: invoiceItems.get,
    removeInvoiceItem: invoiceItems.remove,
    issueInvoice: actionRoute({
      path: '/commerce/invoices/{invoiceId}/issue',
      scopes: W,
      summary: 'Issue an invoice',
      description:
        "DRAFT -> ISSUED: takes the next number of the organization's sequence in the same transaction (no gaps, no duplicates under concurrency), sets `issuedAt` and `dueDate` (issue date + paymentTermDays). Needs items and a total above zero (422). If-Match is the invoice's ETag. The body may be absent or `{}`.",
      schema: invoiceResponseSchema,
      returns: 'The issued invoice.',
      problems: conflictsExcept(INVOICE_CONFLICTS, PROBLEMS.INVOICE_DRAFT),
    }),
    voidInvoice: actionRoute({
      path: '/commerce/invoices/{invoiceId}/void',
      scopes: W,
      summary: 'Void an invoice',
      description: 'ISSUED (without payments) or DRAFT -> VOID with a `reason`; a void invoice keeps its number, and the number is never given again. If-Match is the invoice\'s ETag.',
      body: voidInvoiceBody,
      schema: invoiceResponseSchema,
      returns: 'The void invoice.',
      problems: conflictsExcept(INVOICE_CONFLICTS, PROBLEMS.INVOICE_DRAFT, PROBLEMS.INVOICE_ISSUED),
    }),

    listPayments: listRoute({
      path: '/commerce/payments',
      scopes: R,
      summary: 'List payments',
      description: 'Payments, oldest first (createdAt, then id), optionally of one invoice.',
      query: paymentListQuery,
      schema: pageSchema(paymentResponseSchema),
      returns: 'A page of payments.',
    }),
    recordPayment: createRoute({
      path: '/commerce/payments',
      scopes: W,
      summary: 'Record a payment',
      description:
        "Records a (partial) payment against an ISSUED invoice and moves the invoice's `amountPaid`, `balance` and, at zero balance, its state to PAID, in one transaction. An amount above the balance is 422 at /amount (with `balance`); of concurrent payments that together would overpay, exactly one commits. An invoice of another organization is 422 at /invoiceId.",
      body: createPaymentBody,
      schema: paymentResponseSchema,
      returns: 'The recorded payment.',
      problems: conflictsExcept(INVOICE_CONFLICTS, PROBLEMS.INVOICE_ISSUED, PROBLEMS.INVOICE_PARTIALLY_PAID),
    }),
    getPayment: readRoute({
      path: '/commerce/payments/{paymentId}',
      scopes: R,
      summary: 'Get one payment',
      description: 'One payment.',
      schema: paymentResponseSchema,
      returns: 'The payment.',
    }),
  },
});
