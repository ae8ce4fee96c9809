import { createHmac } from 'node:crypto';
import { cursorKey } from '../crypto/secrets';
import type { Db } from '../ddb/client';
import { canonical } from '../ddb/cursor';
import { runIdempotent, runIdempotentInTransaction, TransactionalIdempotencyStore, type Completion, type ReadAlong, type StoredResponse } from '../ddb/idempotency';
import type { TxItem } from '../ddb/transaction';
import type { AppError } from '../errors';
import type { JsonValue } from '../json';
import { renderProblem } from './render-problem';
import type { ApiRequest, HttpResult } from './request';

const stores = new WeakMap<Db, TransactionalIdempotencyStore>();

const storeFor = (db: Db): TransactionalIdempotencyStore => {
  let store = stores.get(db);
  if (!store) {
    store = new TransactionalIdempotencyStore(db);
    stores.set(db, store);
  }
  return store;
};

/**
 * Runs a write once per Idempotency-Key, scoped to organization + API key + method + route
 * (decisions.md). `work` must commit `complete(response)` in its own transaction. A replay
 * returns the original status, headers and body, with `Idempotency-Replayed: true`.
 */
export async function idempotentWrite(
  db: Db,
  request: ApiRequest,
  idempotencyKey: string,
  input: JsonValue,
  work: (complete: Completion) => Promise<HttpResult>,
): Promise<HttpResult> {
  const { principal, route } = request;
  const outcome = await runIdempotent(
    storeFor(db),
    {
      scope: `${principal.organizationId}#${principal.keyId}#${route.method}#${route.path}`,
      idempotencyKey,
      input: await keyedDigest(input),
      lockMillis: Math.max(request.remainingTimeMs(), 1_000),
    },
    async (complete) => toStored(await work(complete)),
  );
  return fromOutcome(outcome);
}

/**
 * As idempotentWrite, without the IN_PROGRESS lock (runIdempotentInTransaction): for routes
 * whose only effect is the transaction that commits the record. `work` gets the record's
 * ReadAlong to read with its own first reads.
 */
export async function idempotentWriteInTransaction(
  db: Db,
  request: ApiRequest,
  idempotencyKey: string,
  input: JsonValue,
  work: (complete: Completion, readAlong: ReadAlong) => Promise<HttpResult>,
): Promise<HttpResult> {
  const { principal, route } = request;
  const outcome = await runIdempotentInTransaction(
    storeFor(db),
    { scope: `${principal.organizationId}#${principal.keyId}#${route.method}#${route.path}`, idempotencyKey, input: await keyedDigest(input) },
    async (complete, readAlong) => toStored(await work(complete, readAlong)),
  );
  return fromOutcome(outcome);
}

const fromOutcome = (outcome: { readonly response: StoredResponse; readonly replayed: boolean }): HttpResult => {
  const result = fromStored(outcome.response);
  return outcome.replayed ? { ...result, headers: { ...result.headers, 'Idempotency-Replayed': 'true' } } : result;
};

/**
 * The stored payload hash is of a keyed digest, not of the input itself: bodies carry IBANs,
 * tax IDs and coordinates, and a plain hash of such low-entropy values could be reversed.
 */
async function keyedDigest(input: JsonValue): Promise<string> {
  const key = createHmac('sha256', await cursorKey()).update('idempotency-input:v1').digest();
  return createHmac('sha256', key).update(JSON.stringify(canonical(input))).digest('base64url');
}

/** The input an Idempotency-Key is bound to: path parameters, body and If-Match. */
export const requestInput = (request: ApiRequest): JsonValue => ({
  path: request.pathParameters,
  body: (request.body ?? null) as JsonValue,
  ifMatch: request.headers['if-match'] ?? null,
});

/**
 * A write whose use case commits the idempotency record of its response in its own
 * transaction: `run` calls `extra(outcome)` once it knows its outcome, and adds the items it
 * gets to the transaction. Without an Idempotency-Key (optional on some updates) it just runs.
 */
export function committedWrite<T>(
  db: Db,
  request: ApiRequest,
  idempotencyKey: string | undefined,
  run: (extra: (outcome: T) => Promise<readonly TxItem[]>) => Promise<T>,
  render: (outcome: T) => HttpResult,
): Promise<HttpResult> {
  if (idempotencyKey === undefined) return run(async () => []).then(render);
  return idempotentWrite(db, request, idempotencyKey, requestInput(request), async (complete) =>
    render(await run(async (outcome) => complete(toStored(render(outcome))))),
  );
}

export const toStored = (r: HttpResult): StoredResponse => ({
  statusCode: r.statusCode,
  headers: { ...r.headers },
  ...(r.body !== undefined ? { bodyText: JSON.stringify(r.body) } : {}),
  ...(r.contentType ? { contentType: r.contentType } : {}),
});

/**
 * The response a refusal answers (problem+json, as the kit renders it), as a stored response:
 * the tombstone an erasure writes over the stored responses about its subject
 * (`eraseStoredResponses`), so that their replays answer what a change to the erased subject
 * answers now, with nothing of the erased values.
 */
export const refusalResponse = (refusal: AppError, requestId: string, instance: string): StoredResponse => toStored(renderProblem(refusal, requestId, instance));

const fromStored = (r: StoredResponse): HttpResult => ({
  statusCode: r.statusCode,
  headers: { ...r.headers },
  ...(r.bodyText !== undefined ? { body: JSON.parse(r.bodyText) as object, bodyText: r.bodyText } : {}),
  ...(r.contentType ? { contentType: r.contentType } : {}),
});
