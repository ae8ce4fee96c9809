import { newRecord, revised } from '../shared/domain/lifecycle';
import { ValidationError } from '../shared/errors';
import { amountsSnapshot, audit, newDraft, documentKind, readDocument, stageDocument, stageNewDraft, stateConflict, draftUseCases, type CommercePorts, type LineInput, type Writer } from './domain';
import { DEFAULT_PAYMENT_TERM_DAYS, notIssued } from './domain-invoices';
import type { Invoice, Quote, QuoteState } from './model';
import { PROBLEMS } from './problems';

/**
 * Quotes: DRAFT -> SENT -> ACCEPTED | DECLINED | EXPIRED; lines change only while DRAFT; an
 * ACCEPTED quote converts once into a DRAFT invoice, in one transaction with the quote.
 */

export interface QuoteInput {
  readonly customerId: string;
  readonly currency: string;
  readonly validUntil?: string | null;
  readonly notes?: string | null;
  readonly items?: readonly LineInput[];
}

export type QuotePatch = Partial<Omit<QuoteInput, 'items'>>;

/** The code of a quote state that forbids a move: QUOTE_<STATE>, or QUOTE_CONVERTED once converted. */
function quoteStateError(q: Quote, wanted: string): Error {
  if (q.invoiceId !== null) return stateConflict(PROBLEMS.QUOTE_CONVERTED, `Quote ${q.id} was converted into invoice ${q.invoiceId}; it cannot ${wanted}.`, q.state);
  return stateConflict(PROBLEMS[`QUOTE_${q.state}`], `Quote ${q.id} is ${q.state}; it cannot ${wanted}.`, q.state);
}

function assertQuoteState(q: Quote, allowed: readonly QuoteState[], wanted: string): void {
  if (!allowed.includes(q.state) || q.invoiceId !== null) throw quoteStateError(q, wanted);
}

/** Quotes for the shared draft-document use cases (domain.ts). */
const QUOTE = documentKind<Quote, QuoteState>('quote', {
  get: (ports, organizationId, id) => ports.store.getQuote(organizationId, id),
  assertState: assertQuoteState,
  snapshot: (q) => ({ state: q.state, ...amountsSnapshot(q) }),
  save: (ports) => (change) => ports.store.saveQuote(change),
});

const readQuote = (ports: CommercePorts, actor: Writer, id: string, ifMatch: string | undefined): Promise<Quote> => readDocument(QUOTE, ports, actor, id, ifMatch);

/** Creates a DRAFT quote. 1. Currency must be ISO 4217 (422).  2. Lines and totals computed.  3. Stage with its audit entry. */
export async function createQuote(ports: CommercePorts, actor: Writer, input: QuoteInput): Promise<Quote> {
  const { now, draft } = newDraft(ports, actor, input);
  const quote: Quote = {
    ...draft,
    validUntil: input.validUntil ?? null,
    sentAt: null,
    decidedAt: null,
    invoiceId: null,
  };
  return stageNewDraft(QUOTE, ports, actor, now, quote);
}

/**
 * Changes a DRAFT quote's customer, currency, validity or notes; adds and removes its lines
 * (409 QUOTE_<STATE> once it is not a draft; the audit keeps a removed line's trace).
 */
export const { update: updateQuote, addLine: addQuoteLine, removeLine: removeQuoteLine } = draftUseCases(QUOTE, 'DRAFT', ['customerId', 'currency', 'validUntil', 'notes']);

/** DRAFT -> SENT; a quote without items cannot be sent (422). */
export async function sendQuote(ports: CommercePorts, actor: Writer, id: string, ifMatch: string): Promise<Quote> {
  const current = await readQuote(ports, actor, id, ifMatch);
  assertQuoteState(current, ['DRAFT'], 'be sent');
  if (current.lines.length === 0) throw new ValidationError([{ pointer: '', detail: 'A quote without items cannot be sent: add items first.' }]);
  return stageDocument(QUOTE, ports, actor, current, { ...current, state: 'SENT', sentAt: ports.now().toISOString() }, { action: 'quote.sent', changed: ['state'] });
}

