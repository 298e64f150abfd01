// Rate limits (spec "Limits"): per user over a rolling hour, Free 10 / Premium 1000 /
// Enterprise unlimited; exact under concurrency, kept across restarts, checked before the body is
// read; 429 names the plan and limit and carries Retry-After. Header shapes are checked for every
// response by the contract validator; these tests check the numbers.
import { labelledPdf } from '@pdn/fixtures';
import { describe, expect, it } from 'vitest';
import type { CallResult } from './contract/checked-fetch.js';
import { field, file, form } from './harness/form.js';
import { streamUpload } from './harness/stream-upload.js';
import { useServer } from './harness/use-server.js';

// 50 simultaneous synchronous calls, all of them admitted past the bound on waiting work
// (back-pressure.test.ts), so that only the hourly limit decides.
const ctx = useServer();
const HOUR = 3600;

let onePage: Promise<Uint8Array> | undefined;

/**
 * A cheap call that counts against the limit: a split of a one-page PDF. Listing languages is not
 * counted, which the last test here checks.
 */
async function counted(key: string): Promise<CallResult<{ error?: { message: string } }>> {
  onePage ??= labelledPdf('p', 1);
  return ctx.call('/api/v1/split', { key, body: form(file('file', await onePage), field('ranges', '1')) });
}

/** Unix seconds of a `Date.now()` reading, rounded as the server rounds X-RateLimit-Reset: up. */
function resetSeconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

