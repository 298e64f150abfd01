// The rate limiter contract (v1 specification, Limits): the policy in rate-limiter.ts
// over each backend's RateEventStore. Every backend passes it.
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../database/contract-harness.js';
import { WINDOW_MS } from './rate-limiter.js';

export function rateLimiterContract(backend: Backend): void {
  describe(`RateLimiter (${backend.name})`, () => {
    const f = useAccounts(backend);
    let userId = 0;
    const consume = (limit: number | null = 3) => f.accounts.rateLimiter.consume(userId, limit);
    const ada = async () => {
      userId = (await f.accounts.users.ensure('ada', 'free')).user.id;
    };

    it('admits up to the limit, then refuses with Retry-After counted from the oldest request', async () => {
      await ada();
      const seen = [];
      for (const step of [0, 1000, 2000, 3000]) {
        f.clock = T0 + step;
        seen.push(await consume());
      }
      expect(seen.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ]);
      expect(seen[3]).toMatchObject({
        limit: 3,
        resetAt: (T0 + WINDOW_MS) / 1000,
        resetIn: 3597,
        retryAfter: 3597,
      });
      expect(seen[0]).toMatchObject({ resetAt: (T0 + WINDOW_MS) / 1000, resetIn: 3600 });
      expect(seen[0]?.retryAfter).toBeUndefined();
    });

    it('is a rolling window: a slot frees exactly when its request is an hour old', async () => {
      await ada();
      const table: [string, { at: number; allowed: boolean }][] = [
        ['first', { at: 0, allowed: true }],
        ['second', { at: 10 * 60_000, allowed: true }],
        ['third', { at: 20 * 60_000, allowed: true }],
        ['full', { at: 59 * 60_000, allowed: false }],
        ['1 ms before the first ages out', { at: WINDOW_MS - 1, allowed: false }],
        ['the first aged out', { at: WINDOW_MS, allowed: true }],
        ['full again', { at: WINDOW_MS + 1, allowed: false }],
        ['the second aged out', { at: 10 * 60_000 + WINDOW_MS, allowed: true }],
      ];
      for (const [name, { at, allowed }] of table) {
        f.clock = T0 + at;
        expect((await consume()).allowed, name).toBe(allowed);
      }
    });

    it('does not count refused requests', async () => {
      await ada();
      for (let i = 0; i < 3; i += 1) await consume();
      f.clock = T0 + 1000;
      for (let i = 0; i < 20; i += 1) expect((await consume()).allowed).toBe(false);
      f.clock = T0 + WINDOW_MS;
      expect(await consume()).toMatchObject({ allowed: true, remaining: 2 });
    });

    it('counts each user separately, and across handles on the same data', async () => {
      await ada();
      const other = (await f.accounts.users.ensure('bob', 'free')).user.id;
      for (let i = 0; i < 3; i += 1) await consume();
      const again = await f.again();
      expect((await again.rateLimiter.consume(userId, 3)).allowed).toBe(false);
      expect((await f.accounts.rateLimiter.consume(other, 3)).allowed).toBe(true);
    });

    it('admits exactly the limit of 50 simultaneous requests spread over two handles', async () => {
      await ada();
      const again = await f.again();
      const decisions = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          (index % 2 === 0 ? f.accounts : again).rateLimiter.consume(userId, 10),
        ),
      );
      const admitted = decisions.filter((decision) => decision.allowed);
      expect(admitted.map((decision) => decision.remaining).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
      ]);
    });

    it('treats an unlimited plan as always allowed, resetting now, yet counts its use', async () => {
      await ada();
      expect(await consume(null)).toEqual({
        allowed: true,
        event: expect.any(String),
        limit: null,
        remaining: null,
        resetAt: T0 / 1000,
        resetIn: 0,
      });
      expect(await f.accounts.rateLimiter.usage(userId, null)).toEqual({
        limit: null,
        used: 1,
        remaining: null,
        nextSlotAt: T0 + WINDOW_MS,
      });
    });

    it('gives back exactly the request it is told to, from any handle', async () => {
      await ada();
      const first = await consume();
      f.clock = T0 + 1000;
      // Two in one millisecond: releasing one leaves the other.
      const [second, third] = [await consume(), await consume()];
      expect([first, second, third].map((decision) => decision.event)).toEqual([
        expect.any(String),
        expect.any(String),
        expect.any(String),
      ]);
      expect((await consume()).allowed).toBe(false);
      const again = await f.again();
      await again.rateLimiter.release(userId, second.event as string);
      expect(await f.accounts.rateLimiter.usage(userId, 3)).toMatchObject({ used: 2, remaining: 1 });
      await f.accounts.rateLimiter.release(userId, first.event as string);
      // The oldest left is the third's: the next slot frees an hour after it.
      expect(await f.accounts.rateLimiter.usage(userId, 3)).toEqual({
        limit: 3,
        used: 1,
        remaining: 2,
        nextSlotAt: T0 + 1000 + WINDOW_MS,
      });
      expect(await consume()).toMatchObject({ allowed: true, remaining: 1 });
    });

    it('releases nothing else for an event already gone', async () => {
      await ada();
      const old = await consume();
      f.clock = T0 + WINDOW_MS;
      const fresh = await consume();
      await f.accounts.rateLimiter.release(userId, old.event as string);
      await f.accounts.rateLimiter.release(userId, old.event as string);
      expect(await f.accounts.rateLimiter.usage(userId, 3)).toMatchObject({ used: 1 });
      expect(fresh.event).not.toBe(old.event);
    });

    it('reports usage without spending a request', async () => {
      await ada();
      expect(await f.accounts.rateLimiter.usage(userId, 3)).toEqual({
        limit: 3,
        used: 0,
        remaining: 3,
        nextSlotAt: null,
      });
      await consume();
      f.clock = T0 + 5_000;
      await consume();
      for (let i = 0; i < 5; i += 1) await f.accounts.rateLimiter.usage(userId, 3);
      expect(await f.accounts.rateLimiter.usage(userId, 3)).toEqual({
        limit: 3,
        used: 2,
        remaining: 1,
        nextSlotAt: T0 + WINDOW_MS,
      });
    });

    it('counts the last hour per slot, oldest slot first', async () => {
      await ada();
      for (const at of [0, 30_000, 61 * 60_000 - 1, 119 * 60_000, 120 * 60_000]) {
        f.clock = T0 + at;
        await consume(null);
      }
      const counts = await f.accounts.rateLimiter.histogram(userId, 10 * 60_000);
      // Now is T0 + 120 min: the window is (60 min, 120 min]; slots of 10 minutes.
      expect(counts).toEqual([1, 0, 0, 0, 0, 2]);
    });
  });
}
