import { auditFor, type AuditEntry } from '../audit/model';
import { organizationOf, type Actor, type SystemActor } from '../shared/domain/actor';
import { assertSentEtag, entityEtag, versionedEtag } from '../shared/domain/etag';
import { newRecord, revised } from '../shared/domain/lifecycle';
import { AppError, NotFoundError, ValidationError, type Problem } from '../shared/errors';
import { documentTotals, isCurrency, lineAmounts, toBasisPoints, toMilli } from './domain-money';
import type { Invoice, InvoiceSequence, Line, Payment, Quote, Totals } from './model';
import type { UseCasePorts } from '../shared/domain/ports';

export type { Invoice, InvoiceSequence, InvoiceState, Line, Payment, PaymentMethod, Quote, QuoteState, Totals } from './model';

/**
 * The commerce store port: reads, and `save*` that stage a change in the request's unit of
 * work (committed with its audit entries and the idempotency record in one transaction). A
 * staged change holds only if what it was decided on is unchanged (versions, the number
 * sequence); otherwise the use case runs again from its reads. The adapter is store.ts.
 */
export interface CommerceStore {
  getQuote(organizationId: string, id: string): Promise<Quote | undefined>;
  getInvoice(organizationId: string, id: string): Promise<Invoice | undefined>;
  getSequence(organizationId: string): Promise<InvoiceSequence | undefined>;
  saveQuote(change: { readonly before?: Quote; readonly after: Quote; readonly audit: AuditEntry }): void;
  saveInvoice(change: { readonly before?: Invoice; readonly after: Invoice; readonly audit: AuditEntry }): void;
  /** The accepted quote (marked converted) and its new draft invoice, together. */
  saveConversion(change: { readonly before: Quote; readonly after: Quote; readonly invoice: Invoice; readonly audit: readonly AuditEntry[] }): void;
  /** The issued invoice, the sequence moved from `sequence` to the invoice's number, and the number's claim. */
  saveIssue(change: { readonly before: Invoice; readonly after: Invoice; readonly sequence?: InvoiceSequence; readonly audit: AuditEntry }): void;
  /** The payment and the invoice's new balance (and state), together. */
  savePayment(change: { readonly before: Invoice; readonly after: Invoice; readonly payment: Payment; readonly audit: readonly AuditEntry[] }): void;
}

export type CommercePorts = UseCasePorts<CommerceStore>;

/** Who changes commerce data: an API key, or an internal writer such as the demo seed. */
export type Writer = Actor | SystemActor;
export { organizationOf };

export const quoteEtag = versionedEtag<Quote>('quote');
export const invoiceEtag = versionedEtag<Invoice>('invoice');
export const paymentEtag = (p: Payment): string => entityEtag('payment', p.id, 1);

/** An audit entry of this request, with a fresh id. */
export const audit = auditFor;

/** What the audit trail may show of a quote or invoice: its state, and what `snapshot` adds (amounts, number). */
type DocumentSnapshot<D> = (d: D) => Readonly<Record<string, string | number | boolean | null>>;

/**
 * The next version of a quote or invoice with its audit entry (before/after snapshots, the
 * changed attributes, the reason), handed to `save`; returns the new version.
 */
export function nextVersion<D extends { readonly id: string; readonly version: number; readonly updatedAt: string; readonly customerId: string }>(
  ports: CommercePorts,
  actor: Writer,
  kind: { readonly entityType: 'quote' | 'invoice'; readonly snapshot: DocumentSnapshot<D>; readonly save: (change: { readonly before: D; readonly after: D; readonly audit: AuditEntry }) => void },
  current: D,
  next: D,
  change: { readonly action: string; readonly changed: readonly string[]; readonly reason?: string },
): D {
  const now = ports.now().toISOString();
  const after = revised(current, now, next);
  kind.save({
    before: current,
    after,
    audit: audit(ports, actor, now, {
      action: change.action,
      entity: { type: kind.entityType, id: current.id },
      references: { customerId: after.customerId },
      changedAttributes: change.changed,
      before: kind.snapshot(current),
      after: kind.snapshot(after),
      ...(change.reason ? { reason: change.reason } : {}),
    }),
  });
  return after;
}

/** A state that forbids the move: 409 with the code `<RESOURCE>_<STATE>` and the state as an extension member. */
export const stateConflict = (code: Problem, message: string, state: string): AppError => new AppError(code, message, { extensions: { state } });

/**
 * What the quote and invoice use cases share: how to read one (404, If-Match), how its state
 * refuses a move (409 <KIND>_<STATE>), and how its next version is staged with its audit entry.
 */
export interface DocumentKind<D extends CommerceDocument, S extends string> {
  readonly entityType: 'quote' | 'invoice';
  /** For messages: "Quote", and with its article, "A quote". */
  readonly noun: string;
  readonly aNoun: string;
  readonly get: (ports: CommercePorts, organizationId: string, id: string) => Promise<D | undefined>;
  readonly etag: (d: D) => string;
  readonly assertState: (d: D, allowed: readonly S[], wanted: string) => void;
  readonly snapshot: DocumentSnapshot<D>;
  readonly save: (ports: CommercePorts) => (change: { readonly before?: D; readonly after: D; readonly audit: AuditEntry }) => void;
}

