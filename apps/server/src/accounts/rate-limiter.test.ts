import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Accounts, openAccounts } from './index.js';
import { WINDOW_MS } from './rate-limiter.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('RateLimiter', () => {
  let dir: string;
  let clock: number;
  let accounts: Accounts;
  let userId: number;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pdn-rate-'));
    clock = T0;
    accounts = openAccounts(dir, () => clock);
    userId = accounts.users.ensure('ada', 'free').user.id;
  });
  afterEach(() => {
    accounts.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const consume = (limit: number | null = 3) => accounts.rateLimiter.consume(userId, limit);

  it('admits up to the limit, then refuses with Retry-After counted from the oldest request', () => {
    const seen = [];
    for (const step of [0, 1000, 2000, 3000]) {
      clock = T0 + step;
      seen.push(consume());
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

  it('is a rolling window: a slot frees exactly when its request is an hour old', () => {
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
      clock = T0 + at;
      expect(consume().allowed, name).toBe(allowed);
    }
  });

  it('does not count refused requests', () => {
    for (let i = 0; i < 3; i += 1) consume();
    clock = T0 + 1000;
    for (let i = 0; i < 20; i += 1) expect(consume().allowed).toBe(false);
    clock = T0 + WINDOW_MS;
    expect(consume()).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('counts all of a user separately from others', () => {
    const other = accounts.users.ensure('bob', 'free').user.id;
    for (let i = 0; i < 3; i += 1) consume();
    expect(consume().allowed).toBe(false);
    expect(accounts.rateLimiter.consume(other, 3).allowed).toBe(true);
  });

  it('survives reopening the database', () => {
    for (let i = 0; i < 3; i += 1) consume();
    accounts.close();
    accounts = openAccounts(dir, () => clock);
    expect(consume().allowed).toBe(false);
  });

  it('treats an unlimited plan as always allowed, resetting now', () => {
    const decision = consume(null);
    expect(decision).toEqual({ allowed: true, limit: null, remaining: null, resetAt: T0 / 1000, resetIn: 0 });
  });
});
