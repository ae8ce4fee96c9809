import type { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../../services/shared/ddb/client';
import { batchPut } from '../../services/shared/ddb/write';

/** batchPut: batches of 25, unprocessed items (throttling) written again after a backoff, and a bounded number of attempts. */

type Request = { PutRequest: { Item: Record<string, unknown> } };

function fakeDb(unprocessed: (batch: Request[], call: number) => Request[]): { db: Db; calls: Request[][] } {
  const calls: Request[][] = [];
  const send = async (command: BatchWriteCommand) => {
    const batch = command.input.RequestItems!['t'] as Request[];
    calls.push(batch);
    const left = unprocessed(batch, calls.length);
    return left.length > 0 ? { UnprocessedItems: { t: left } } : {};
  };
  return { db: { tableName: 't', doc: { send } } as unknown as Db, calls };
}

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ PK: `P#${i}`, SK: 'S' }));
const noSleep = async () => {};

describe('batchPut', () => {
  it('writes every item once, in batches of at most 25', async () => {
    const { db, calls } = fakeDb(() => []);
    await batchPut(db, items(130), { sleep: noSleep });
    expect(calls.map((c) => c.length).sort((a, b) => a - b)).toEqual([5, 25, 25, 25, 25, 25]);
    expect(new Set(calls.flat().map((r) => r.PutRequest.Item.PK)).size).toBe(130);
  });

  it('writes unprocessed items again after a backoff', async () => {
    const waits: number[] = [];
    const { db, calls } = fakeDb((batch, call) => (call === 1 ? batch.slice(0, 10) : []));
    await batchPut(db, items(25), { sleep: async (ms) => void waits.push(ms) });
    expect(calls.map((c) => c.length)).toEqual([25, 10]);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
  });

  it('gives up with an error when items stay unprocessed', async () => {
    const { db } = fakeDb((batch) => batch.slice(0, 1));
    await expect(batchPut(db, items(3), { sleep: noSleep })).rejects.toThrow(/unprocessed/);
  });
});