const NOUNS = { quote: { noun: 'Quote', aNoun: 'A quote' }, invoice: { noun: 'Invoice', aNoun: 'An invoice' } } as const;

/** A document kind from how it is read, refused, shown and saved; its nouns and ETag follow from `entityType`. */
export const documentKind = <D extends CommerceDocument, S extends string>(
  entityType: DocumentKind<D, S>['entityType'],
  parts: Pick<DocumentKind<D, S>, 'get' | 'assertState' | 'snapshot' | 'save'>,
): DocumentKind<D, S> => ({ entityType, ...NOUNS[entityType], etag: versionedEtag<D>(entityType), ...parts });

/** Stages a new DRAFT document with its `<kind>.created` audit entry (amounts only, never texts). */
export function stageNewDraft<D extends CommerceDocument, S extends string>(kind: DocumentKind<D, S>, ports: CommercePorts, actor: Writer, now: string, document: D): D {
  kind.save(ports)({
    after: document,
    audit: audit(ports, actor, now, { action: `${kind.entityType}.created`, entity: { type: kind.entityType, id: document.id }, references: { customerId: document.customerId }, after: { state: 'DRAFT', ...amountsSnapshot(document) } }),
  });
  return document;
}

/** The document `id` of the actor's organization (404 otherwise), checked against If-Match when given. */
export async function readDocument<D extends CommerceDocument, S extends string>(
  kind: DocumentKind<D, S>,
  ports: CommercePorts,
  actor: Writer,
  id: string,
  ifMatch: string | undefined,
): Promise<D> {
  const document = await kind.get(ports, organizationOf(actor), id);
  if (!document) throw new NotFoundError(`${kind.noun} ${id}`);
  assertSentEtag(ifMatch, kind.etag(document));
  return document;
}

/** Stages the next version of a document with its audit entry (`nextVersion` for one kind). */
export const stageDocument = <D extends CommerceDocument, S extends string>(
  kind: DocumentKind<D, S>,
  ports: CommercePorts,
  actor: Writer,
  current: D,
  next: D,
  change: { readonly action: string; readonly changed: readonly string[]; readonly reason?: string },
): D => nextVersion(ports, actor, { entityType: kind.entityType, snapshot: kind.snapshot, save: kind.save(ports) }, current, next, change);

/**
 * The draft-editing use cases of one kind, each on the document `id` of the actor's
 * organization (404) checked against If-Match (412) and in state `draft` (409 <KIND>_<STATE>):
 * - update: changes the header `fields` (422 for a currency that is not ISO 4217); a patch
 *   that changes nothing answers the document as it is;
 * - addLine: adds a line; the totals follow. Output: the document and the new line;
 * - removeLine: removes a line (404 when it has none of that id, before the state check);
 *   the audit keeps that it was there.
 */
export function draftUseCases<D extends CommerceDocument, S extends string, K extends keyof D & string>(kind: DocumentKind<D, S>, draft: S, fields: readonly K[]) {
  const stage = (ports: CommercePorts, actor: Writer, current: D, next: D, action: string, changed: readonly string[]): D =>
    stageDocument(kind, ports, actor, current, next, { action: `${kind.entityType}.${action}`, changed });
  return {
    async update(ports: CommercePorts, actor: Writer, id: string, ifMatch: string, patch: Partial<Pick<D, K>>): Promise<D> {
      const current = await readDocument(kind, ports, actor, id, ifMatch);
      kind.assertState(current, [draft], 'be changed');
      const currency = (patch as { readonly currency?: string }).currency;
      if (currency !== undefined) assertCurrency(currency);
      const candidate = { ...current };
      for (const field of fields) if (patch[field] !== undefined) candidate[field] = patch[field] as D[K];
      const changed = fields.filter((k) => candidate[k] !== current[k]);
      if (changed.length === 0) return current;
      return stage(ports, actor, current, candidate, 'updated', changed);
    },
    async addLine(ports: CommercePorts, actor: Writer, id: string, ifMatch: string | undefined, input: LineInput): Promise<{ readonly document: D; readonly line: Line }> {
      const current = await readDocument(kind, ports, actor, id, ifMatch);
      kind.assertState(current, [draft], 'change its items');
      const { next, line } = withLineAdded(current, () => buildLine(ports.newId(), input, ''), kind.aNoun);
      return { document: stage(ports, actor, current, next, 'item_added', ['items']), line };
    },
    async removeLine(ports: CommercePorts, actor: Writer, id: string, lineId: string, ifMatch: string | undefined): Promise<D> {
      const current = await readDocument(kind, ports, actor, id, ifMatch);
      const next = withLineRemoved(current, lineId, `${kind.entityType} ${id}`, () => kind.assertState(current, [draft], 'change its items'));
      return stage(ports, actor, current, next, 'item_removed', ['items']);
    },
  };
}

