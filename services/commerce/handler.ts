import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { listPage } from '../shared/http/list';
import { created, ok, type HttpResult } from '../shared/http/request';
import { commerceArea } from './area';
import { invoiceEtag, paymentEtag, quoteEtag, type CommercePorts, type Invoice, type Line, type Quote } from './domain';
import { addInvoiceLine, createInvoice, issueInvoice, removeInvoiceLine, updateInvoice, voidInvoice } from './domain-invoices';
import { recordPayment } from './domain-payments';
import { acceptQuote, addQuoteLine, convertQuote, createQuote, declineQuote, expireQuote, removeQuoteLine, sendQuote, updateQuote } from './domain-quotes';
import { invoiceResponse, lineResponse, paymentResponse, quoteResponse } from './schemas';
import { commerceStore, getInvoice, getPayment, getQuote, listInvoices, listPayments, listQuotes } from './store';

const quotePath = (orgPath: string, id: string) => `${orgPath}/commerce/quotes/${id}`;
const invoicePath = (orgPath: string, id: string) => `${orgPath}/commerce/invoices/${id}`;

const quoteResult = (q: Quote): HttpResult => ok(quoteResponse(q), { ETag: quoteEtag(q) });
const invoiceResult = (i: Invoice): HttpResult => ok(invoiceResponse(i), { ETag: invoiceEtag(i) });

/** A line answered with its document's ETag: the one a following change names in If-Match. */
function lineOf(lines: readonly Line[], itemId: string, what: string): Line {
  const line = lines.find((l) => l.id === itemId);
  if (!line) throw new NotFoundError(`Item ${itemId} of ${what}`);
  return line;
}

async function readQuote(org: string, id: string): Promise<Quote> {
  const quote = await getQuote(defaultDb(), org, id);
  if (!quote) throw new NotFoundError(`Quote ${id}`);
  return quote;
}

async function readInvoice(org: string, id: string): Promise<Invoice> {
  const invoice = await getInvoice(defaultDb(), org, id);
  if (!invoice) throw new NotFoundError(`Invoice ${id}`);
  return invoice;
}

