// Rolling a key from the keys page, at the HTTP level on the real server, for each grace the page
// offers: the new secret is shown once, on the answer to the form; the old one stops at once with no
// grace, or keeps working and is listed as expiring for the hour, day or week chosen. The browser
// suite (account-browser.test.ts) rolls with an hour's grace from the keyboard.
import { describe, expect, it } from 'vitest';
import { AccountVisitor } from './harness/account-visitor.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer({ env: { PDN_TRUST_PROXY: '1' } });
let people = 0;

const apiStatus = async (key: string) => (await ctx.call('/api/v1/account', { key })).status;

describe('rolling a key', () => {
  it.each([
    ['none', { oldKey: 401, answer: /which no longer works\./, listed: undefined }],
    ['1h', { oldKey: 200, answer: /keeps working until .* \(in 60 min\)/, listed: 'expires in 60 min' }],
    ['24h', { oldKey: 200, answer: /keeps working until .* \(in 24 h\)/, listed: 'expires in 24 h' }],
    ['7d', { oldKey: 200, answer: /keeps working until .* \(in 7 days\)/, listed: 'expires in 7 days' }],
  ])('with grace %s', async (grace, want) => {
    const visitor = new AccountVisitor(ctx.server.baseUrl);
    expect((await visitor.signUp(`roller${++people}@example.com`, 'correct horse battery')).status).toBe(303);
    const { key: old } = await visitor.createKey('deploy bot');
    const id = /href="\/account\/keys\/([^/"]+)\/roll"/.exec((await visitor.get('/account/keys')).html)?.[1];
    expect(id).toBeDefined();
    await visitor.get(`/account/keys/${id}/roll`);
    const answer = await visitor.post(`/account/keys/${id}/roll`, { grace });
    expect(answer.status).toBe(200);
    const rolled = /id="new-key"[^>]*>(pdn_test_[0-9a-f]{32})</.exec(answer.html)?.[1] ?? '';
    expect(rolled).not.toBe('');
    expect(rolled).not.toBe(old);
    expect(answer.html.replace(/<[^>]+>/g, '')).toMatch(want.answer);
    expect(await apiStatus(rolled)).toBe(200);
    expect(await apiStatus(old)).toBe(want.oldKey);
    // The list: the new secret never again, the old key expiring under the same name, or gone.
    const list = (await visitor.get('/account/keys')).html;
    expect(list).not.toContain(rolled);
    const rows = [...list.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)]
      .map((row) => (row[1] ?? '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' '))
      .filter((row) => row.includes('deploy bot'));
    expect(rows).toHaveLength(want.listed === undefined ? 1 : 2);
    if (want.listed !== undefined) expect(rows.join('\n')).toContain(`deploy bot ${want.listed}`);
    expect(rows.filter((row) => row.includes('expires'))).toHaveLength(want.listed === undefined ? 0 : 1);
  });

  it('refuses a grace the page does not offer, and rolls nothing', async () => {
    const visitor = new AccountVisitor(ctx.server.baseUrl);
    expect((await visitor.signUp(`roller${++people}@example.com`, 'correct horse battery')).status).toBe(303);
    const { key: old } = await visitor.createKey('deploy bot');
    const id = /href="\/account\/keys\/([^/"]+)\/roll"/.exec((await visitor.get('/account/keys')).html)?.[1];
    await visitor.get(`/account/keys/${id}/roll`);
    const answer = await visitor.post(`/account/keys/${id}/roll`, { grace: '30d' });
    expect(answer.status).toBe(400);
    expect(answer.html).not.toMatch(/id="new-key"/);
    expect(await apiStatus(old)).toBe(200);
    expect((await visitor.get('/account/keys')).html).not.toMatch(/expires/);
  });
});
