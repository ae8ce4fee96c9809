import { randomUUID } from 'node:crypto';
import type { ApiFixture, ApiResponse } from '../support/api';
import { send, sent } from './locations-fixture';
import { CUSTOMER_DEMO_IDS } from '../../services/customers/seed';

/**
 * Helpers of the commerce API tests (not a test file itself): documents in a given state,
 * commands with the ETag of the response before, and a line body.
 */
/** The demo seed's first customer: commerce documents must name a customer of their organization. */
export const CUSTOMER = CUSTOMER_DEMO_IDS.customers[0];

/** A new customer of the demo organization, archived before it is returned (its id). */
export async function archivedCustomer(api: ApiFixture): Promise<string> {
  const created = await sent(api, 'POST', '/customers', { name: 'Archived customer', customerNumber: `A-${randomUUID().slice(0, 8)}` });
  await sent(api, 'PATCH', `/customers/${created.body.id}`, { archived: true }, 200, { ifMatch: created.headers.get('etag')! });
  return created.body.id;
}

/** A new active customer of the demo organization (its id). */
export const newCustomer = async (api: ApiFixture): Promise<string> => (await sent(api, 'POST', '/customers', { name: 'Commerce customer', customerNumber: `C-${randomUUID().slice(0, 8)}` })).body.id;

export const line = (over: Record<string, unknown> = {}) => ({ description: 'Office cleaning, March', quantity: 12, unitPrice: 4550, taxRate: 19, ...over });

export const etag = (res: ApiResponse): string => res.headers.get('etag')!;

/** A POST command with If-Match = the ETag of `before`. */
export const command = (api: ApiFixture, path: string, before: ApiResponse, body?: unknown, status = 200) => sent(api, 'POST', path, body, status, { ifMatch: etag(before) });
export const tryCommand = (api: ApiFixture, path: string, before: ApiResponse | string, body?: unknown) =>
  send(api, 'POST', path, body, { ifMatch: typeof before === 'string' ? before : etag(before) });

export const createQuote = (api: ApiFixture, over: Record<string, unknown> = {}) => sent(api, 'POST', '/commerce/quotes', { customerId: CUSTOMER, currency: 'EUR', items: [line()], ...over });
export const createInvoice = (api: ApiFixture, over: Record<string, unknown> = {}) => sent(api, 'POST', '/commerce/invoices', { customerId: CUSTOMER, currency: 'EUR', items: [line()], ...over });

export async function sentQuote(api: ApiFixture, over: Record<string, unknown> = {}): Promise<ApiResponse> {
  const q = await createQuote(api, over);
  return command(api, `/commerce/quotes/${q.body.id}/send`, q);
}

export async function acceptedQuote(api: ApiFixture): Promise<ApiResponse> {
  const q = await sentQuote(api);
  return command(api, `/commerce/quotes/${q.body.id}/accept`, q);
}

export async function issuedInvoice(api: ApiFixture, over: Record<string, unknown> = {}): Promise<ApiResponse> {
  const i = await createInvoice(api, over);
  return command(api, `/commerce/invoices/${i.body.id}/issue`, i);
}

export const pay = (api: ApiFixture, invoiceId: string, amount: number, over: Record<string, unknown> = {}) =>
  send(api, 'POST', '/commerce/payments', { invoiceId, amount, paidOn: '2030-01-15', method: 'BANK_TRANSFER', ...over }, { idempotencyKey: randomUUID() });
