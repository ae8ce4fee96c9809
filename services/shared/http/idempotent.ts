import { createHmac } from 'node:crypto';
import { cursorKey } from '../crypto/secrets';
import type { Db } from '../ddb/client';
import { canonical } from '../ddb/cursor';
import { runIdempotent, runIdempotentInTransaction, TransactionalIdempotencyStore, type Completion, type ReadAlong, type StoredResponse } from '../ddb/idempotency';
import type { TxItem } from '../ddb/transaction';
import type { AppError } from '../errors';
import type { JsonValue } from '../json';
import { ERROR_MEDIA_TYPE, SCIM_ERROR_SCHEMA } from './gateway-responses';
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
  return fromOutcome(outcome, request);
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
  return fromOutcome(outcome, request);
}

const fromOutcome = (outcome: { readonly response: StoredResponse; readonly replayed: boolean }, request: ApiRequest): HttpResult => {
  if (!outcome.replayed) return fromStored(outcome.response);
  const result = fromStored(replayedBy(outcome.response, request));
  return { ...result, headers: { ...result.headers, 'Idempotency-Replayed': 'true' } };
};

/**
 * A stored response as the replaying request answers it. A stored problem (problem+json, or
 * the SCIM error schema) was rendered for another request (an erasure's tombstone names the
 * erasure and the candidate's path): its `requestId` and `instance`, where the body has them,
 * become the replaying request's own, as docs/errors.md promises of every problem (`requestId`
 * equals the response's X-Request-Id, `instance` is the request path). Everything else (status,
 * headers, the other members in their order) is replayed as it is; a success body is replayed
 * byte for byte (no success response of a write names the request that made it).
 */
export function replayedBy(stored: StoredResponse, request: Pick<ApiRequest, 'requestId' | 'instance'>): StoredResponse {
  if (stored.bodyText === undefined || !isStoredProblem(stored)) return stored;
  const body: unknown = JSON.parse(stored.bodyText);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return stored;
  const own = {
    ...('requestId' in body ? { requestId: request.requestId } : {}),
    ...('instance' in body ? { instance: request.instance } : {}),
  };
  // Assigning members the body has keeps their place: only these two values change.
  return { ...stored, bodyText: JSON.stringify(Object.assign(body, own)) };
}

function isStoredProblem(stored: StoredResponse): boolean {
  const mediaType = stored.contentType?.split(';')[0].trim().toLowerCase();
  if (mediaType === ERROR_MEDIA_TYPE.problem) return true;
  if (mediaType !== ERROR_MEDIA_TYPE.scim || stored.bodyText === undefined) return false;
  const schemas = (JSON.parse(stored.bodyText) as { schemas?: unknown }).schemas;
  return Array.isArray(schemas) && schemas.includes(SCIM_ERROR_SCHEMA);
}

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
 * answers now, with nothing of the erased values. Its `requestId` and `instance` are the
 * erasure's; a replay answers with its own (`replayedBy`).
 */
export const refusalResponse = (refusal: AppError, requestId: string, instance: string): StoredResponse => toStored(renderProblem(refusal, requestId, instance));

const fromStored = (r: StoredResponse): HttpResult => ({
  statusCode: r.statusCode,
  headers: { ...r.headers },
  ...(r.bodyText !== undefined ? { body: JSON.parse(r.bodyText) as object, bodyText: r.bodyText } : {}),
  ...(r.contentType ? { contentType: r.contentType } : {}),
});
