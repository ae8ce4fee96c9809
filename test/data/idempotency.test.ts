import { PROBLEMS as TIMESHEET_PROBLEMS } from '../../services/timesheets/problems';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../services/shared/ddb/client';
import { runIdempotent, runIdempotentInTransaction, TransactionalIdempotencyStore, type Completion, type ReadAlong, type StoredResponse } from '../../services/shared/ddb/idempotency';
import { batchGet } from '../../services/shared/ddb/read';
import { AppError } from '../../services/shared/errors';
import { commit } from '../../services/shared/ddb/transaction';
import { createTestTable } from '../support/table';

let db: Db;
beforeAll(async () => {
  db = await createTestTable();
});

const call = (key: string, input: Record<string, string>) => ({ scope: 'org#key#POST#/things', idempotencyKey: key, input, lockMillis: 5_000 });

/** A "work" that commits one item and the completion record in one transaction. */
const work = (id: string) => async (complete: Completion) => {
  const response: StoredResponse = { statusCode: 201, headers: { Location: `/things/${id}` }, bodyText: JSON.stringify({ id }) };
  await commit(db, [{ label: 'thing', op: { Put: { Item: { PK: `THING#${id}`, SK: 'T' }, ConditionExpression: 'attribute_not_exists(PK)' } } }, ...(await complete(response))]);
  return response;
};

