import * as z from 'zod';
import { limitParameter } from '../shared/http/query';
import { cursorParameter, freeTextCharacters, hasAtMostDecimals, nothingToChange, nullableName, nullableText, requiredName, sendsAField, utc } from '../shared/schemas/fields';
import { isCalendarDate, uuid } from '../shared/time';
import { responseOf } from '../shared/schemas/response';
import { fromBasisPoints, fromMilli, MAX_AMOUNT } from './domain-money';
import { INVOICE_STATES, PAYMENT_METHODS, QUOTE_STATES, type Invoice, type Line, type Payment, type Quote } from './model';

/**
 * Request and response shapes of quotes, invoices, their items, and payments. Money is an
 * integer of minor units of the document's currency (1250 EUR = 12.50 €); every amount the
 * server computes (line net, tax and total; subtotal, taxTotal, total; amountPaid, balance)
 * is response-only: a request that sends one is 422 (strict bodies).
 */

/** A calendar date `YYYY-MM-DD` that exists (2026-02-30 does not), from 1970. */
export const calendarDate = (field: string) =>
  z
    .string({ error: `${field} must be a date YYYY-MM-DD.` })
    .refine((v) => isCalendarDate(v) && v >= '1970-01-01', { message: `${field} must be a calendar date YYYY-MM-DD from 1970.` })
    .meta({ format: 'date' });

