import type { Db } from '../shared/ddb/client';
import type { TxItem } from '../shared/ddb/transaction';
import { idempotentWrite, toStored } from '../shared/http/idempotent';
import type { ApiRequest, HttpResult } from '../shared/http/request';
import type { JsonValue } from '../shared/json';

/** The input an Idempotency-Key is bound to: path parameters, body and If-Match. */
const idempotencyInput = (request: ApiRequest): JsonValue => ({
  path: request.pathParameters,
  body: (request.body ?? null) as JsonValue,
  ifMatch: request.headers['if-match'] ?? null,
});

/**
 * Runs a master-data write. With an Idempotency-Key it runs once per key and the COMPLETED
 * idempotency record of its response is one more item of the write's own transaction (the
 * use case asks for it through `extra` when it knows its outcome); without one (optional on
 * PATCH, PUT and DELETE) it simply runs.
 */
export function committedWrite<T>(
  db: Db,
  request: ApiRequest,
  idempotencyKey: string | undefined,
  run: (extra: (outcome: T) => Promise<readonly TxItem[]>) => Promise<T>,
  render: (outcome: T) => HttpResult,
): Promise<HttpResult> {
  if (idempotencyKey === undefined) return run(async () => []).then(render);
  return idempotentWrite(db, request, idempotencyKey, idempotencyInput(request), async (complete) =>
    render(await run(async (outcome) => [await complete(toStored(render(outcome)))])),
  );
}

/** An optional If-Match: when sent, it must name the current ETag. */
export function optionalIfMatch(request: ApiRequest): string | undefined {
  const value = request.headers['if-match']?.trim();
  return value === undefined || value === '' ? undefined : value;
}
