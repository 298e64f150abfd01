// Requests while a run is on are coalesced into one more run, and none is lost, even one made in the
// turns between a run's end and the next request.
import { describe, expect, it } from 'vitest';
import { CoalescedRuns } from './coalesced-runs.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('CoalescedRuns', () => {
  it('runs once more for any number of requests made during a run', async () => {
    let runs = 0;
    let release = () => {};
    const coalesced = new CoalescedRuns(async () => {
      runs += 1;
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = coalesced.request();
    for (let i = 0; i < 5; i += 1) void coalesced.request();
    release();
    await first;
    expect(runs).toBe(2);
  });

  it('loses no request made as a run ends, whatever the turn', async () => {
    for (let delay = 0; delay < 6; delay += 1) {
      let runs = 0;
      const coalesced = new CoalescedRuns(async () => {
        runs += 1;
      });
      const done = coalesced.request();
      for (let i = 0; i < delay; i += 1) await Promise.resolve();
      const again = coalesced.request();
      await Promise.all([done, again]);
      await turn();
      expect(runs, `a request ${delay} microtasks after the first`).toBeGreaterThanOrEqual(2);
    }
  });

  it('settles with the run that failed, and runs afresh when asked again', async () => {
    let fail = true;
    const coalesced = new CoalescedRuns(async () => {
      if (fail) throw new Error('store down');
    });
    await expect(coalesced.request()).rejects.toThrow('store down');
    fail = false;
    await expect(coalesced.request()).resolves.toBeUndefined();
  });
});