describe('runIdempotent', () => {
  it('replays the original response for the same key and input', async () => {
    const store = new TransactionalIdempotencyStore(db);
    const key = randomUUID();
    const first = await runIdempotent(store, call(key, { a: '1' }), work('one'));
    const second = await runIdempotent(store, call(key, { a: '1' }), work('two'));
    expect(first.replayed).toBe(false);
    expect(second).toEqual({ replayed: true, response: first.response });
  });

  it('rejects the same key with another input and applies nothing', async () => {
    const store = new TransactionalIdempotencyStore(db);
    const key = randomUUID();
    await runIdempotent(store, call(key, { a: '1' }), work(randomUUID()));
    const applied = jest.fn(work(randomUUID()));
    await expect(runIdempotent(store, call(key, { a: '2' }), applied)).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(applied).not.toHaveBeenCalled();
  });

  it('answers IDEMPOTENCY_REQUEST_IN_PROGRESS while the first request holds the lock', async () => {
    const store = new TransactionalIdempotencyStore(db);
    const key = randomUUID();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = runIdempotent(store, call(key, { a: '1' }), async (complete) => {
      await gate;
      return work(randomUUID())(complete);
    });
    await new Promise((r) => setTimeout(r, 50));
    await expect(runIdempotent(store, call(key, { a: '1' }), work(randomUUID()))).rejects.toMatchObject({ code: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' });
    release();
    await expect(first).resolves.toMatchObject({ replayed: false });
  });

  it('releases the lock when the work fails before committing, so a retry runs', async () => {
    const store = new TransactionalIdempotencyStore(db);
    const key = randomUUID();
    await expect(runIdempotent(store, call(key, { a: '1' }), async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(runIdempotent(store, call(key, { a: '1' }), work(randomUUID()))).resolves.toMatchObject({ replayed: false });
  });

  it('still replays after a failure that happened after the commit', async () => {
    const store = new TransactionalIdempotencyStore(db);
    const key = randomUUID();
    const id = randomUUID();
    await expect(
      runIdempotent(store, call(key, { a: '1' }), async (complete) => {
        await work(id)(complete);
        throw new Error('crash after commit');
      }),
    ).rejects.toThrow('crash after commit');
    const retry = await runIdempotent(store, call(key, { a: '1' }), work(randomUUID()));
    expect(retry).toMatchObject({ replayed: true, response: { bodyText: JSON.stringify({ id }) } });
  });

  it('takes over a lock whose holder ran out of time', async () => {
    const store = new TransactionalIdempotencyStore(db);
    const key = randomUUID();
    // A crashed holder: IN_PROGRESS with an in-progress expiry in the past.
    await expect(
      runIdempotent(store, { ...call(key, { a: '1' }), lockMillis: 1 }, async () => {
        await new Promise((r) => setTimeout(r, 20));
        throw Object.assign(new Error('killed'), { keepLock: true });
      }),
    ).rejects.toThrow('killed');
    // Re-create the stale lock exactly as a crash would leave it (the failure path above released it).
    const hashed = (store as unknown as { getHashedIdempotencyKey(d: unknown): string }).getHashedIdempotencyKey({ key: `org#key#POST#/things#${key}`, input: { a: '1' } });
    await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { PK: `IDEM#${hashed}`, SK: 'IDEM', idempotencyKey: hashed, status: 'INPROGRESS', expiresAt: Math.floor(Date.now() / 1000) + 3600, inProgressExpiresAt: Date.now() - 1 } }));
    await expect(runIdempotent(store, call(key, { a: '1' }), work(randomUUID()))).resolves.toMatchObject({ replayed: false });
  });
});

describe('runIdempotentInTransaction (no IN_PROGRESS lock)', () => {
  const free = (key: string, input: Record<string, string>) => ({ scope: 'org#key#POST#/free', idempotencyKey: key, input });
  /** Reads a thing's key with the record along (as a store's BatchGetItem does), waits for `gate`, then commits. */
  const gatedWork = (id: string, gate: Promise<void> = Promise.resolve()) => async (complete: Completion, along: ReadAlong) => {
    const items = await batchGet(db, [{ PK: `THING#${id}`, SK: 'T' }, along.key]);
    along.settle(items[1]);
    await gate;
    return work(id)(complete);
  };

  it('writes no lock; a later duplicate replays from the record read along with its first read', async () => {
    const store = new TransactionalIdempotencyStore(db);
    const key = randomUUID();
    const first = await runIdempotentInTransaction(store, free(key, { a: '1' }), gatedWork(randomUUID()));
    const applied = jest.fn(work(randomUUID()));
    const second = await runIdempotentInTransaction(store, free(key, { a: '1' }), async (complete, along) => {
      along.settle((await batchGet(db, [along.key]))[0]);
      return applied(complete);
    });
    expect(second).toEqual({ replayed: true, response: first.response });
    expect(applied).not.toHaveBeenCalled();
    await expect(runIdempotentInTransaction(store, free(key, { a: '2' }), gatedWork(randomUUID()))).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('of two identical requests at once, commits one; the other loses the record condition, writes nothing and replays', async () => {
    const store = new TransactionalIdempotencyStore(db);
    const key = randomUUID();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const [a, b] = [randomUUID(), randomUUID()];
    // Both read the key as free before either commits: the lock-free race.
    const racing = [runIdempotentInTransaction(store, free(key, { a: '1' }), gatedWork(a, gate)), runIdempotentInTransaction(store, free(key, { a: '1' }), gatedWork(b, gate))];
    await new Promise((r) => setTimeout(r, 100));
    release();
    const outcomes = await Promise.all(racing);
    expect(outcomes.map((o) => o.replayed).sort()).toEqual([false, true]);
    expect(outcomes[0].response).toEqual(outcomes[1].response);
    const things = await batchGet(db, [a, b].map((id) => ({ PK: `THING#${id}`, SK: 'T' })));
    expect(things.filter(Boolean)).toHaveLength(1);
  });

  it("answers a refusal of a duplicate whose twin committed meanwhile with the twin's response", async () => {
    const store = new TransactionalIdempotencyStore(db);
    const key = randomUUID();
    const first = await runIdempotentInTransaction(store, free(key, { a: '1' }), gatedWork(randomUUID()));
    // Read nothing along (as a store that does not read the record), then refuse: e.g. the overlap the twin's entry makes.
    const second = await runIdempotentInTransaction(store, free(key, { a: '1' }), async () => {
      throw new AppError(TIMESHEET_PROBLEMS.TIME_ENTRY_OVERLAP, 'overlaps');
    });
    expect(second).toEqual({ replayed: true, response: first.response });
  });

  it('keeps a refusal when no record exists, and 500s stand without a read', async () => {
    const store = new TransactionalIdempotencyStore(db);
    await expect(runIdempotentInTransaction(store, free(randomUUID(), { a: '1' }), async () => Promise.reject(new AppError(TIMESHEET_PROBLEMS.TIME_ENTRY_OVERLAP, 'x')))).rejects.toMatchObject({ code: 'TIME_ENTRY_OVERLAP' });
    await expect(runIdempotentInTransaction(store, free(randomUUID(), { a: '1' }), async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });

  it('answers IDEMPOTENCY_REQUEST_IN_PROGRESS when a locked request of the same key is in flight', async () => {
    const store = new TransactionalIdempotencyStore(db);
    const key = randomUUID();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // A locked request with the same scope (e.g. an older deployment still taking the lock).
    const locked = runIdempotent(store, { ...free(key, { a: '1' }), lockMillis: 5_000 }, async (complete) => {
      await gate;
      return work(randomUUID())(complete);
    });
    await new Promise((r) => setTimeout(r, 50));
    await expect(runIdempotentInTransaction(store, free(key, { a: '1' }), gatedWork(randomUUID()))).rejects.toMatchObject({ code: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' });
    release();
    await expect(locked).resolves.toMatchObject({ replayed: false });
  });
});
