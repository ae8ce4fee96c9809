import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { Db } from '../../services/shared/ddb/client';
import { translateSdkError } from '../../services/shared/ddb/client';
import { commit, TransactionCancelledError, type TxItem } from '../../services/shared/ddb/transaction';

/** A synthetic client: these tests check how cancellations are read, not DynamoDB itself. */
function fakeDb(replies: (Error | undefined)[]): Db & { calls: number } {
  const db = {
    tableName: 'table',
    calls: 0,
    doc: {
      send: async () => {
        const reply = replies[db.calls];
        db.calls += 1;
        if (reply) throw reply;
        return {};
      },
    },
  };
  return db as unknown as Db & { calls: number };
}

const cancellation = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code, ...(Code === 'ConditionalCheckFailed' ? { Item: { version: { N: '4' } } } : {}) })),
  });

const items: TxItem[] = [
  { label: 'entry', op: { Put: { Item: { PK: 'a', SK: 'b' } } } },
  { label: 'guard', op: { Put: { Item: { PK: 'c', SK: 'd' } } } },
];
const noSleep = async () => undefined;

describe('commit', () => {
  it('retries a TransactionConflict cancellation and succeeds', async () => {
    const db = fakeDb([cancellation('None', 'TransactionConflict'), undefined]);
    await commit(db, items, noSleep);
    expect(db.calls).toBe(2);
  });

  it('answers 503 TRANSACTION_CONFLICT with Retry-After when conflicts persist', async () => {
    const db = fakeDb(Array(10).fill(cancellation('TransactionConflict', 'None')));
    await expect(commit(db, items, noSleep)).rejects.toMatchObject({ code: 'TRANSACTION_CONFLICT', retryAfterSeconds: 1 });
    expect(db.calls).toBe(4);
  });

  it('reports a failed condition per labelled item, with the old item unmarshalled', async () => {
    const db = fakeDb([cancellation('None', 'ConditionalCheckFailed')]);
    const error = await commit(db, items, noSleep).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionCancelledError);
    const cancelled = error as TransactionCancelledError;
    expect(cancelled.failed('guard')).toBe(true);
    expect(cancelled.failed('entry')).toBe(false);
    expect(cancelled.itemOf('guard')).toEqual({ version: 4 });
    expect(db.calls).toBe(1);
  });

  it('refuses an empty or oversized transaction', async () => {
    await expect(commit(fakeDb([]), [], noSleep)).rejects.toThrow(/1 to 100 items/);
    await expect(commit(fakeDb([]), Array(101).fill(items[0]), noSleep)).rejects.toThrow(/1 to 100 items/);
  });
});

describe('translateSdkError', () => {
  it('turns throttling, 5xx and unreachable endpoints into 503 SERVICE_UNAVAILABLE, keeping the SDK error only as cause', () => {
    const throttled = Object.assign(new Error('Rate exceeded for table wfm'), { name: 'ThrottlingException' });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });
    const serverError = Object.assign(new Error('Internal'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } });
    for (const e of [throttled, refused, serverError]) {
      const translated = translateSdkError(e) as Error & { code?: string };
      expect(translated).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(translated.message).not.toContain('wfm');
      expect(translated.cause).toBe(e);
    }
  });

  it('recognises a network error made in another realm (no instanceof Error)', () => {
    const foreign = { name: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:8000', code: 'ECONNREFUSED' };
    expect(translateSdkError(foreign)).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(translateSdkError('not an error')).toBe('not an error');
  });

  it('leaves condition failures to the stores', () => {
    const e = Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException', $metadata: { httpStatusCode: 400 } });
    expect(translateSdkError(e)).toBe(e);
  });
});
