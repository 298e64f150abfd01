// A call's requests to the bucket, a few at once: in order, bounded, and none left running on failure.
import { describe, expect, it } from 'vitest';
import { eachAtOnce, uploadsAtOnce } from './s3-objects.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('eachAtOnce', () => {
  it('gives the results in the items’ order, with at most the bound in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await eachAtOnce(
      [5, 1, 4, 2, 3, 0],
      async (n) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        for (let i = 0; i < n; i += 1) await tick();
        inFlight -= 1;
        return n * 10;
      },
      3,
    );
    expect(results).toEqual([50, 10, 40, 20, 30, 0]);
    expect(most).toBe(3);
  });

  it('settles every request started before it throws the first failure, and starts no more', async () => {
    const started: number[] = [];
    const settled: number[] = [];
    const run = eachAtOnce(
      [0, 1, 2, 3, 4],
      async (n) => {
        started.push(n);
        if (n === 0) throw new Error('bucket away');
        await tick();
        await tick();
        settled.push(n);
      },
      2,
    );
    await expect(run).rejects.toThrow('bucket away');
    expect(started).toEqual([0, 1]);
    expect(settled).toEqual([1]);
  });
});

describe('uploadsAtOnce', () => {
  it('sends small files together and any file of several parts alone', () => {
    expect(uploadsAtOnce([1_000, 2_000])).toBe(4);
    expect(uploadsAtOnce([1_000, 100 * 1024 * 1024])).toBe(1);
  });
});
