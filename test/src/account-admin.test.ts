// The account area's admin commands: `users create --email` and `users reset-password` print one-time
// links to choose a password (no mail server assumed), to where the server is (what it recorded when
// it started, whatever PORT the admin's shell has), a user made by `keys create` before the account
// area (a name, no email) is given an email and signs in to find its keys, and the operator changes
// plans and lists users. Driven through the built `pdn-server` and the pages.
import { describe, expect, it } from 'vitest';
import { AccountVisitor } from './harness/account-visitor.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer({ env: { PDN_TRUST_PROXY: '1' } });
const PASSWORD = 'chosen by the user';
const LINK = /^(https?:\/\/\S+\/account\/welcome\?token=[\w-]+)$/m;

async function admin(...args: string[]) {
  const run = await ctx.server.admin(args);
  expect(run.exitCode, run.stderr).toBe(0);
  return run;
}

/** Opens a one-time link on this server (whatever base it was printed with) and chooses a password. */
async function choosePassword(link: string, password = PASSWORD) {
  const visitor = new AccountVisitor(ctx.server.baseUrl);
  const path = link.replace(/^https?:\/\/[^/]+/, '');
  const page = await visitor.get(path);
  const token = new URL(link, ctx.server.baseUrl).searchParams.get('token') ?? '';
  const saved = await visitor.post('/account/welcome', { token, password });
  return { visitor, page, saved, path };
}

describe('pdn-server users create --email', () => {
  it('prints a one-time link to the running server that lets the user choose a password and sign in, once', async () => {
    // The admin's shell says PORT=3000, the server listens elsewhere (its own PORT=0).
    const run = await ctx.server.admin(
      ['users', 'create', '--email', 'Olga@Example.com', '--plan', 'business'],
      {
        env: { PORT: '3000' },
      },
    );
    expect(run.stdout).toMatch(/Created user olga@example\.com on the business plan/);
    const link = LINK.exec(run.stdout.trim().split('\n').at(-1) ?? '')?.[1] ?? '';
    expect(new URL(ctx.server.baseUrl).port).not.toBe('3000');
    expect(link.startsWith(`${ctx.server.baseUrl}/account/welcome?token=`), link).toBe(true);
    expect(run.stderr).not.toMatch(/PDN_PUBLIC_URL|assumes/);

    const { visitor, page, saved, path } = await choosePassword(link);
    expect(page.status).toBe(200);
    expect(page.html).toContain('olga@example.com');
    expect(saved.status).toBe(303);
    expect(saved.location).toBe('/account/keys');
    expect((await visitor.get('/account/usage')).html).toContain('Business');

    expect((await new AccountVisitor(ctx.server.baseUrl).get(path)).status).toBe(410);
    expect((await new AccountVisitor(ctx.server.baseUrl).signIn('olga@example.com', PASSWORD)).status).toBe(
      303,
    );
    const listed = await admin('users', 'list');
    expect(listed.stdout).toMatch(/^\d+\s+-\s+olga@example\.com\s+business\s+yes\s/m);
  });

  it('starts links with PDN_PUBLIC_URL when the admin sets it', async () => {
    const run = await ctx.server.admin(['users', 'create', '--email', 'pia@example.com'], {
      env: { PDN_PUBLIC_URL: 'https://pdn.example.com/' },
    });
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(
      /^https:\/\/pdn\.example\.com\/account\/welcome\?token=/,
    );
  });

  it('refuses a taken or malformed email', async () => {
    await admin('users', 'create', '--email', 'twice@example.com');
    const again = await ctx.server.admin(['users', 'create', '--email', 'TWICE@example.com']);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/already has the email twice@example\.com/);
    const bad = await ctx.server.admin(['users', 'create', '--email', 'not-an-email']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/is not an email address/);
  });
});

describe('a user made before the account area', () => {
  it('keeps its keys, gains an email, resets its password and signs in to see them', async () => {
    const key = await ctx.server.createKey({ user: 'legacy-lee', plan: 'premium' });
    const noEmail = await ctx.server.admin(['users', 'reset-password', 'legacy-lee']);
    expect(noEmail.exitCode).toBe(1);
    expect(noEmail.stderr).toMatch(/users set-email legacy-lee EMAIL/);

    await admin('users', 'set-email', 'legacy-lee', 'lee@example.com');
    const reset = await admin('users', 'reset-password', 'lee@example.com');
    const link = reset.stdout.trim().split('\n').at(-1) ?? '';
    const { visitor, saved } = await choosePassword(link);
    expect(saved.status).toBe(303);
    const keys = await visitor.get('/account/keys');
    expect(keys.html).toContain(`${key.slice(0, 13)}…`);
    expect((await ctx.call('/api/v1/account', { key })).status).toBe(200);

    await admin('users', 'set-plan', 'lee@example.com', 'enterprise');
    expect((await visitor.get('/account/usage')).html).toContain('Enterprise');
  });

  it('signs the user out everywhere once a reset link is used', async () => {
    await admin('users', 'create', '--email', 'reset@example.com');
    const first = await choosePassword(
      (await admin('users', 'reset-password', 'reset@example.com')).stdout.trim().split('\n').at(-1) ?? '',
    );
    expect((await first.visitor.get('/account/keys')).status).toBe(200);
    const second = await choosePassword(
      (await admin('users', 'reset-password', 'reset@example.com')).stdout.trim().split('\n').at(-1) ?? '',
      'another new password',
    );
    expect(second.saved.status).toBe(303);
    expect((await first.visitor.get('/account/keys')).location).toBe('/account/sign-in');
    expect((await new AccountVisitor(ctx.server.baseUrl).signIn('reset@example.com', PASSWORD)).status).toBe(
      401,
    );
  });
});

describe('pdn-server keys create --name', () => {
  it('names the key, as keys list and the keys page show', async () => {
    await admin('users', 'create', '--email', 'named@example.com');
    const made = await admin(
      'keys',
      'create',
      '--user',
      'named@example.com',
      '--name',
      'nightly job',
      '--test',
    );
    expect(made.stdout.trim().split('\n').at(-1)).toMatch(/^pdn_test_[0-9a-f]{32}$/);
    const listed = await admin('keys', 'list', '--user', 'named@example.com');
    expect(listed.stdout).toMatch(/named@example\.com\s+nightly job\s+test/);
  });
});

describe('a server behind a proxy (PDN_PUBLIC_URL set for the server only)', () => {
  const proxied = useServer({ env: { PDN_PUBLIC_URL: 'https://pdn.example.com' } });

  it("starts the admin's links with the server's public URL", async () => {
    const run = await proxied.server.admin(['users', 'create', '--email', 'remote@example.com'], {
      env: { PDN_PUBLIC_URL: '', PORT: '3000' },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(
      /^https:\/\/pdn\.example\.com\/account\/welcome\?token=/,
    );
  });
});

describe('after a restart on another port', () => {
  it('links follow the server to its new port', async () => {
    await ctx.server.admin(['users', 'create', '--email', 'moved@example.com']);
    const before = ctx.server.baseUrl;
    await ctx.server.restart();
    expect(ctx.server.baseUrl).not.toBe(before);
    const run = await admin('users', 'reset-password', 'moved@example.com');
    const link = run.stdout.trim().split('\n').at(-1) ?? '';
    expect(link.startsWith(`${ctx.server.baseUrl}/account/welcome?token=`), link).toBe(true);
    expect((await choosePassword(link)).saved.status).toBe(303);
  });
});
