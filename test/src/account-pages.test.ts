// The account area at the HTTP level: CSRF, cookie flags, a new session
// id at sign-in, sign-out, throttled brute force without account enumeration, keys shown once and
// stored only as hashes, other users' keys out of reach, user input shown as text, and revocation
// holding on the very next API call. The browser suite (account-browser.test.ts) walks the same pages
// as a person does.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { labelledPdf } from '@pdn/fixtures';
import { describe, expect, it } from 'vitest';
import { AccountVisitor } from './harness/account-visitor.js';
import { field, file, form } from './harness/form.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer({ env: { PDN_TRUST_PROXY: '1' } });
const PASSWORD = 'correct horse battery';
let people = 0;

/** A visitor signed up (and so signed in) under a fresh email. */
async function member(): Promise<{ visitor: AccountVisitor; email: string }> {
  const visitor = new AccountVisitor(ctx.server.baseUrl);
  const email = `person${++people}@example.com`;
  const answer = await visitor.signUp(email, PASSWORD);
  expect(answer.status).toBe(303);
  return { visitor, email };
}

const apiStatus = async (key: string) => (await ctx.call('/api/v1/account', { key })).status;

describe('CSRF', () => {
  it.each([
    ['missing', { csrf: '' }, {}],
    ['wrong', { csrf: 'A'.repeat(43) }, {}],
    ['right, but posted from another site', {}, { origin: 'https://evil.example' }],
    ['right, but marked cross-site by the browser', {}, { 'sec-fetch-site': 'cross-site' }],
  ])('refuses a form with the token %s, and does nothing', async (_name, fields, headers) => {
    const { visitor } = await member();
    await visitor.get('/account/keys');
    const answer = await visitor.post('/account/keys', { name: 'csrf', kind: 'live', ...fields }, headers);
    expect(answer.status).toBe(403);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.html).toMatch(/reload the page/);
    expect((await visitor.get('/account/keys')).html).not.toMatch(/pdn_live_[0-9a-f]{32}/);
  });

  it('protects the signed-out forms too', async () => {
    const visitor = new AccountVisitor(ctx.server.baseUrl);
    const answer = await visitor.post('/account/sign-up', {
      email: 'nocsrf@example.com',
      password: PASSWORD,
    });
    expect(answer.status).toBe(403);
    expect((await visitor.signIn('nocsrf@example.com', PASSWORD)).status).toBe(401);
  });
});

describe('sessions', () => {
  it('sets HttpOnly, SameSite=Lax cookies scoped to /account, Secure only over https', async () => {
    const { visitor, email } = await member();
    await visitor.get('/account/keys');
    const plain = await visitor.post('/account/sign-in', { email, password: PASSWORD });
    const session = plain.setCookies.find((line) => line.startsWith('pdn_session='));
    expect(session).toMatch(/; path=\/account/i);
    expect(session).toMatch(/; httponly/i);
    expect(session).toMatch(/; samesite=lax/i);
    expect(session).not.toMatch(/; secure/i);

    await visitor.get('/account/keys');
    const behindTls = await visitor.post(
      '/account/sign-in',
      { email, password: PASSWORD },
      { 'x-forwarded-proto': 'https', origin: ctx.server.baseUrl.replace('http:', 'https:') },
    );
    expect(behindTls.setCookies.find((line) => line.startsWith('pdn_session='))).toMatch(/; secure/i);
  });

  it('gives a new session id at every sign-in and ends the old one', async () => {
    const { visitor, email } = await member();
    const first = visitor.cookie('pdn_session') ?? '';
    expect(first).not.toBe('');
    // Signed in already: the keys page carries the session's token for the form.
    await visitor.get('/account/keys');
    expect((await visitor.post('/account/sign-in', { email, password: PASSWORD })).status).toBe(303);
    const second = visitor.cookie('pdn_session') ?? '';
    expect(second).not.toBe(first);
    const stale = new AccountVisitor(ctx.server.baseUrl, visitor.address);
    stale.jar.set('pdn_session', first);
    expect((await stale.get('/account/keys')).location).toBe('/account/sign-in');
  });

  it('ends the session at sign-out, on the server', async () => {
    const { visitor } = await member();
    const id = visitor.cookie('pdn_session') ?? '';
    await visitor.get('/account/keys');
    const out = await visitor.post('/account/sign-out', {});
    expect(out.status).toBe(303);
    expect(visitor.cookie('pdn_session')).toBeUndefined();
    const replay = new AccountVisitor(ctx.server.baseUrl, visitor.address);
    replay.jar.set('pdn_session', id);
    expect((await replay.get('/account/keys')).location).toBe('/account/sign-in');
  });

  it('sends signed-out visitors of private pages to sign in', async () => {
    const visitor = new AccountVisitor(ctx.server.baseUrl);
    for (const path of ['/account/keys', '/account/usage', '/account']) {
      const answer = await visitor.get(path);
      expect(answer.status, path).toBe(303);
      expect(answer.location, path).toBe('/account/sign-in');
    }
  });
});

