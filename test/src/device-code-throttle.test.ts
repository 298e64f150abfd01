// Guessing `pdn login` user codes, at the HTTP level on the real server: every entry of a code, on
// the approval page or posted with a decision straight to the form, counts against the address and
// the account unless the code proves real, and against the code itself in any case. So neither many
// accounts at one address, nor one account at many addresses, nor many of both working on one code
// get more than a few tries; and a code approved once matches nothing after. Each visitor claims
// its address in X-Forwarded-For, believed with PDN_TRUST_PROXY=1. The CLI and the browser walk
// the same pages in test/cli/login.test.ts.
import { describe, expect, it } from 'vitest';
import { AccountVisitor } from './harness/account-visitor.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer({ env: { PDN_TRUST_PROXY: '1' } });
let people = 0;

/** A visitor signed up (and so signed in) at `address`, holding its session's CSRF token. */
async function member(address?: string): Promise<AccountVisitor> {
  const visitor = new AccountVisitor(ctx.server.baseUrl, address);
  expect((await visitor.signUp(`guesser${++people}@example.com`, 'correct horse battery')).status).toBe(303);
  await visitor.get('/account/device');
  return visitor;
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields),
});

/** A `pdn login` waiting for approval: its user code, and a poll with its device code. */
async function waitingLogin() {
  const res = await fetch(`${ctx.server.baseUrl}/account/device/code`, form({ client_name: 'laptop' }));
  const started = (await res.json()) as { device_code: string; user_code: string };
  const poll = async () => {
    const answer = await fetch(
      `${ctx.server.baseUrl}/account/device/token`,
      form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: started.device_code }),
    );
    return (await answer.json()) as { error?: string; access_token?: string };
  };
  return { code: started.user_code, poll };
}

/** Eight letters of the codes' alphabet that no test's login is given: a miss, `n` apart from others. */
const wrongCode = (n: number) => `BBBB-BB${'CDFGHJKLMNPQRSTVWXZ'[n]}${'CDFGHJKLMNPQRSTVWXZ'[n]}`;
const approve = (visitor: AccountVisitor, code: string, headers: Record<string, string> = {}) =>
  visitor.post('/account/device', { code, decision: 'approve' }, headers);
const refusal = /Too many codes tried\. Try again in (\d+ minutes|a minute)\./;

describe('pdn login user codes', () => {
  it('counts a decision posted without the page: ten misses from an address, then no code from it', async () => {
    const login = await waitingLogin();
    const guesser = await member('203.0.113.20');
    for (let n = 0; n < 10; n += 1) expect((await approve(guesser, wrongCode(n))).status).toBe(409);
    const refused = await approve(guesser, login.code);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.html).toMatch(refusal);
    expect(await login.poll()).toMatchObject({ error: 'authorization_pending' });
    // Another account at that address is refused too, on the page and on the form.
    const neighbour = await member('203.0.113.20');
    expect((await neighbour.get(`/account/device?code=${login.code}`)).status).toBe(429);
    expect((await approve(neighbour, login.code)).status).toBe(429);
    // The owner elsewhere approves it, and its CLI gets its key; the code matches nothing after.
    const owner = await member();
    expect((await owner.get(`/account/device?code=${login.code}`)).status).toBe(200);
    const approved = await approve(owner, login.code);
    expect(approved.status).toBe(200);
    expect(approved.html).toContain('Terminal approved');
    expect(await login.poll()).toMatchObject({ access_token: expect.stringMatching(/^pdn_live_/) });
    expect((await owner.get(`/account/device?code=${login.code}`)).status).toBe(404);
    expect((await approve(owner, login.code)).status).toBe(409);
  });

  it('counts misses per account, from whatever address they come', async () => {
    const guesser = await member();
    const from = (n: number) => ({ 'x-forwarded-for': `192.0.2.${n + 1}` });
    for (let n = 0; n < 5; n += 1) {
      expect((await guesser.get(`/account/device?code=${wrongCode(n)}`, from(n))).status).toBe(404);
      expect((await approve(guesser, wrongCode(n + 5), from(n + 5))).status).toBe(409);
    }
    const refused = await guesser.get(`/account/device?code=${wrongCode(10)}`, from(10));
    expect(refused.status).toBe(429);
    expect(refused.html).toMatch(refusal);
  });

  it('counts the tries of one code, matched or not, from any account and address', async () => {
    const login = await waitingLogin();
    // Five tries of the real code, each from an account and an address of its own.
    for (let n = 0; n < 5; n += 1) {
      const visitor = await member();
      expect((await visitor.get(`/account/device?code=${login.code}`)).status).toBe(200);
    }
    const sixth = await member();
    expect((await sixth.get(`/account/device?code=${login.code}`)).status).toBe(429);
    expect((await approve(sixth, login.code)).status).toBe(429);
    expect(await login.poll()).toMatchObject({ error: 'authorization_pending' });
    // A code that matches nothing, tried by five, is refused to the sixth without a look.
    const missed = wrongCode(18);
    for (let n = 0; n < 5; n += 1) expect((await approve(await member(), missed)).status).toBe(409);
    const late = await approve(await member(), missed);
    expect(late.status).toBe(429);
    expect(late.html).toMatch(refusal);
  });
});