describe('Free plan: 10 requests per rolling hour', () => {
  it('counts down 9..0, then refuses with 429 naming the plan and limit, with Retry-After', async () => {
    const key = await ctx.server.createKey({ user: 'free-sequential', plan: 'free' });
    const remaining: string[] = [];
    const beforeFirst = Date.now();
    for (let i = 0; i < 10; i += 1) {
      const res = await counted(key);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('10');
      remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
    }
    expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);

    const asked = Date.now();
    const refused = await counted(key);
    const answered = Date.now();
    expect(refused.status).toBe(429);
    expect(refused.json.error?.message).toMatch(/free/i);
    expect(refused.json.error?.message).toMatch(/\b10\b/);
    // The next slot opens an hour after the oldest of the 10 calls, made between beforeFirst and
    // asked; the refusal was decided between asked and answered. Bounds from this process's readings
    // of the same clock, not a guess at how long the calls take on a loaded machine.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor((beforeFirst + HOUR * 1000 - answered) / 1000));
    expect(retryAfter).toBeLessThanOrEqual(HOUR);
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(resetSeconds(beforeFirst) + HOUR);
    expect(reset).toBeLessThanOrEqual(resetSeconds(asked) + HOUR);
    // Both count to the same moment: Retry-After is the wait from the refusal until the reset.
    expect(reset - retryAfter).toBeGreaterThanOrEqual(Math.floor(asked / 1000));
    expect(reset - retryAfter).toBeLessThanOrEqual(resetSeconds(answered));
  });

  it("counts all of a user's keys together", async () => {
    const live = await ctx.server.createKey({ user: 'free-two-keys', plan: 'free' });
    const test = await ctx.server.createKey({ user: 'free-two-keys', plan: 'free', test: true });
    for (let i = 0; i < 10; i += 1) expect((await counted(i % 2 === 0 ? live : test)).status).toBe(200);
    expect((await counted(live)).status).toBe(429);
    expect((await counted(test)).status).toBe(429);
  });

  it('lets exactly 10 of 50 simultaneous requests from a fresh user through', async () => {
    const key = await ctx.server.createKey({ user: 'free-burst', plan: 'free' });
    const results = await Promise.all(Array.from({ length: 50 }, () => counted(key)));
    const statuses = results.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40);
    const remaining = results
      .filter((res) => res.status === 200)
      .map((res) => Number(res.headers.get('x-ratelimit-remaining')));
    expect(remaining.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('keeps the window across a server restart', async () => {
    const key = await ctx.server.createKey({ user: 'free-restart', plan: 'free' });
    for (let i = 0; i < 7; i += 1) expect((await counted(key)).status).toBe(200);
    await ctx.server.restart();
    const after = await counted(key);
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-remaining')).toBe('2');
    expect((await counted(key)).status).toBe(200);
    expect((await counted(key)).status).toBe(200);
    expect((await counted(key)).status).toBe(429);
    await ctx.server.restart();
    expect((await counted(key)).status).toBe(429);
  });

  it("checks the limit before reading the body: an exhausted user's big upload is a 429, not a 413", async () => {
    const key = await ctx.server.createKey({ user: 'free-exhausted-upload', plan: 'free' });
    for (let i = 0; i < 10; i += 1) expect((await counted(key)).status).toBe(200);
    const res = await streamUpload(ctx.server.url('/api/v1/compress'), {
      key,
      fileBytes: 64 * 1024 * 1024,
      declareLength: false,
    });
    expect(res.status).toBe(429);
    expect(res.bytesSent).toBeLessThan(res.bytesTotal);
  });
});

describe('other plans', () => {
  it('Premium: 1000 per hour', async () => {
    const key = await ctx.server.createKey({ user: 'premium-user', plan: 'premium' });
    const first = await counted(key);
    expect(first.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('999');
    expect(first.headers.get('ratelimit-policy')).toBe('"hourly";q=1000;w=3600');
  });

  it('Business: 5000 per hour', async () => {
    const key = await ctx.server.createKey({ user: 'business-user', plan: 'business' });
    const first = await counted(key);
    expect(first.headers.get('x-ratelimit-limit')).toBe('5000');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4999');
  });

  it('Enterprise: "unlimited" in the headers and never refused', async () => {
    const key = await ctx.server.createKey({ user: 'enterprise-user', plan: 'enterprise' });
    const asked = Date.now();
    const results = await Promise.all(Array.from({ length: 30 }, () => counted(key)));
    const answered = Date.now();
    for (const res of results) {
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('unlimited');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('unlimited');
      // Reset is the current time when the call is decided (openapi.yaml): between asking and the last answer,
      // however long the 30 splits take.
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(resetSeconds(asked));
      expect(reset).toBeLessThanOrEqual(resetSeconds(answered));
    }
  });

  it('a plan change applies to the running server', async () => {
    const key = await ctx.server.createKey({ user: 'upgraded', plan: 'free' });
    expect((await counted(key)).headers.get('x-ratelimit-limit')).toBe('10');
    const result = await ctx.server.admin(['users', 'set-plan', 'upgraded', 'premium']);
    expect(result.exitCode).toBe(0);
    const after = await counted(key);
    expect(after.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(after.headers.get('x-ratelimit-remaining')).toBe('998');
  });
});

describe('calls that do no document work', () => {
  it('listing languages is not counted: a Free key with its hour spent still gets 200, its window shown as spent', async () => {
    const key = await ctx.server.createKey({ user: 'free-spent-languages', plan: 'free' });
    for (let i = 0; i < 10; i += 1) expect((await counted(key)).status).toBe(200);
    expect((await counted(key)).status).toBe(429);
    for (let i = 0; i < 3; i += 1) {
      const res = await ctx.call('/api/v1/languages', { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('10');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    expect((await counted(key)).status).toBe(429);
  });

  it('and listing languages does not spend what is left', async () => {
    const key = await ctx.server.createKey({ user: 'free-languages-first', plan: 'free' });
    for (let i = 0; i < 12; i += 1) expect((await ctx.call('/api/v1/languages', { key })).status).toBe(200);
    expect((await counted(key)).headers.get('x-ratelimit-remaining')).toBe('9');
  });

  it('reading and cancelling jobs show the window as it stands, their refusals too, spending nothing', async () => {
    const key = await ctx.server.createKey({ user: 'free-jobs-window', plan: 'free' });
    expect((await counted(key)).status).toBe(200);
    for (const [path, method] of [
      ['/api/v1/jobs', 'GET'],
      ['/api/v1/jobs?limit=0', 'GET'],
      ['/api/v1/jobs/job_nonesuch', 'GET'],
      ['/api/v1/jobs/job_nonesuch', 'DELETE'],
    ] as const) {
      const res = await ctx.call(path, { key, method });
      expect(res.headers.get('x-ratelimit-remaining'), `${method} ${path}`).toBe('9');
    }
    expect((await counted(key)).headers.get('x-ratelimit-remaining')).toBe('8');
  });
});