const currency = () =>
  z
    .string({ error: 'currency is required: an ISO 4217 code such as EUR.' })
    .regex(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code: three capital letters such as EUR, USD or CHF.' })
    .meta({ description: 'ISO 4217 currency code; every amount of the document is in its minor units.', examples: ['EUR'] });

const minorUnits = (field: string, min: number) =>
  z
    .number({ error: `${field} must be an integer number of minor units.` })
    .int({ message: `${field} must be an integer number of minor units (e.g. 1250 for 12.50 EUR).` })
    .min(min, { message: `${field} must be at least ${min}.` })
    .max(MAX_AMOUNT, { message: `${field} is at most ${MAX_AMOUNT}.` });

export const lineBody = z
  .object({
    description: requiredName('description', 500),
    quantity: z
      .number({ error: 'quantity must be a number.' })
      .gt(0, { message: 'quantity must be greater than 0.' })
      .max(1_000_000, { message: 'quantity is at most 1000000.' })
      .refine(hasAtMostDecimals(3), { message: 'quantity has at most 3 decimals (1.5, not 1.50000000000001).' })
      .meta({ description: 'Decimal, at most 3 decimals.' }),
    unitPrice: minorUnits('unitPrice', 0).meta({ description: 'Net price of one unit, in minor units of the currency.' }),
    taxRate: z
      .number({ error: 'taxRate must be a number (percent).' })
      .min(0, { message: 'taxRate must be from 0 to 100.' })
      .max(100, { message: 'taxRate must be from 0 to 100.' })
      .refine(hasAtMostDecimals(2), { message: 'taxRate has at most 2 decimals (7.5, not 7.50000000000001).' })
      .meta({ description: 'Tax rate in percent (19 or 7.5), at most 2 decimals.' }),
  })
  .strict();

/** The customer a quote or invoice is for; checked in the transaction that names it. */
const customerId = () =>
  uuid().meta({ description: 'A customer of this organization that is not archived (422 at /customerId otherwise). A document keeps its customer when the customer is archived later.' });

const items = z.array(lineBody).max(100, { message: 'At most 100 items.' }).optional();
const notes = nullableText('notes', 2000).meta({ description: 'Free text shown on the document; never audited.' });

export const createQuoteBody = z
  .object({
    customerId: customerId(),
    currency: currency(),
    validUntil: calendarDate('validUntil').nullable().optional().meta({ description: 'Last day the quote can be accepted; null: no limit.' }),
    notes,
    items,
  })
  .strict();

export const updateQuoteBody = z
  .object({ customerId: customerId().optional(), currency: currency().optional(), validUntil: calendarDate('validUntil').nullable().optional(), notes })
  .strict()
  .refine(sendsAField, nothingToChange());

export const declineQuoteBody = z.object({ reason: nullableText('reason', 1000) }).strict();

export const createInvoiceBody = z
  .object({
    customerId: customerId(),
    currency: currency(),
    paymentTermDays: z.number().int({ message: 'paymentTermDays must be a whole number.' }).min(0).max(365).optional().meta({ description: 'Days from issue to the due date; default 30.' }),
    notes,
    items,
  })
  .strict();

export const updateInvoiceBody = z
  .object({ customerId: customerId().optional(), currency: currency().optional(), paymentTermDays: z.number().int().min(0).max(365).optional(), notes })
  .strict()
  .refine(sendsAField, nothingToChange());

export const voidInvoiceBody = z
  .object({ reason: z.string({ error: 'reason is required: say why the invoice is void.' }).trim().min(1, { message: 'reason must not be empty.' }).max(1000).check(freeTextCharacters('reason')) })
  .strict();

export const createPaymentBody = z
  .object({
    invoiceId: uuid(),
    amount: minorUnits('amount', 1).meta({ description: 'Minor units of the invoice currency; at most the balance.' }),
    currency: currency().optional().meta({ description: "When sent, it must be the invoice's currency." }),
    paidOn: calendarDate('paidOn').meta({ description: 'The day the money was received.' }),
    method: z.enum(PAYMENT_METHODS, { error: `method must be one of ${PAYMENT_METHODS.join(', ')}.` }),
    reference: nullableName('reference', 200).meta({ description: 'e.g. the bank transfer reference.' }),
  })
  .strict();

export const quoteListQuery = z
  .object({
    state: z.enum(QUOTE_STATES, { error: `state must be one of ${QUOTE_STATES.join(', ')}.` }).optional(),
    customerId: uuid().optional(),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict();

export const invoiceListQuery = z
  .object({
    state: z.enum(INVOICE_STATES, { error: `state must be one of ${INVOICE_STATES.join(', ')}.` }).optional(),
    customerId: uuid().optional(),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict();

export const paymentListQuery = z.object({ invoiceId: uuid().optional(), limit: limitParameter(), cursor: cursorParameter() }).strict();

// ---- responses ---------------------------------------------------------------------------

const amount = (description: string) => z.number().int().meta({ description: `${description} Integer minor units.` });

export const lineResponseSchema = z
  .object({
    id: z.uuid(),
    description: z.string(),
    quantity: z.number(),
    unitPrice: amount('Net unit price.'),
    taxRate: z.number().meta({ description: 'Percent.' }),
    netAmount: amount('round(quantity × unitPrice), half away from zero.'),
    taxAmount: amount('round(netAmount × taxRate / 100), half away from zero.'),
    totalAmount: amount('netAmount + taxAmount.'),
  })
  .meta({ id: 'DocumentItem', description: 'A line of a quote or an invoice; the amounts are computed by the server.' });

const totals = {
  subtotal: amount('Sum of the items’ netAmount.'),
  taxTotal: amount('Sum of the items’ taxAmount.'),
  total: amount('subtotal + taxTotal.'),
};

export const quoteResponseSchema = z
  .object({
    id: z.uuid(),
    customerId: z.uuid(),
    currency: z.string(),
    state: z.enum(QUOTE_STATES),
    validUntil: z.string().nullable().meta({ format: 'date' }),
    notes: z.string().nullable(),
    items: z.array(lineResponseSchema),
    ...totals,
    sentAt: utc().nullable(),
    decidedAt: utc().nullable().meta({ description: 'When it was accepted, declined or expired.' }),
    invoiceId: z.uuid().nullable().meta({ description: 'The invoice it was converted into.' }),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Quote' });

export const invoiceResponseSchema = z
  .object({
    id: z.uuid(),
    number: z.number().int().nullable().meta({ description: 'From the organization’s sequence, taken when issued: no gaps, no duplicates; kept when void. null while DRAFT.' }),
    customerId: z.uuid(),
    currency: z.string(),
    state: z.enum(INVOICE_STATES),
    paymentTermDays: z.number().int(),
    quoteId: z.uuid().nullable(),
    notes: z.string().nullable(),
    items: z.array(lineResponseSchema),
    ...totals,
    amountPaid: amount('Sum of the payments.'),
    balance: amount('total - amountPaid.'),
    issuedAt: utc().nullable(),
    dueDate: z.string().nullable().meta({ format: 'date' }),
    paidAt: utc().nullable(),
    voidedAt: utc().nullable(),
    voidReason: z.string().nullable(),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Invoice' });

export const paymentResponseSchema = z
  .object({
    id: z.uuid(),
    invoiceId: z.uuid(),
    currency: z.string(),
    amount: amount('The amount paid.'),
    paidOn: z.string().meta({ format: 'date' }),
    method: z.enum(PAYMENT_METHODS),
    reference: z.string().nullable(),
    createdAt: utc(),
  })
  .meta({ id: 'Payment' });

export const lineResponse = (l: Line): z.infer<typeof lineResponseSchema> => responseOf(lineResponseSchema, l, {
  quantity: fromMilli(l.quantityMilli),
  taxRate: fromBasisPoints(l.taxRateBp),
  netAmount: l.net,
  taxAmount: l.tax,
  totalAmount: l.total,
});

export const quoteResponse = (q: Quote): z.infer<typeof quoteResponseSchema> => responseOf(quoteResponseSchema, q, {
  items: q.lines.map(lineResponse),
  subtotal: q.totals.subtotal,
  taxTotal: q.totals.taxTotal,
  total: q.totals.total,
});

export const invoiceResponse = (i: Invoice): z.infer<typeof invoiceResponseSchema> => responseOf(invoiceResponseSchema, i, {
  items: i.lines.map(lineResponse),
  subtotal: i.totals.subtotal,
  taxTotal: i.totals.taxTotal,
  total: i.totals.total,
  balance: i.totals.total - i.amountPaid,
});

export const paymentResponse = (p: Payment): z.infer<typeof paymentResponseSchema> => responseOf(paymentResponseSchema, p);
