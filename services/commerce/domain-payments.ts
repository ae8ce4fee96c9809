import { revised } from '../shared/domain/lifecycle';
import { AppError, ValidationError } from '../shared/errors';
import { audit, type CommercePorts, organizationOf, type Writer } from './domain';
import { invoiceStateError } from './domain-invoices';
import type { Invoice, Payment, PaymentMethod } from './model';

/** Payments: recorded against an ISSUED invoice; the invoice's balance and PAID state follow. */

export interface PaymentInput {
  readonly invoiceId: string;
  /** Minor units of the invoice's currency, above zero. */
  readonly amount: number;
  /** When sent, it must be the invoice's currency. */
  readonly currency?: string;
  readonly paidOn: string;
  readonly method: PaymentMethod;
  readonly reference?: string | null;
}

export const balanceOf = (i: Invoice): number => i.totals.total - i.amountPaid;

/**
 * Records a payment.
 * 1. Read the invoice: not in this organization is 422 at /invoiceId; it must be ISSUED
 *    (409 INVOICE_DRAFT / INVOICE_PAID / INVOICE_VOID).  2. A currency other than the
 *    invoice's is 422; an amount above the balance is 422 at /amount (with `balance`).
 * 3. Stage the payment and the invoice (amountPaid, PAID with paidAt when the balance reaches
 *    zero) only at the version read: of two payments that together overpay, one commits and
 *    the other runs again on the new balance and answers 422.
 */
export async function recordPayment(ports: CommercePorts, actor: Writer, input: PaymentInput): Promise<{ payment: Payment; invoice: Invoice }> {
  const current = await ports.store.getInvoice(organizationOf(actor), input.invoiceId);
  if (!current) throw new ValidationError([{ pointer: '/invoiceId', detail: `Invoice ${input.invoiceId} does not exist in this organization.` }]);
  if (current.state !== 'ISSUED') throw invoiceStateError(current, 'take a payment');
  if (input.currency !== undefined && input.currency !== current.currency) {
    throw new ValidationError([{ pointer: '/currency', detail: `The invoice is in ${current.currency}; a payment is recorded in the invoice's currency.` }]);
  }
  const balance = balanceOf(current);
  if (input.amount > balance) {
    throw new AppError('VALIDATION_ERROR', `The payment of ${input.amount} exceeds the invoice's balance of ${balance} (${current.currency} minor units): overpayment is not accepted.`, {
      errors: [{ pointer: '/amount', detail: `At most the balance, ${balance}.` }],
      extensions: { balance, currency: current.currency },
    });
  }
  const now = ports.now().toISOString();
  const payment: Payment = {
    id: ports.newId(),
    organizationId: current.organizationId,
    invoiceId: current.id,
    currency: current.currency,
    amount: input.amount,
    paidOn: input.paidOn,
    method: input.method,
    reference: input.reference ?? null,
    createdAt: now,
  };
  const amountPaid = current.amountPaid + input.amount;
  const paid = amountPaid === current.totals.total;
  const invoice: Invoice = revised(current, now, { amountPaid, state: paid ? 'PAID' : 'ISSUED', paidAt: paid ? now : null });
  ports.store.savePayment({
    before: current,
    after: invoice,
    payment,
    audit: [
      audit(ports, actor, now, {
        action: 'payment.recorded',
        entity: { type: 'payment', id: payment.id },
        references: { invoiceId: invoice.id },
        after: { amount: payment.amount, currency: payment.currency, paidOn: payment.paidOn, method: payment.method },
      }),
      audit(ports, actor, now, {
        action: paid ? 'invoice.paid' : 'invoice.payment_applied',
        entity: { type: 'invoice', id: invoice.id },
        references: { paymentId: payment.id },
        changedAttributes: paid ? ['amountPaid', 'paidAt', 'state'] : ['amountPaid'],
        before: { state: current.state, amountPaid: current.amountPaid, balance },
        after: { state: invoice.state, amountPaid, balance: balanceOf(invoice) },
      }),
    ],
  });
  return { payment, invoice };
}