/** The UTC calendar date of an instant. */
const dateOf = (at: Date) => at.toISOString().slice(0, 10);

/** SENT -> ACCEPTED; after `validUntil` it is 409 QUOTE_EXPIRED (expire it, or send a new quote). */
export async function acceptQuote(ports: CommercePorts, actor: Writer, id: string, ifMatch: string): Promise<Quote> {
  const current = await readQuote(ports, actor, id, ifMatch);
  assertQuoteState(current, ['SENT'], 'be accepted');
  const now = ports.now();
  if (current.validUntil !== null && dateOf(now) > current.validUntil) {
    throw stateConflict(PROBLEMS.QUOTE_EXPIRED, `Quote ${id} was valid until ${current.validUntil}; it can no longer be accepted.`, current.state);
  }
  return stageDocument(QUOTE, ports, actor, current, { ...current, state: 'ACCEPTED', decidedAt: now.toISOString() }, { action: 'quote.accepted', changed: ['state'] });
}

/** SENT -> DECLINED, with an optional reason (audited). */
export async function declineQuote(ports: CommercePorts, actor: Writer, id: string, ifMatch: string, reason?: string): Promise<Quote> {
  const current = await readQuote(ports, actor, id, ifMatch);
  assertQuoteState(current, ['SENT'], 'be declined');
  return stageDocument(QUOTE, ports, actor, current, { ...current, state: 'DECLINED', decidedAt: ports.now().toISOString() }, { action: 'quote.declined', changed: ['state'], reason });
}

/** SENT -> EXPIRED (the offer lapsed or was withdrawn). */
export async function expireQuote(ports: CommercePorts, actor: Writer, id: string, ifMatch: string): Promise<Quote> {
  const current = await readQuote(ports, actor, id, ifMatch);
  assertQuoteState(current, ['SENT'], 'expire');
  return stageDocument(QUOTE, ports, actor, current, { ...current, state: 'EXPIRED', decidedAt: ports.now().toISOString() }, { action: 'quote.expired', changed: ['state'] });
}

/**
 * Converts an ACCEPTED quote into a DRAFT invoice, once.
 * 1. Read the quote (404), If-Match (412); ACCEPTED and not converted (409 QUOTE_<STATE> /
 *    QUOTE_CONVERTED).  2. The invoice copies customer, currency, notes and lines (fresh line
 *    ids, same amounts) and references the quote.  3. Stage the quote (with `invoiceId`) and
 *    the invoice together: of two conversions one commits, the other runs again and answers
 *    409 QUOTE_CONVERTED.
 */
export async function convertQuote(ports: CommercePorts, actor: Writer, id: string, ifMatch: string): Promise<{ quote: Quote; invoice: Invoice }> {
  const current = await readQuote(ports, actor, id, ifMatch);
  assertQuoteState(current, ['ACCEPTED'], 'be converted into an invoice');
  const now = ports.now().toISOString();
  const invoice: Invoice = {
    ...newRecord(ports.newId(), current.organizationId, now),
    customerId: current.customerId,
    currency: current.currency,
    notes: current.notes,
    lines: current.lines.map((l) => ({ ...l, id: ports.newId() })),
    totals: current.totals,
    state: 'DRAFT',
    ...notIssued(DEFAULT_PAYMENT_TERM_DAYS, current.id),
  };
  const quote: Quote = revised(current, now, { invoiceId: invoice.id });
  ports.store.saveConversion({
    before: current,
    after: quote,
    invoice,
    audit: [
      audit(ports, actor, now, { action: 'quote.converted', entity: { type: 'quote', id: quote.id }, references: { invoiceId: invoice.id, customerId: quote.customerId }, changedAttributes: ['invoiceId'] }),
      audit(ports, actor, now, {
        action: 'invoice.created',
        entity: { type: 'invoice', id: invoice.id },
        references: { quoteId: quote.id, customerId: invoice.customerId },
        after: { state: 'DRAFT', ...amountsSnapshot(invoice) },
      }),
    ],
  });
  return { quote, invoice };
}
