/**
 * What other modules may use of commerce: the use cases and the store port, for writers
 * that are not HTTP operations (the demo seed), and the list read that tells whether an
 * organization already has quotes.
 */
export { invoiceEtag, quoteEtag, type CommercePorts, type Writer } from './domain';
export { createInvoice, issueInvoice } from './domain-invoices';
export { recordPayment } from './domain-payments';
export { createQuote, sendQuote } from './domain-quotes';
export { commerceStore, listQuotes } from './store';
/** The dashboard counts overdue invoices (services/overview). */
export { countOverdueInvoices } from './store-counts';
