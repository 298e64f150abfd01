// Password hashing on the real server (accounts/password-hasher.ts): on threads of its own, in a
// bounded number of places shared fairly between client addresses (an IPv6 client by its /64). The
// excess is refused at once, unhashed, with Retry-After; a client that leaves while waiting is never
// hashed for. Counted through /metrics: hashes run, places held at most, refusals by reason.
import { describe, expect, it } from 'vitest';
import { AccountVisitor, type PageResult } from './harness/account-visitor.js';
import { scrapeMetrics } from './harness/metrics-scrape.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer({ env: { PDN_TRUST_PROXY: '1' } });

const metric = async (name: string) => (await scrapeMetrics(ctx.server.baseUrl)).get(name) ?? 0;
const hashed = () => metric('pdn_password_hashes_total');
const limit = (kind: string) => metric(`pdn_password_hash_places{kind="${kind}"}`);
const message = (page: PageResult) => /role="alert">([^<]*)</.exec(page.html)?.[1];

async function readyVisitors(addresses: readonly string[]): Promise<AccountVisitor[]> {
  const visitors = addresses.map((address) => new AccountVisitor(ctx.server.baseUrl, address));
  for (const visitor of visitors) await visitor.get('/account/sign-in');
  return visitors;
}

let emails = 0;
const unknownEmail = () => `nobody${++emails}@example.com`;

describe('hashing places', () => {
  it('gives one address (an IPv6 /64) no more than its share, refusing the rest at once with 429', async () => {
    const perAddress = await limit('per_address');
    expect(perAddress).toBeGreaterThanOrEqual(1);
    const before = await hashed();
    // 20 fits the address's sign-in bucket: every refusal here is the hashing places'.
    const visitors = await readyVisitors(Array.from({ length: 20 }, (_, i) => `2001:db8:77:1::${i + 1}`));
    const answers = await Promise.all(
      visitors.map((visitor) =>
        visitor.post('/account/sign-in', { email: unknownEmail(), password: 'wrong guess' }),
      ),
    );
    const checked = answers.filter((answer) => answer.status === 401).length;
    const refused = answers.filter((answer) => answer.status === 429);
    expect(checked + refused.length).toBe(20);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(message(answer)).toMatch(/^Too many password checks from your address at once\. Try again in /);
    }
    expect((await hashed()) - before).toBe(checked);
    // Only this address hashed so far in this server: the most places held at once is its share.
    expect(await metric('pdn_password_hashes_in_flight_max')).toBeLessThanOrEqual(perAddress);
    expect(await metric('pdn_password_hash_refusals_total{reason="address"}')).toBe(refused.length);
  });

  it('holds no more places than it has across many addresses, refusing the excess with 503', async () => {
    const places = await limit('total');
    const before = await hashed();
    const visitors = await readyVisitors(Array.from({ length: 60 }, (_, i) => `198.51.100.${100 + i}`));
    const answers = await Promise.all(
      visitors.map((visitor) =>
        visitor.post('/account/sign-in', { email: unknownEmail(), password: 'wrong guess' }),
      ),
    );
    const checked = answers.filter((answer) => answer.status === 401).length;
    const busy = answers.filter((answer) => answer.status === 503);
    expect(checked + busy.length).toBe(60);
    expect(busy.length).toBeGreaterThan(0);
    for (const answer of busy) {
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(message(answer)).toMatch(/^The server is busy checking other passwords\. Try again in /);
    }
    expect((await hashed()) - before).toBe(checked);
    expect(await metric('pdn_password_hashes_in_flight_max')).toBeLessThanOrEqual(places);
    expect(await metric('pdn_password_hashes_in_flight')).toBe(0);
  });

  it('never hashes for a client that left while it waited', async () => {
    const places = await limit('total');
    const before = await hashed();
    const goneBefore = await metric('pdn_password_hash_refusals_total{reason="gone"}');
    const visitors = await readyVisitors(Array.from({ length: places }, (_, i) => `192.0.2.${100 + i}`));
    const leave = new AbortController();
    const answers = visitors.map((visitor) =>
      visitor
        .post('/account/sign-in', { email: unknownEmail(), password: 'wrong guess' }, {}, leave.signal)
        .then(
          (answer) => answer.status,
          () => 'left',
        ),
    );
    // Leave once some are waiting behind the running ones (those that finished first count as hashed).
    const running = await limit('running');
    while ((await metric('pdn_password_hashes_in_flight')) <= running)
      await new Promise((resolve) => setTimeout(resolve, 20));
    leave.abort();
    await Promise.all(answers);
    while ((await metric('pdn_password_hashes_in_flight')) > 0)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const gone = (await metric('pdn_password_hash_refusals_total{reason="gone"}')) - goneBefore;
    expect(gone).toBeGreaterThan(0);
    // Every request either was hashed (it had started) or left unhashed.
    expect((await hashed()) - before + gone).toBe(places);
  });
});
