// The "account area" (spec "Authentication" 2; issue #2): `pdn-server` admin commands on the data
// folder of a running server. Usage mistakes exit 2, failures exit 1, and what they change applies to
// the running server at once.
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from './harness/use-server.js';

const ctx = useServer();

describe('pdn-server admin commands', () => {
  beforeAll(async () => {
    await ctx.server.createKey({ user: 'admin-alice', plan: 'business' });
  });

  it.each<[string, string[], number, RegExp]>([
    ['no command', [], 2, /Usage/],
    ['an unknown command', ['keys', 'rotate'], 2, /unknown command/],
    ['keys create without --user', ['keys', 'create'], 2, /--user/],
    [
      'an unknown plan',
      ['keys', 'create', '--user', 'x', '--plan', 'gold'],
      2,
      /free, premium, business, enterprise/,
    ],
    ['an unknown flag', ['keys', 'create', '--user', 'x', '--colour'], 2, /colour/],
    ['revoking an unknown key', ['keys', 'revoke', 'key_000000000000'], 1, /no active key/],
    ['revoking without an id', ['keys', 'revoke'], 2, /ID/],
    ['set-plan for an unknown user', ['users', 'set-plan', 'nobody', 'free'], 1, /no user/],
    ['set-plan to an unknown plan', ['users', 'set-plan', 'admin-alice', 'gold'], 2, /plan/],
  ])('%s: exit code and message', async (_name, args, exitCode, message) => {
    const result = await ctx.server.admin(args);
    expect(result.exitCode).toBe(exitCode);
    expect(result.stdout + result.stderr).toMatch(message);
  });

  it('keys create --test makes a pdn_test_ key, and revoking it takes effect on the running server', async () => {
    const key = await ctx.server.createKey({ user: 'admin-bob', plan: 'premium', test: true });
    expect(key).toMatch(/^pdn_test_[0-9a-f]{32}$/);
    expect((await ctx.call('/api/v1/languages', { key })).status).toBe(200);
    const [id] = await ctx.server.keyIds('admin-bob');
    await ctx.server.revokeKey(id ?? '');
    expect((await ctx.call('/api/v1/languages', { key })).status).toBe(401);
    const again = await ctx.server.admin(['keys', 'revoke', id ?? '']);
    expect(again.exitCode).toBe(1);
  });

  it("keys list --user shows only that user's keys, never the keys themselves", async () => {
    const key = await ctx.server.createKey({ user: 'admin-carol', plan: 'free' });
    const listing = await ctx.server.admin(['keys', 'list', '--user', 'admin-carol']);
    expect(listing.exitCode).toBe(0);
    expect(listing.stdout).toContain('admin-carol');
    expect(listing.stdout).not.toContain('admin-alice');
    expect(listing.stdout).not.toContain(key);
    expect(await ctx.server.keyIds('admin-carol')).toHaveLength(1);
  });

  it("keys create for an existing user keeps the user's plan", async () => {
    const key = await ctx.server.createKey({ user: 'admin-alice', plan: 'free' });
    const res = await ctx.call('/api/v1/languages', { key });
    expect(res.headers.get('x-ratelimit-limit')).toBe('5000');
  });
});