/** At most this many lines per quote or invoice (one item, one transaction). */
export const MAX_LINES = 100;

export interface LineInput {
  readonly description: string;
  /** Decimal, at most 3 decimals. */
  readonly quantity: number;
  /** Minor units of the document's currency. */
  readonly unitPrice: number;
  /** Percent, at most 2 decimals. */
  readonly taxRate: number;
}

/** A line with the amounts the server computes; 422 at `pointer` when they leave the exact range. */
export function buildLine(id: string, input: LineInput, pointer: string): Line {
  const quantityMilli = toMilli(input.quantity);
  const taxRateBp = toBasisPoints(input.taxRate);
  const amounts = lineAmounts({ quantityMilli, unitPrice: input.unitPrice, taxRateBp });
  if (!amounts) throw new ValidationError([{ pointer, detail: 'The line amount is too large: quantity × unitPrice must stay below 10^15 minor units.' }]);
  return { id, description: input.description, quantityMilli, unitPrice: input.unitPrice, taxRateBp, ...amounts };
}

/** The totals of `lines`; 422 when the document total would leave the exact range. */
export function totalsOf(lines: readonly Line[], pointer = '/items'): Totals {
  const totals = documentTotals(lines);
  if (!totals) throw new ValidationError([{ pointer, detail: 'The document total is too large: it must stay below 10^15 minor units.' }]);
  return totals;
}

type WithLines = { readonly lines: readonly Line[]; readonly totals: Totals };

/** What quotes and invoices have in common. */
type CommerceDocument = WithLines & { readonly id: string; readonly version: number; readonly updatedAt: string; readonly customerId: string; readonly currency: string };

/**
 * A quote or invoice with one more line, made by `make` once the item limit allows it (422
 * beyond MAX_LINES; `noun` names the document: "An invoice", "A quote"). The state check is the caller's.
 */
export function withLineAdded<T extends WithLines>(current: T, make: () => Line, noun: string): { readonly next: T; readonly line: Line } {
  if (current.lines.length >= MAX_LINES) throw new ValidationError([{ pointer: '', detail: `${noun} has at most ${MAX_LINES} items.` }]);
  const line = make();
  const lines = [...current.lines, line];
  return { next: { ...current, lines, totals: totalsOf(lines, '') }, line };
}

/**
 * A quote or invoice without line `lineId`: 404 when it has no such line (`of` names the
 * document: "invoice <id>"), then `assertEditable` (the caller's state check), then the totals.
 */
export function withLineRemoved<T extends WithLines>(current: T, lineId: string, of: string, assertEditable: () => void): T {
  if (!current.lines.some((l) => l.id === lineId)) throw new NotFoundError(`Item ${lineId} of ${of}`);
  assertEditable();
  const lines = current.lines.filter((l) => l.id !== lineId);
  return { ...current, lines, totals: totalsOf(lines) };
}

export function assertCurrency(currency: string, pointer = '/currency'): void {
  if (!isCurrency(currency)) throw new ValidationError([{ pointer, detail: `"${currency.slice(0, 10)}" is not an ISO 4217 currency code such as EUR, USD or CHF.` }]);
}

/** The lines of a new document from its input, each id fresh. */
export function buildLines(ports: CommercePorts, items: readonly LineInput[] | undefined): Line[] {
  if ((items?.length ?? 0) > MAX_LINES) throw new ValidationError([{ pointer: '/items', detail: `At most ${MAX_LINES} items.` }]);
  return (items ?? []).map((item, i) => buildLine(ports.newId(), item, `/items/${i}`));
}

/**
 * The members every new DRAFT quote or invoice starts with: 422 for a currency that is not
 * ISO 4217, then the lines (each id fresh) and totals, then the document's own id; `now`
 * is the creation time (read before the lines, as the create use cases always did).
 */
export function newDraft(ports: CommercePorts, actor: Writer, input: { readonly customerId: string; readonly currency: string; readonly notes?: string | null; readonly items?: readonly LineInput[] }) {
  assertCurrency(input.currency);
  const now = ports.now().toISOString();
  const lines = buildLines(ports, input.items);
  const draft = {
    ...newRecord(ports.newId(), organizationOf(actor), now),
    customerId: input.customerId,
    currency: input.currency,
    notes: input.notes ?? null,
    lines,
    totals: totalsOf(lines),
    state: 'DRAFT' as const,
  };
  return { now, draft };
}

/** The audit snapshot of a document's amounts: numbers only, never descriptions or notes. */
export const amountsSnapshot = (d: { readonly currency: string; readonly totals: Totals; readonly lines: readonly Line[] }) => ({
  currency: d.currency,
  lineCount: d.lines.length,
  subtotal: d.totals.subtotal,
  taxTotal: d.totals.taxTotal,
  total: d.totals.total,
});
