import { describe, expect, it } from 'vitest';
import { loadOnce } from './load-once.js';

describe('loadOnce', () => {
  it('loads once, however often and however soon it is asked', async () => {
    let loads = 0;
    const load = loadOnce(async () => ({ n: ++loads }));
    const [first, second] = await Promise.all([load(), load()]);
    expect(await load()).toBe(first);
    expect(second).toBe(first);
    expect(loads).toBe(1);
  });

  it('asks again after a failed load', async () => {
    let loads = 0;
    const load = loadOnce(async () => {
      loads += 1;
      if (loads === 1) throw new Error('not yet');
      return loads;
    });
    await expect(load()).rejects.toThrow('not yet');
    expect(await load()).toBe(2);
    expect(await load()).toBe(2);
  });
});