export const handler = areaHandler(commerceArea, {
  ports: (unit): CommercePorts => ({ store: commerceStore(defaultDb(), unit), now: () => new Date(), newId: randomUUID }),
  operations: {
    async listQuotes(request) {
      const { query } = request;
      return ok(await listPage(request, (page) => listQuotes(defaultDb(), request.principal.organizationId, { state: query.state, customerId: query.customerId, ...page }), (items) => items.map(quoteResponse)));
    },
    async createQuote(request) {
      const q = await createQuote(request.ports, request.actor, request.body);
      return created(quoteResponse(q), { ETag: quoteEtag(q), Location: quotePath(request.orgPath, q.id) });
    },
    getQuote: async (request) => quoteResult(await readQuote(request.principal.organizationId, request.params.quoteId)),
    updateQuote: async (request) => quoteResult(await updateQuote(request.ports, request.actor, request.params.quoteId, request.ifMatch, request.body)),
    async listQuoteItems(request) {
      const q = await readQuote(request.principal.organizationId, request.params.quoteId);
      return ok({ items: q.lines.map(lineResponse), nextCursor: null }, { ETag: quoteEtag(q) });
    },
    async addQuoteItem(request) {
      const { document: quote, line } = await addQuoteLine(request.ports, request.actor, request.params.quoteId, request.ifMatch, request.body);
      return created(lineResponse(line), { ETag: quoteEtag(quote), Location: `${quotePath(request.orgPath, quote.id)}/items/${line.id}` });
    },
    async getQuoteItem(request) {
      const q = await readQuote(request.principal.organizationId, request.params.quoteId);
      return ok(lineResponse(lineOf(q.lines, request.params.itemId, `quote ${q.id}`)), { ETag: quoteEtag(q) });
    },
    removeQuoteItem: async (request) => quoteResult(await removeQuoteLine(request.ports, request.actor, request.params.quoteId, request.params.itemId, request.ifMatch)),
    sendQuote: async (request) => quoteResult(await sendQuote(request.ports, request.actor, request.params.quoteId, request.ifMatch)),
    acceptQuote: async (request) => quoteResult(await acceptQuote(request.ports, request.actor, request.params.quoteId, request.ifMatch)),
    declineQuote: async (request) => quoteResult(await declineQuote(request.ports, request.actor, request.params.quoteId, request.ifMatch, request.body?.reason ?? undefined)),
    expireQuote: async (request) => quoteResult(await expireQuote(request.ports, request.actor, request.params.quoteId, request.ifMatch)),
    async convertQuote(request) {
      const { invoice } = await convertQuote(request.ports, request.actor, request.params.quoteId, request.ifMatch);
      return created(invoiceResponse(invoice), { ETag: invoiceEtag(invoice), Location: invoicePath(request.orgPath, invoice.id) });
    },

    async listInvoices(request) {
      const { query } = request;
      return ok(await listPage(request, (page) => listInvoices(defaultDb(), request.principal.organizationId, { state: query.state, customerId: query.customerId, ...page }), (items) => items.map(invoiceResponse)));
    },
    async createInvoice(request) {
      const i = await createInvoice(request.ports, request.actor, request.body);
      return created(invoiceResponse(i), { ETag: invoiceEtag(i), Location: invoicePath(request.orgPath, i.id) });
    },
    getInvoice: async (request) => invoiceResult(await readInvoice(request.principal.organizationId, request.params.invoiceId)),
    updateInvoice: async (request) => invoiceResult(await updateInvoice(request.ports, request.actor, request.params.invoiceId, request.ifMatch, request.body)),
    async listInvoiceItems(request) {
      const i = await readInvoice(request.principal.organizationId, request.params.invoiceId);
      return ok({ items: i.lines.map(lineResponse), nextCursor: null }, { ETag: invoiceEtag(i) });
    },
    async addInvoiceItem(request) {
      const { document: invoice, line } = await addInvoiceLine(request.ports, request.actor, request.params.invoiceId, request.ifMatch, request.body);
      return created(lineResponse(line), { ETag: invoiceEtag(invoice), Location: `${invoicePath(request.orgPath, invoice.id)}/items/${line.id}` });
    },
    async getInvoiceItem(request) {
      const i = await readInvoice(request.principal.organizationId, request.params.invoiceId);
      return ok(lineResponse(lineOf(i.lines, request.params.itemId, `invoice ${i.id}`)), { ETag: invoiceEtag(i) });
    },
    removeInvoiceItem: async (request) => invoiceResult(await removeInvoiceLine(request.ports, request.actor, request.params.invoiceId, request.params.itemId, request.ifMatch)),
    issueInvoice: async (request) => invoiceResult(await issueInvoice(request.ports, request.actor, request.params.invoiceId, request.ifMatch)),
    voidInvoice: async (request) => invoiceResult(await voidInvoice(request.ports, request.actor, request.params.invoiceId, request.ifMatch, request.body.reason)),

    async listPayments(request) {
      const { query } = request;
      return ok(await listPage(request, (page) => listPayments(defaultDb(), request.principal.organizationId, { invoiceId: query.invoiceId, ...page }), (items) => items.map(paymentResponse)));
    },
    async recordPayment(request) {
      const { payment } = await recordPayment(request.ports, request.actor, request.body);
      return created(paymentResponse(payment), { ETag: paymentEtag(payment), Location: `${request.orgPath}/commerce/payments/${payment.id}` });
    },
    async getPayment(request) {
      const payment = await getPayment(defaultDb(), request.principal.organizationId, request.params.paymentId);
      if (!payment) throw new NotFoundError(`Payment ${request.params.paymentId}`);
      return ok(paymentResponse(payment), { ETag: paymentEtag(payment) });
    },
  },
});
