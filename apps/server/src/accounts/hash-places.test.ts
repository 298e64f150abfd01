// HashPlaces on work the test finishes by hand: which requests get a place, which wait, in what order.
import { describe, expect, it } from 'vitest';
import { HashAbandonedError, HashPlaces, NoHashPlaceError } from './hash-places.js';

/** Work that runs until the test calls finish(), recording when it started. */
function gate(log: string[], name: string) {
  let finish = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    work: async () => {
      log.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('HashPlaces', () => {
  it('refuses at once past the places, and past an address share, before any work, and says so when asked', async () => {
    const places = new HashPlaces({ running: 1, places: 3, perAddress: 2 });
    const log: string[] = [];
    const a1 = gate(log, 'a1');
    const a2 = gate(log, 'a2');
    const b1 = gate(log, 'b1');
    const runs = [places.run('a', undefined, a1.work), places.run('a', undefined, a2.work)];
    await expect(places.run('a', undefined, async () => 'a3')).rejects.toEqual(
      new NoHashPlaceError('address'),
    );
    expect(places.refusal('a')).toBe('address');
    expect(places.refusal('b')).toBeUndefined();
    runs.push(places.run('b', undefined, b1.work));
    await expect(places.run('c', undefined, async () => 'c1')).rejects.toEqual(new NoHashPlaceError('full'));
    expect(places.refusal('c')).toBe('full');
    expect(places.taken).toBe(3);
    await tick();
    expect(log).toEqual(['a1']);
    a1.finish();
    await tick();
    // b's first waiter goes before a's second: addresses take turns.
    expect(log).toEqual(['a1', 'b1']);
    b1.finish();
    await tick();
    a2.finish();
    expect(await Promise.all(runs)).toEqual(['a1', 'a2', 'b1']);
    expect(places.taken).toBe(0);
    expect(places.refusal('a')).toBeUndefined();
  });

  it("serves waiting addresses in turn, whatever one address's backlog", async () => {
    const places = new HashPlaces({ running: 1, places: 10, perAddress: 4 });
    const log: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const runs: Promise<string>[] = [];
    for (const name of ['a1', 'a2', 'a3', 'a4', 'b1', 'b2', 'c1']) {
      const g = gate(log, name);
      gates.set(name, g);
      runs.push(places.run(name.slice(0, 1), undefined, g.work));
    }
    for (let i = 0; i < 7; i += 1) {
      await tick();
      gates.get(log.at(-1) ?? '')?.finish();
      await tick();
    }
    await Promise.all(runs);
    expect(log).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
  });

  it('lets a waiter whose client went away leave without running, freeing its place', async () => {
    const places = new HashPlaces({ running: 1, places: 2, perAddress: 2 });
    const log: string[] = [];
    const first = gate(log, 'first');
    const running = places.run('a', undefined, first.work);
    const gone = new AbortController();
    const waiting = places.run('a', gone.signal, async () => {
      log.push('never');
      return 'never';
    });
    await tick();
    gone.abort();
    await expect(waiting).rejects.toBeInstanceOf(HashAbandonedError);
    expect(places.taken).toBe(1);
    first.finish();
    await running;
    expect(log).toEqual(['first']);
    await expect(places.run('a', AbortSignal.abort(), async () => 'x')).rejects.toBeInstanceOf(
      HashAbandonedError,
    );
  });
});
