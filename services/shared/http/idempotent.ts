import type { Db } from '../ddb/client';
import { runIdempotent, TransactionalIdempotencyStore, type Completion, type StoredResponse } from '../ddb/idempotency';
import type { JsonValue } from '../json';
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
      input,
      lockMillis: Math.max(request.remainingTimeMs(), 1_000),
    },
    async (complete) => toStored(await work(complete)),
  );
  const result = fromStored(outcome.response);
  return outcome.replayed ? { ...result, headers: { ...result.headers, 'Idempotency-Replayed': 'true' } } : result;
}

export const toStored = (r: HttpResult): StoredResponse => ({
  statusCode: r.statusCode,
  headers: { ...r.headers },
  ...(r.body !== undefined ? { body: r.body as JsonValue } : {}),
  ...(r.contentType ? { contentType: r.contentType } : {}),
});

const fromStored = (r: StoredResponse): HttpResult => ({
  statusCode: r.statusCode,
  headers: { ...r.headers },
  ...(r.body !== undefined ? { body: r.body } : {}),
});
