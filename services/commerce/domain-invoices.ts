import { revised } from '../shared/domain/lifecycle';
import { ValidationError } from '../shared/errors';
import { amountsSnapshot, audit, documentKind, draftUseCases, newDraft, organizationOf, readDocument, stageDocument, stageNewDraft, stateConflict, type CommercePorts, type LineInput, type Writer } from './domain';
import type { Invoice, InvoiceState } from './model';
import { PROBLEMS } from './problems';

/**
 * Invoices: DRAFT -> ISSUED -> PAID | VOID (and DRAFT -> VOID for a draft that is dropped).
 * Lines change only while DRAFT; issuing takes the next number of the organization's
 * sequence in the same transaction as the invoice, so numbers have no gaps and no
 * duplicates; an issued invoice is immutable; a void keeps its number.
 */

export const DEFAULT_PAYMENT_TERM_DAYS = 30;

export interface InvoiceInput {
  readonly customerId: string;
  readonly currency: string;
  readonly paymentTermDays?: number;
  readonly notes?: string | null;
  readonly items?: readonly LineInput[];
}

export type InvoicePatch = Partial<Omit<InvoiceInput, 'items'>>;

/**
 * The members of an invoice that was never issued (a new DRAFT, created or converted from
 * quote `quoteId`): no number, issue or due date, nothing paid, not void.
 */
export const notIssued = (paymentTermDays: number, quoteId: string | null) => ({
  number: null,
  paymentTermDays,
  quoteId,
  issuedAt: null,
  dueDate: null,
  amountPaid: 0,
  paidAt: null,
  voidedAt: null,
  voidReason: null,
});

export const invoiceStateError = (i: Invoice, wanted: string): Error =>
  i.state === 'ISSUED' && i.amountPaid > 0
    ? stateConflict(PROBLEMS.INVOICE_PARTIALLY_PAID, `Invoice ${i.id} has payments recorded; it cannot ${wanted}.`, i.state)
    : stateConflict(PROBLEMS[`INVOICE_${i.state}`], `Invoice ${i.id} is ${i.state}; it cannot ${wanted}.`, i.state);

function assertInvoiceState(i: Invoice, allowed: readonly InvoiceState[], wanted: string): void {
  if (!allowed.includes(i.state)) throw invoiceStateError(i, wanted);
}

/** Invoices for the shared draft-document use cases (domain.ts). */
const INVOICE = documentKind<Invoice, InvoiceState>('invoice', {
  get: (ports, organizationId, id) => ports.store.getInvoice(organizationId, id),
  assertState: assertInvoiceState,
  snapshot: (i) => ({ state: i.state, number: i.number, ...amountsSnapshot(i) }),
  save: (ports) => (change) => ports.store.saveInvoice(change),
});

const readInvoice = (ports: CommercePorts, actor: Writer, id: string, ifMatch: string | undefined): Promise<Invoice> => readDocument(INVOICE, ports, actor, id, ifMatch);

/** Creates a DRAFT invoice (no number yet). */
export async function createInvoice(ports: CommercePorts, actor: Writer, input: InvoiceInput): Promise<Invoice> {
  const { now, draft } = newDraft(ports, actor, input);
  const invoice: Invoice = { ...draft, ...notIssued(input.paymentTermDays ?? DEFAULT_PAYMENT_TERM_DAYS, null) };
  return stageNewDraft(INVOICE, ports, actor, now, invoice);
}

/**
 * Changes a DRAFT invoice's customer, currency, payment term or notes; adds and removes its
 * lines (409 INVOICE_<STATE> once it is not a draft).
 */
export const { update: updateInvoice, addLine: addInvoiceLine, removeLine: removeInvoiceLine } = draftUseCases(INVOICE, 'DRAFT', ['customerId', 'currency', 'paymentTermDays', 'notes']);

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * Issues a DRAFT invoice with the next number of the organization's sequence.
 * 1. Read the invoice and the sequence (consistent, together). The invoice: 404, If-Match (412),
 *    DRAFT (409 INVOICE_<STATE>), items and a total above zero (422).  2. The number is `last + 1`.
 * 3. Stage the invoice (ISSUED, number, issuedAt, dueDate = issue date + payment term), the
 *    sequence at that number only if it still holds `last`, and the number's claim. Of
 *    concurrent issues one commits per number; the others run again from 1 with the next
 *    number, so numbers have no gaps and no duplicates.
 */
export async function issueInvoice(ports: CommercePorts, actor: Writer, id: string, ifMatch: string): Promise<Invoice> {
  // Both reads at once: the shorter the time from reading the sequence to committing, the fewer
  // concurrent issues have to run again.
  const [current, sequence] = await Promise.all([readInvoice(ports, actor, id, ifMatch), ports.store.getSequence(organizationOf(actor))]);
  assertInvoiceState(current, ['DRAFT'], 'be issued');
  if (current.lines.length === 0 || current.totals.total <= 0) throw new ValidationError([{ pointer: '', detail: 'An invoice needs items and a total above zero to be issued.' }]);
  const number = (sequence?.last ?? 0) + 1;
  const now = ports.now().toISOString();
  const after: Invoice = revised(current, now, { state: 'ISSUED', number, issuedAt: now, dueDate: addDays(now.slice(0, 10), current.paymentTermDays) });
  ports.store.saveIssue({
    before: current,
    after,
    ...(sequence ? { sequence } : {}),
    audit: audit(ports, actor, now, {
      action: 'invoice.issued',
      entity: { type: 'invoice', id },
      references: { customerId: after.customerId },
      changedAttributes: ['dueDate', 'issuedAt', 'number', 'state'],
      before: { state: 'DRAFT' },
      after: { state: 'ISSUED', number, dueDate: after.dueDate, ...amountsSnapshot(after) },
    }),
  });
  return after;
}

/**
 * Voids an invoice with a reason: an ISSUED one without payments keeps its number, a DRAFT is
 * dropped without ever taking one. PAID, partially paid and VOID invoices are 409.
 */
export async function voidInvoice(ports: CommercePorts, actor: Writer, id: string, ifMatch: string, reason: string): Promise<Invoice> {
  const current = await readInvoice(ports, actor, id, ifMatch);
  if (!(current.state === 'DRAFT' || (current.state === 'ISSUED' && current.amountPaid === 0))) throw invoiceStateError(current, 'be voided');
  const now = ports.now().toISOString();
  return stageDocument(INVOICE, ports, actor, current, { ...current, state: 'VOID', voidedAt: now, voidReason: reason }, { action: 'invoice.voided', changed: ['state', 'voidReason'], reason });
}
