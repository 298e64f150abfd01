// The sign-in throttle under concurrency, on the real server (accounts/throttle.ts): attempts are
// reserved before their password is hashed, so wrong passwords sent at once are checked no more than
// the limit allows; the owner still gets in from an address it signed in from before; an IPv6 client
// is counted by its /64; and sign-ups for emails that have an account cost the address a failed
// sign-in. Each visitor claims its address in X-Forwarded-For, believed with PDN_TRUST_PROXY=1; a
// server without it warns once, at the first request of any kind that carries the header.
import { describe, expect, it } from 'vitest';
import { AccountVisitor, type PageResult } from './harness/account-visitor.js';
import { scrapeMetrics } from './harness/metrics-scrape.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer({ env: { PDN_TRUST_PROXY: '1' } });
const PASSWORD = 'correct horse battery';
let people = 0;

async function member(address?: string): Promise<{ visitor: AccountVisitor; email: string }> {
  const visitor = new AccountVisitor(ctx.server.baseUrl, address);
  const email = `throttled${++people}@example.com`;
  expect((await visitor.signUp(email, PASSWORD)).status).toBe(303);
  return { visitor, email };
}

/** Visitors that have each loaded the sign-in form, ready to post at once. */
async function readyVisitors(addresses: readonly string[]): Promise<AccountVisitor[]> {
  const visitors = addresses.map((address) => new AccountVisitor(ctx.server.baseUrl, address));
  for (const visitor of visitors) await visitor.get('/account/sign-in');
  return visitors;
}

const message = (page: PageResult) => /role="alert">([^<]*)</.exec(page.html)?.[1];
/** Passwords hashed by the server so far. */
const hashed = async () => (await scrapeMetrics(ctx.server.baseUrl)).get('pdn_password_hashes_total') ?? 0;