describe('sign-in throttling', () => {
  it('answers an unknown email exactly as a wrong password', async () => {
    const { email } = await member();
    const wrong = await new AccountVisitor(ctx.server.baseUrl).signIn(email, 'not the password');
    const unknown = await new AccountVisitor(ctx.server.baseUrl).signIn(
      'nobody@example.com',
      'not the password',
    );
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    const message = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1];
    expect(message(wrong.html)).toBe('The email or password is wrong.');
    expect(message(unknown.html)).toBe(message(wrong.html));
  });

  it('holds an account back after 5 wrong passwords, even from other addresses, right password included', async () => {
    const { email } = await member();
    for (let i = 0; i < 5; i += 1)
      expect((await new AccountVisitor(ctx.server.baseUrl).signIn(email, `guess ${i} wrong`)).status).toBe(
        401,
      );
    const owner = await new AccountVisitor(ctx.server.baseUrl).signIn(email, PASSWORD);
    expect(owner.status).toBe(429);
    expect(owner.html).toMatch(/Too many sign-in attempts. Try again in \d+ minutes/);
    expect(Number(owner.headers.get('retry-after'))).toBeGreaterThan(800);
  });

  it('holds one address back after 20 failures across accounts', async () => {
    const attacker = new AccountVisitor(ctx.server.baseUrl);
    for (let i = 0; i < 20; i += 1)
      expect((await attacker.signIn(`target${i}@example.com`, 'password123')).status).toBe(401);
    expect((await attacker.signIn('target99@example.com', 'password123')).status).toBe(429);
  });

  it('throttles sign-ups per address', async () => {
    const first = new AccountVisitor(ctx.server.baseUrl);
    const fromThere = () => new AccountVisitor(ctx.server.baseUrl, first.address);
    expect((await first.signUp('bulk0@example.com', PASSWORD)).status).toBe(303);
    for (let i = 1; i < 5; i += 1)
      expect((await fromThere().signUp(`bulk${i}@example.com`, PASSWORD)).status).toBe(303);
    const refused = await fromThere().signUp('bulk5@example.com', PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.html).toMatch(/Too many sign-ups from your address/);
    expect((await new AccountVisitor(ctx.server.baseUrl).signUp('bulk6@example.com', PASSWORD)).status).toBe(
      303,
    );
  });
});

