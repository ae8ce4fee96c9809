import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../shared/ddb/client';
import { movedOn, versionedPut } from '../shared/ddb/entity';
import type { IndexName } from '../shared/ddb/table-spec';
import type { TransactionCancelledError, TxItem } from '../shared/ddb/transaction';
import { fieldError } from '../shared/errors';
import { CUSTOMER_LABEL, activeCustomerCheck } from '../customers/public';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import type { CommerceStore } from './domain';
import { commerceKeys, invoiceFromItem, invoiceToItem, numberClaimItem, paymentFromItem, paymentToItem, quoteFromItem, quoteToItem, sequenceFromItem, sequenceToItem, type Invoice, type InvoiceSequence, type InvoiceState, type Payment, type Quote, type QuoteState } from './model';

/**
 * The DynamoDB adapter of quotes, invoices, payments and the invoice number sequence: the
 * only place with their expressions and conditions (keys: model.ts). Writes are staged in
 * the request's unit of work; a failed condition on anything read (a document's version,
 * the sequence, a number's claim) is a concurrent change, and the use case runs again.
 */

const QUOTE_LABEL = 'quote';
const INVOICE_LABEL = 'invoice';
const PAYMENT_LABEL = 'payment';
const SEQUENCE_LABEL = 'invoice-sequence';
const NUMBER_LABEL = 'invoice-number';

type Item = Record<string, unknown>;

async function getItem(db: Db, key: { PK: string; SK: string }): Promise<Item | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: key, ConsistentRead: true }));
  return out.Item;
}

export const getQuote = async (db: Db, org: string, id: string): Promise<Quote | undefined> => {
  const item = await getItem(db, commerceKeys.quote(org, id));
  return item ? quoteFromItem(item) : undefined;
};

export const getInvoice = async (db: Db, org: string, id: string): Promise<Invoice | undefined> => {
  const item = await getItem(db, commerceKeys.invoice(org, id));
  return item ? invoiceFromItem(item) : undefined;
};

export const getPayment = async (db: Db, org: string, id: string): Promise<Payment | undefined> => {
  const item = await getItem(db, commerceKeys.payment(org, id));
  return item ? paymentFromItem(item) : undefined;
};

export const getSequence = async (db: Db, org: string): Promise<InvoiceSequence | undefined> => {
  const item = await getItem(db, commerceKeys.sequence(org));
  return item ? sequenceFromItem(item) : undefined;
};

const putNew = (label: string, item: Item): TxItem => ({ label, op: { Put: { Item: item, ConditionExpression: 'attribute_not_exists(PK)' } } });

/** The sequence at `number`, only if it still holds the number read before it (or is still absent). */
function sequenceMove(org: string, read: InvoiceSequence | undefined, number: number): TxItem {
  const item = sequenceToItem({ organizationId: org, last: number });
  return read
    ? { label: SEQUENCE_LABEL, op: { Put: { Item: item, ConditionExpression: '#last = :read', ExpressionAttributeNames: { '#last': 'last' }, ExpressionAttributeValues: { ':read': read.last } } } }
    : putNew(SEQUENCE_LABEL, item);
}

/**
 * A new document, or one moved to another customer, names an active (not archived) customer of
 * its organization (checked in its transaction). A document that keeps its customer is not
 * checked: a draft made before the customer was archived may still change, be sent or issued.
 */
const customerCheck = (before: { readonly customerId: string } | undefined, after: { readonly organizationId: string; readonly customerId: string }): TxItem[] =>
  before?.customerId === after.customerId ? [] : [activeCustomerCheck(after.organizationId, after.customerId)];

/** A missing or archived customer is the client's error (422 at /customerId); anything else as `otherwise` explains it. */
const customerOr =
  (otherwise: (error: TransactionCancelledError) => Error | undefined) =>
  (error: TransactionCancelledError): Error | undefined =>
    error.failed(CUSTOMER_LABEL) ? fieldError('/customerId', 'customerId must name a customer of this organization that is not archived.') : otherwise(error);

/** The commerce store port on DynamoDB, staging writes in `unit`. */
export const commerceStore = (db: Db, unit: UnitOfWork): CommerceStore => ({
  getQuote: (org, id) => getQuote(db, org, id),
  getInvoice: (org, id) => getInvoice(db, org, id),
  getSequence: (org) => getSequence(db, org),
  saveQuote: ({ before, after, audit }) =>
    unit.stage({ items: [versionedPut(QUOTE_LABEL, quoteToItem(after), before), ...customerCheck(before, after)], audit, explain: customerOr(movedOn(QUOTE_LABEL)) }),
  saveInvoice: ({ before, after, audit }) =>
    unit.stage({ items: [versionedPut(INVOICE_LABEL, invoiceToItem(after), before), ...customerCheck(before, after)], audit, explain: customerOr(movedOn(INVOICE_LABEL)) }),
  saveConversion: ({ before, after, invoice, audit }) =>
    unit.stage({
      items: [versionedPut(QUOTE_LABEL, quoteToItem(after), before), putNew(INVOICE_LABEL, invoiceToItem(invoice))],
      audit,
      explain: movedOn(QUOTE_LABEL, INVOICE_LABEL),
    }),
  saveIssue: ({ before, after, sequence, audit }) =>
    unit.stage({
      items: [
        versionedPut(INVOICE_LABEL, invoiceToItem(after), before),
        sequenceMove(after.organizationId, sequence, after.number!),
        putNew(NUMBER_LABEL, numberClaimItem(after.organizationId, after.number!, after.id)),
      ],
      audit,
      // Another issue took this number first (or the invoice moved): read again, take the next one.
      explain: movedOn(INVOICE_LABEL, SEQUENCE_LABEL, NUMBER_LABEL),
    }),
  savePayment: ({ before, after, payment, audit }) =>
    unit.stage({
      items: [versionedPut(INVOICE_LABEL, invoiceToItem(after), before), putNew(PAYMENT_LABEL, paymentToItem(payment))],
      audit,
      explain: movedOn(INVOICE_LABEL),
    }),
});