describe('wrong passwords sent at once', () => {
  it('checks at most 5 of 60 for one account; the rest are refused with 429, Retry-After and when to try', async () => {
    const { email } = await member();
    const visitors = await readyVisitors(Array.from({ length: 60 }, (_, i) => `203.0.113.${i + 1}`));
    const hashesBefore = await hashed();
    const answers = await Promise.all(
      visitors.map((visitor, i) => visitor.post('/account/sign-in', { email, password: `wrong guess ${i}` })),
    );
    const checked = answers.filter((answer) => answer.status === 401);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(checked.length).toBeGreaterThanOrEqual(1);
    expect(checked.length).toBeLessThanOrEqual(5);
    expect(checked.length + refused.length).toBe(60);
    // Each checked one hashed its password once; none of the refused did.
    expect((await hashed()) - hashesBefore).toBe(checked.length);
    for (const answer of refused) {
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(message(answer)).toMatch(/^Too many sign-in attempts\. Try again in (\d+ minutes|a minute)\.$/);
    }
  });

  it('checks at most 20 of 60 from one address across accounts', async () => {
    const visitors = await readyVisitors(Array.from({ length: 60 }, () => '198.18.0.1'));
    const answers = await Promise.all(
      visitors.map((visitor, i) =>
        visitor.post('/account/sign-in', { email: `nobody${i}@example.com`, password: 'wrong guess' }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 401).length).toBeLessThanOrEqual(20);
    expect(answers.every((answer) => answer.status === 401 || answer.status === 429)).toBe(true);
  });
});

describe("the owner's way in", () => {
  it('lets the owner in from the address it signed up from while the account is locked for others', async () => {
    const { email, visitor: owner } = await member('192.0.2.77');
    for (let i = 0; i < 5; i += 1)
      expect((await new AccountVisitor(ctx.server.baseUrl).signIn(email, `guess ${i}`)).status).toBe(401);
    const stranger = await new AccountVisitor(ctx.server.baseUrl).signIn(email, PASSWORD);
    expect(stranger.status).toBe(429);
    const home = await new AccountVisitor(ctx.server.baseUrl, owner.address).signIn(email, PASSWORD);
    expect(home.status).toBe(303);
    expect(home.location).toBe('/account/keys');
  });

  it('keeps a known address to 5 failures of its own for that account', async () => {
    const { email, visitor: owner } = await member('192.0.2.78');
    const fromHome = () => new AccountVisitor(ctx.server.baseUrl, owner.address);
    for (let i = 0; i < 5; i += 1) expect((await fromHome().signIn(email, `typo ${i}`)).status).toBe(401);
    expect((await fromHome().signIn(email, PASSWORD)).status).toBe(429);
  });
});

describe('addresses', () => {
  it('counts an IPv6 client by its /64', async () => {
    for (let i = 1; i <= 20; i += 1)
      expect(
        (
          await new AccountVisitor(ctx.server.baseUrl, `2001:db8:1:2::${i.toString(16)}`).signIn(
            `v6-${i}@example.com`,
            'wrong guess',
          )
        ).status,
      ).toBe(401);
    const sameNetwork = new AccountVisitor(ctx.server.baseUrl, '2001:db8:1:2:ffff:ffff:ffff:ffff');
    expect((await sameNetwork.signIn('v6-x@example.com', 'wrong guess')).status).toBe(429);
    const nextNetwork = new AccountVisitor(ctx.server.baseUrl, '2001:db8:1:3::1');
    expect((await nextNetwork.signIn('v6-x@example.com', 'wrong guess')).status).toBe(401);
  });

  it('counts a sign-up for an email that has an account as a failed sign-in of its address (and /64)', async () => {
    const { email } = await member();
    const network = '2001:db8:5:5::';
    for (let i = 1; i <= 19; i += 1)
      expect(
        (await new AccountVisitor(ctx.server.baseUrl, `${network}${i}`).signIn(`e${i}@example.com`, 'wrong'))
          .status,
      ).toBe(401);
    const taken = await new AccountVisitor(ctx.server.baseUrl, `${network}aa`).signUp(email, PASSWORD);
    expect(taken.status).toBe(409);
    expect(message(taken)).toMatch(/exists already/);
    const after = await new AccountVisitor(ctx.server.baseUrl, `${network}bb`).signIn(
      'e0@example.com',
      'wrong',
    );
    expect(after.status).toBe(429);
    const again = await new AccountVisitor(ctx.server.baseUrl, `${network}cc`).signUp(email, PASSWORD);
    expect(again.status).toBe(429);
    expect(message(again)).toMatch(/^Too many attempts from your address\. Try again in/);
  });
});

describe('X-Forwarded-For without PDN_TRUST_PROXY', () => {
  const direct = useServer({ env: { PDN_LOG_LEVEL: 'warn' } });

  it('warns the operator once, at the first request that carries it, an API call as much as a page', async () => {
    const warnings = () =>
      direct.server.log
        .split('\n')
        .filter((line) => line.includes('X-Forwarded-For but PDN_TRUST_PROXY is 0'));
    const warned = async () => {
      for (let tries = 0; tries < 50 && warnings().length === 0; tries += 1)
        await new Promise((resolve) => setTimeout(resolve, 100));
      return warnings();
    };
    const settled = () => new Promise((resolve) => setTimeout(resolve, 300));
    // Without the header: nothing to warn about.
    expect((await fetch(direct.server.url('/api/v1/languages'))).status).toBe(401);
    await settled();
    expect(warnings()).toEqual([]);
    // A proxy's first traffic is often API calls only: the warning must not wait for a sign-in.
    const key = await direct.server.createKey({ user: 'proxied', plan: 'free' });
    const call = await fetch(direct.server.url('/api/v1/languages'), {
      headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': '203.0.113.9' },
    });
    expect(call.status).toBe(200);
    expect(await warned()).toHaveLength(1);
    expect(JSON.parse(warnings()[0] ?? '{}')).toMatchObject({ level: 'warn' });
    await new AccountVisitor(direct.server.baseUrl).get('/account/sign-in');
    await new AccountVisitor(direct.server.baseUrl).get('/account/sign-in');
    await settled();
    expect(warnings()).toHaveLength(1);
  });
});
