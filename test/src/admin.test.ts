// The "account area" (spec "Authentication" 2): `pdn-server` admin commands on the data
// folder of a running server. Usage mistakes exit 2, failures exit 1, and what they change applies to
// the running server at once, from whatever folder they run in.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './contract/checked-fetch.js';
import { field, form } from './harness/form.js';
import { startServer, type TestServer } from './harness/server.js';
import { useServer } from './harness/use-server.js';

const execFileAsync = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

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
    // Listing languages is not counted and carries no rate-limit headers: ask a merge.
    const res = await ctx.call('/api/v1/merge', { key, body: form(field('unexpected', 'x')) });
    expect(res.headers.get('x-ratelimit-limit')).toBe('5000');
  });
});

describe('the default data folder, from any folder', () => {
  let home = '';
  let server: TestServer | undefined;
  const running = () => {
    if (!server) throw new Error('the server did not start');
    return server;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'pdn-home-'));
    // No PDN_DATA_DIR: the server and the commands below find the data folder on their own.
    server = await startServer({ env: { PDN_DATA_DIR: '', XDG_DATA_HOME: home } });
  });
  afterAll(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it("the first-start banner's command makes a working key as printed, from the repository's root", async () => {
    const { output, env, baseUrl } = running();
    expect(output).toContain(`Users and keys live in the data folder ${join(home, 'pdn')}.`);
    // The data folder is not the one a shell without XDG_DATA_HOME finds: the command names it.
    const printed = /^ {2}((?:PDN_DATA_DIR=\S+ )?npx pdn-server keys create .*)$/m.exec(output)?.[1] ?? '';
    expect(printed).toMatch(/^PDN_DATA_DIR=\S+ npx pdn-server keys create --user NAME/);
    // Filled in as a person would: a name for NAME, and the optional [parts] left out.
    const command = printed.replace('NAME', 'banner-bea').replace(/ \[.*$/, '');
    const { XDG_DATA_HOME: _, ...shellEnv } = env;
    const { stdout } = await execFileAsync('sh', ['-c', command], {
      cwd: REPO_ROOT,
      // A fresh shell: no XDG_DATA_HOME, and npx must not look for the bin elsewhere.
      env: { ...shellEnv, npm_config_offline: 'true' },
      timeout: 60_000,
    });
    const key = stdout.trim().split('\n').at(-1) ?? '';
    expect((await call(baseUrl, '/api/v1/languages', { key })).status).toBe(200);
  });

  it('admin commands in another folder work on the same database, say which, and leave nothing there', async () => {
    const elsewhere = await mkdtemp(join(home, 'elsewhere-'));
    const made = await running().admin(['keys', 'create', '--user', 'far-fay'], { cwd: elsewhere });
    expect(made.exitCode).toBe(0);
    expect(made.stderr).toContain(`Data folder: ${join(home, 'pdn')}`);
    const key = made.stdout.trim().split('\n').at(-1) ?? '';
    expect((await call(running().baseUrl, '/api/v1/languages', { key })).status).toBe(200);
    expect(await readdir(elsewhere)).toEqual([]);
  });
});