// ---- lists --------------------------------------------------------------------------------

/** Where a list page continues: the index key of the last item returned. */
export type ListPosition = { readonly key: Item };

interface ListSpec {
  readonly index: IndexName;
  readonly partition: string;
  /** Keeps only items in this state (a filter within a bounded partition). */
  readonly state?: string;
}

/**
 * One page of an index partition in sort-key order (`<createdAt>#<id>`): oldest first. With
 * a `state` filter the Query goes on until the page is full or the partition ends.
 */
async function page(db: Db, spec: ListSpec, limit: number, after: ListPosition | undefined): Promise<{ items: Item[]; next?: ListPosition }> {
  const found: Item[] = [];
  let start: Item | undefined = after?.key;
  do {
    const out = await db.doc.send(
      new QueryCommand({
        TableName: db.tableName,
        IndexName: spec.index,
        KeyConditionExpression: `${spec.index}PK = :pk`,
        ExpressionAttributeValues: { ':pk': spec.partition, ...(spec.state ? { ':state': spec.state } : {}) },
        ...(spec.state ? { FilterExpression: '#state = :state', ExpressionAttributeNames: { '#state': 'state' } } : {}),
        ExclusiveStartKey: start,
        Limit: limit + 1,
      }),
    );
    found.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (found.length <= limit && start);
  const items = found.slice(0, limit);
  const last = found.length > limit ? items.at(-1) : undefined;
  return { items, ...(last ? { next: { key: Object.fromEntries(['PK', 'SK', `${spec.index}PK`, `${spec.index}SK`].map((k) => [k, last[k]])) } } : {}) };
}

export interface DocumentListQuery<S extends string> {
  readonly state?: S;
  readonly customerId?: string;
  readonly limit: number;
  readonly after?: ListPosition;
}

/**
 * Documents of one kind by creation: all (GSI1), of one state (GSI2), of one customer (GSI3,
 * optionally filtered by state). `partitions` names the kind's three partitions.
 */
async function listDocuments<S extends string, D>(
  db: Db,
  partitions: { readonly all: string; readonly inState: (state: S) => string; readonly ofCustomer: (customerId: string) => string },
  fromItem: (item: Item) => D,
  q: DocumentListQuery<S>,
): Promise<{ items: D[]; next?: ListPosition }> {
  const spec: ListSpec = q.customerId
    ? { index: 'GSI3', partition: partitions.ofCustomer(q.customerId), state: q.state }
    : q.state
      ? { index: 'GSI2', partition: partitions.inState(q.state) }
      : { index: 'GSI1', partition: partitions.all };
  const out = await page(db, spec, q.limit, q.after);
  return { items: out.items.map(fromItem), ...(out.next ? { next: out.next } : {}) };
}

export const listQuotes = (db: Db, org: string, q: DocumentListQuery<QuoteState>): Promise<{ items: Quote[]; next?: ListPosition }> =>
  listDocuments(db, { all: commerceKeys.quotes(org), inState: (s) => commerceKeys.quotesInState(org, s), ofCustomer: (c) => commerceKeys.customerQuotes(org, c) }, quoteFromItem, q);

export const listInvoices = (db: Db, org: string, q: DocumentListQuery<InvoiceState>): Promise<{ items: Invoice[]; next?: ListPosition }> =>
  listDocuments(db, { all: commerceKeys.invoices(org), inState: (s) => commerceKeys.invoicesInState(org, s), ofCustomer: (c) => commerceKeys.customerInvoices(org, c) }, invoiceFromItem, q);

/** Payments by recording time: all (GSI1) or of one invoice (GSI2). */
export async function listPayments(db: Db, org: string, q: { readonly invoiceId?: string; readonly limit: number; readonly after?: ListPosition }): Promise<{ items: Payment[]; next?: ListPosition }> {
  const spec: ListSpec = q.invoiceId ? { index: 'GSI2', partition: commerceKeys.invoicePayments(org, q.invoiceId) } : { index: 'GSI1', partition: commerceKeys.payments(org) };
  const out = await page(db, spec, q.limit, q.after);
  return { items: out.items.map(paymentFromItem), ...(out.next ? { next: out.next } : {}) };
}
