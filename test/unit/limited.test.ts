import { eachLimited } from '../../services/shared/domain/limited';

/** eachLimited: a bounded number at once, started in order; after a failure nothing new starts, and it throws once the running ones settled. */

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('eachLimited', () => {
  it('runs every item once, at most `limit` at once, started in order', async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    await eachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      started.push(n);
      running += 1;
      most = Math.max(most, running);
      for (let i = 0; i < n % 3; i += 1) await tick();
      running -= 1;
    });
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('starts nothing after a failure and throws the first failure once the running ones settled', async () => {
    const started: number[] = [];
    const settled: number[] = [];
    const run = eachLimited([1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      if (n === 1) throw new Error('first');
      await tick();
      await tick();
      settled.push(n);
      if (n === 2) throw new Error('second');
    });
    await expect(run).rejects.toThrow('first');
    expect(started).toEqual([1, 2]);
    expect(settled).toEqual([2]);
  });

  it('does nothing for no items', async () => {
    const work = jest.fn(async () => {});
    await eachLimited([], 4, work);
    expect(work).not.toHaveBeenCalled();
  });
});