describe('API keys', () => {
  it('shows a new key once, stores only its hash, and refuses it on the next call after revocation', async () => {
    const { visitor } = await member();
    const { key, page } = await visitor.createKey('laptop', 'live');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(await apiStatus(key)).toBe(200);

    const list = await visitor.get('/account/keys');
    expect(list.html).not.toContain(key);
    expect(list.html).toContain(`${key.slice(0, 13)}…`);
    const stored = await Promise.all(
      (await readdir(ctx.server.dataDir))
        .filter((name) => name.startsWith('pdn.sqlite'))
        .map((name) => readFile(join(ctx.server.dataDir, name))),
    );
    expect(stored.length).toBeGreaterThan(0);
    for (const bytes of stored) expect(bytes.includes(key.slice(9))).toBe(false);

    const id = /href="\/account\/keys\/(key_[0-9a-f]+)\/revoke"/.exec(list.html)?.[1] ?? '';
    const confirm = await visitor.get(`/account/keys/${id}/revoke`);
    expect(confirm.html).toContain('Revoke this key?');
    expect(await apiStatus(key)).toBe(200);
    const revoked = await visitor.post(`/account/keys/${id}/revoke`, {});
    expect(revoked.status).toBe(303);
    expect(await apiStatus(key)).toBe(401);
    expect((await visitor.get('/account/keys')).html).not.toContain(id);
  });

  it("cannot see or revoke another user's key: 404, and the key keeps working", async () => {
    const owner = await member();
    const { key } = await owner.visitor.createKey('mine');
    const id = /\/account\/keys\/(key_[0-9a-f]+)\/revoke/.exec(
      (await owner.visitor.get('/account/keys')).html,
    )?.[1];
    const other = await member();
    expect((await other.visitor.get(`/account/keys/${id}/revoke`)).status).toBe(404);
    await other.visitor.get('/account/keys');
    const attempt = await other.visitor.post(`/account/keys/${id}/revoke`, {});
    expect(attempt.status).toBe(404);
    expect(attempt.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await apiStatus(key)).toBe(200);
  });

  it('shows HTML in a key name and an email as text', async () => {
    const visitor = new AccountVisitor(ctx.server.baseUrl);
    const email = `<img/src=x/onerror=alert(1)>${++people}@example.com`;
    expect((await visitor.signUp(email, PASSWORD)).status).toBe(303);
    const { page } = await visitor.createKey('<script>alert("name")</script>');
    const list = await visitor.get('/account/keys');
    for (const html of [page.html, list.html]) {
      expect(html).not.toContain('<script>alert');
      expect(html).not.toContain('<img/src=x');
      expect(html).toContain('&lt;script>alert(&quot;name&quot;)&lt;/script>');
      expect(html).toContain('&lt;img/src=x/onerror=alert(1)>');
    }
  });

  it('refuses a nameless key with the form again', async () => {
    const { visitor } = await member();
    await visitor.get('/account/keys');
    const answer = await visitor.post('/account/keys', { name: '  ', kind: 'test' });
    expect(answer.status).toBe(400);
    expect(answer.html).toMatch(/Give the key a name/);
  });
});

describe('plan and usage', () => {
  it('counts document work; GET /api/v1/account and languages are not counted', async () => {
    const { visitor } = await member();
    const { key } = await visitor.createKey('usage');
    const used = async () =>
      /data-testid="used">(\d+)</.exec((await visitor.get('/account/usage')).html)?.[1];
    expect(await used()).toBe('0');
    await ctx.call('/api/v1/split', {
      key,
      body: form(file('file', await labelledPdf('p', 1)), field('ranges', '1')),
    });
    await ctx.call('/api/v1/account', { key });
    await ctx.call('/api/v1/languages', { key });
    expect(await used()).toBe('1');
    const page = await visitor.get('/account/usage');
    expect(page.html).toMatch(
      /<figure class="chart"><div[^>]*>1 per minute at most<\/div><svg[^>]*role="img"/,
    );
    expect(page.html).toContain('Free');
  });
});

describe('pages apart from the API', () => {
  it('answers unknown pages and wrong methods with HTML, keeping only the request id', async () => {
    const visitor = new AccountVisitor(ctx.server.baseUrl);
    const missing = await visitor.get('/account/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    expect(missing.headers.get('x-request-id')).toBeTruthy();
    expect(missing.setCookies).toEqual([]);
    const css = await visitor.get('/account/account.css');
    expect(css.headers.get('cache-control')).toBe('public, max-age=3600');
    // Cacheable, so never with a cookie a shared cache could hand to the next visitor.
    expect(css.setCookies).toEqual([]);
    const wrongMethod = await fetch(`${ctx.server.baseUrl}/account/keys`, { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toMatch(/GET/);
  });
});

describe('without PDN_TRUST_PROXY', () => {
  const direct = useServer();

  it('believes neither X-Forwarded-For nor X-Forwarded-Proto: anyone can send them', async () => {
    const cookies: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      // Each visitor claims another address; without a trusted proxy they are all the socket's one.
      const visitor = new AccountVisitor(direct.server.baseUrl);
      await visitor.get('/account/sign-up');
      const answer = await visitor.post(
        '/account/sign-up',
        { email: `direct${i}@example.com`, password: PASSWORD },
        { 'x-forwarded-proto': 'https' },
      );
      expect(answer.status).toBe(303);
      cookies.push(answer.setCookies.find((line) => line.startsWith('pdn_session=')) ?? '');
    }
    for (const line of cookies) expect(line).not.toMatch(/; secure/i);
    const sixth = await new AccountVisitor(direct.server.baseUrl).signUp('direct5@example.com', PASSWORD);
    expect(sixth.status).toBe(429);
  });
});
