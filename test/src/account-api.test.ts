// GET /api/v1/account (openapi.yaml `getAccount`): the key owner's plan and usage, checked
// against the contract on every call, and never counted: a Free user who has spent all ten calls can
// still ask, and asking a hundred times leaves the count where it was.
import type { AccountResponse } from '@pdn/api-types';
import { labelledPdf } from '@pdn/fixtures';
import { describe, expect, it } from 'vitest';
import { field, file, form } from './harness/form.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer();
let onePage: Promise<Uint8Array> | undefined;

/** A cheap call that counts against the limit: a split of a one-page PDF (listing languages is free). */
async function counted(key: string) {
  onePage ??= labelledPdf('p', 1);
  return ctx.call('/api/v1/split', { key, body: form(file('file', await onePage), field('ranges', '1')) });
}

const account = (key: string) => ctx.call<AccountResponse>('/api/v1/account', { key });

describe('GET /api/v1/account', () => {
  it('reports a fresh Free user, then its use, without counting itself', async () => {
    const key = await ctx.server.createKey({ user: 'acct-free', plan: 'free', test: true });
    const fresh = await account(key);
    expect(fresh.status).toBe(200);
    expect(fresh.json.data).toMatchObject({
      plan: 'free',
      requests_per_hour: 10,
      used: 0,
      remaining: 10,
      next_slot_at: null,
      key: { kind: 'test' },
    });
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('10');

    const before = Date.now();
    for (let i = 0; i < 3; i += 1) expect((await counted(key)).status).toBe(200);
    for (let i = 0; i < 20; i += 1) expect((await account(key)).status).toBe(200);
    const used = await account(key);
    expect(used.json.data).toMatchObject({ used: 3, remaining: 7 });
    const nextSlot = Date.parse(used.json.data.next_slot_at ?? '');
    expect(nextSlot).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);
    expect(nextSlot).toBeLessThanOrEqual(Date.now() + 3_600_000);
  });

  it('answers an exhausted Free user, whose other calls get 429', async () => {
    const key = await ctx.server.createKey({ user: 'acct-spent', plan: 'free' });
    for (let i = 0; i < 10; i += 1) await counted(key);
    expect((await counted(key)).status).toBe(429);
    const spent = await account(key);
    expect(spent.status).toBe(200);
    expect(spent.json.data).toMatchObject({ used: 10, remaining: 0, key: { kind: 'live' } });
    expect(spent.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('shows Enterprise as unlimited, still counting its use', async () => {
    const key = await ctx.server.createKey({ user: 'acct-enterprise', plan: 'enterprise' });
    await counted(key);
    const res = await account(key);
    expect(res.json.data).toMatchObject({
      plan: 'enterprise',
      requests_per_hour: null,
      used: 1,
      remaining: null,
    });
    expect(res.headers.get('x-ratelimit-limit')).toBe('unlimited');
  });

  it('refuses a missing or revoked key with 401', async () => {
    expect((await ctx.call('/api/v1/account')).status).toBe(401);
    const key = await ctx.server.createKey({ user: 'acct-revoked', plan: 'premium' });
    expect((await account(key)).status).toBe(200);
    const [id] = await ctx.server.keyIds('acct-revoked');
    await ctx.server.revokeKey(id ?? '');
    expect((await account(key)).status).toBe(401);
  });
});
