// The account area in a real browser: Debian's Chromium driven by playwright-core walks what a new
// user does: sign up, sign out and in, create a test key, copy it and run its "Try it" lines in a
// terminal, merge two PDFs with it, see the usage go up, follow a webhook's delivery and send it again,
// see one that found no receiver, rename the key, roll it with an hour's grace and use both secrets,
// revoke them and get 401, sign out, choose a password from a one-time link as an invited user, and
// meet a server with sign-up turned off.
// axe-core checks every page, at phone and desktop widths, for accessibility violations of any
// impact, and each page is saved as a screenshot to look at.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { labelledPdf } from '@pdn/fixtures';
import { verifyWebhook } from '@pdn/sdk';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDN_BIN } from '../cli/run-pdn.js';
import { browserMissing, launchBrowser } from './harness/browser.js';
import { field, file, form } from './harness/form.js';
import { look, SCREENSHOTS, tabTo, WIDTHS } from './harness/page-checks.js';
import { startServer } from './harness/server.js';
import { until } from './harness/until.js';
import { useServer } from './harness/use-server.js';

if (browserMissing !== undefined) console.warn(`account-browser.test.ts skipped: ${browserMissing}`);

describe.skipIf(browserMissing !== undefined)('the account area in Chromium', () => {
  // Webhooks may reach this test's receiver on loopback.
  const ctx = useServer({ env: { PDN_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const email = 'new.user@example.com';
  const password = 'a long enough password';

  beforeAll(async () => {
    console.log(`account screenshots: ${SCREENSHOTS}`);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: WIDTHS.desktop });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ctx.server.baseUrl });
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const url = (path: string) => `${ctx.server.baseUrl}${path}`;
  const text = (selector: string) => page.locator(selector).innerText();
  const merge = async (key: string) =>
    ctx.call('/api/v1/merge', {
      key,
      body: form(file('files[]', await labelledPdf('a', 1)), file('files[]', await labelledPdf('b', 2))),
    });

  it('signs up a new user, who lands on an empty keys page', async () => {
    await page.goto(url('/account'));
    expect(page.url()).toBe(url('/account/sign-in'));
    await look(page, '01-sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await look(page, '02-sign-up');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(url('/account/keys?welcome'));
    expect(await text('.notice')).toMatch(/Welcome/);
    expect(await text('.who')).toBe(email);
    await look(page, '03-keys-empty');
  });

  it('signs out and back in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(url('/account/sign-in?signed-out'));
    expect(await text('.notice')).toBe('You have signed out.');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await text('[role="alert"]')).toBe('The email or password is wrong.');
    await look(page, '04-sign-in-wrong');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url('/account/keys'));
  });

  let key = '';

  it('creates a test key, shown once, and copies it', async () => {
    await page.getByLabel('Name').fill('browser test');
    await page.getByLabel('Test').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    key = (await page.locator('#new-key').innerText()).trim();
    expect(key).toMatch(/^pdn_test_[0-9a-f]{32}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    expect(await page.getByRole('button', { name: 'Copied' }).count()).toBe(1);
    await look(page, '05-key-created');
    // "Try it", pasted into a new terminal (no PDN_* of its own): it names this server, not the
    // CLI's default address, and works as shown.
    const snippet = (await page.locator('pre code').innerText()).trim();
    expect(snippet).toBe(`export PDN_API_KEY=${key}\nexport PDN_BASE_URL=${ctx.server.baseUrl}\npdn status`);
    const terminal = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('PDN_')),
    );
    const tried = spawnSync('bash', ['-c', snippet.replace(/^pdn /m, `node ${PDN_BIN} `)], {
      env: terminal,
      encoding: 'utf8',
    });
    expect(tried.status, tried.stderr).toBe(0);
    expect(tried.stdout).toMatch(/Free/);
    await page.getByRole('link', { name: /back to your keys/ }).click();
    expect(await page.content()).not.toContain(key);
    expect(await text('table.keys')).toContain(`${key.slice(0, 13)}…`);
  });

  it('merges two PDFs with the key and sees the usage go up', async () => {
    await page.goto(url('/account/usage'));
    expect(await text('[data-testid="used"]')).toBe('0');
    const merged = await merge(key);
    expect(merged.status).toBe(200);
    await page.reload();
    expect(await text('[data-testid="used"]')).toBe('1');
    expect(await text('[data-testid="remaining"]')).toBe('9');
    expect(await page.locator('figure.chart rect.chart-bar').count()).toBe(1);
    await look(page, '06-usage');
    await page.goto(url('/account/keys'));
    expect(await text('table.keys')).toMatch(/just now|min ago/);
    await look(page, '07-keys');
  });

  it("lists a webhook delivery's attempts, and sends it again signed with the rotated secret", async () => {
    // The receiver takes the event, then refuses it when it comes again.
    const answers = [
      { status: 200, body: 'thanks, got it' },
      { status: 503, body: 'receiver down for maintenance' },
    ];
    const received: { body: string; signature: string }[] = [];
    const hooks = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      req.on('end', () => {
        received.push({ body, signature: String(req.headers['pdn-signature']) });
        const answer = answers.shift() ?? { status: 200, body: '' };
        res.statusCode = answer.status;
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/pdn-events`;
    try {
      const submitted = await ctx.call<{ data: { id: string } }>('/api/v1/merge', {
        key,
        body: form(
          file('files[]', await labelledPdf('a', 1)),
          file('files[]', await labelledPdf('b', 1)),
          field('callback_url', hookUrl),
        ),
        headers: { Prefer: 'respond-async' },
      });
      expect(submitted.status).toBe(202);
      const jobId = submitted.json.data.id;
      await page.goto(url('/account/webhooks'));
      const delivery = page.locator('li.delivery', { hasText: jobId });
      await until('the page shows the delivery delivered', async () => {
        await page.reload();
        return (await delivery.count()) === 1 && (await delivery.innerText()).includes('delivered');
      });
      expect(await delivery.innerText()).toMatch(
        /Attempt 1, (just now|\d+ min ago): answered 200\s+thanks, got it/,
      );
      expect(await delivery.innerText()).toContain(`to 127.0.0.1:${new URL(hookUrl).port}`);
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page.waitForURL(url('/account/webhooks?rotated'));
      const secret = (await page.locator('#webhook-secret').innerText()).trim();
      // From the keyboard: Tab to the delivery's button, Enter.
      await tabTo(page, delivery.getByRole('button', { name: /Send again/ }));
      await page.keyboard.press('Enter');
      await page.waitForURL(url('/account/webhooks?sent'));
      expect(await text('.notice')).toMatch(/on its way again/);
      await until('the receiver hears the event again', async () => received.length === 2);
      const [first, again] = received as [(typeof received)[0], (typeof received)[0]];
      expect(again.body).toBe(first.body);
      expect(await verifyWebhook(again.body, again.signature, secret)).toMatchObject({
        data: { job: { id: jobId } },
      });
      await until('the page shows the second attempt', async () => {
        await page.reload();
        return (await delivery.innerText()).includes('Attempt 2');
      });
      expect(await delivery.innerText()).toMatch(/answered 503\s+receiver down for maintenance/);
      expect(await delivery.innerText()).toMatch(/next attempt in a minute/);
      await look(page, '08-webhook-deliveries');
    } finally {
      await new Promise((resolve) => hooks.close(resolve));
    }
  });

  it('shows a webhook attempt that found no receiver, with its network error and next retry', async () => {
    // A port that was just free: nothing listens there, so the connection is refused.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const submitted = await ctx.call<{ data: { id: string } }>('/api/v1/merge', {
      key,
      body: form(
        file('files[]', await labelledPdf('a', 1)),
        file('files[]', await labelledPdf('b', 1)),
        field('callback_url', `http://127.0.0.1:${port}/pdn-events`),
      ),
      headers: { Prefer: 'respond-async' },
    });
    expect(submitted.status).toBe(202);
    await page.goto(url('/account/webhooks'));
    const delivery = page.locator('li.delivery', { hasText: submitted.json.data.id });
    await until('the page shows the first attempt', async () => {
      await page.reload();
      return (await delivery.count()) === 1 && (await delivery.innerText()).includes('Attempt 1');
    });
    expect(await delivery.innerText()).toContain(`to 127.0.0.1:${port}`);
    expect(await delivery.innerText()).toMatch(
      /Attempt 1, (just now|\d+ min ago): no answer: .*ECONNREFUSED/,
    );
    expect(await delivery.innerText()).toMatch(/next attempt in (a minute|\d+ min)/);
    expect(await delivery.getByRole('button', { name: /Send again/ }).count()).toBe(0);
  });

  it('renames the key from the keyboard', async () => {
    await page.goto(url('/account/keys'));
    await tabTo(page, page.getByRole('link', { name: 'Rename browser test' }));
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/rename$/);
    await look(page, '09-rename');
    const name = page.getByLabel('New name');
    expect(await name.inputValue()).toBe('browser test');
    await tabTo(page, name);
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('laptop');
    await page.keyboard.press('Enter');
    await page.waitForURL(url('/account/keys?renamed'));
    expect(await text('.notice')).toBe('The key is renamed.');
    expect(await text('table.keys')).toContain('laptop');
    expect(await text('table.keys')).not.toContain('browser test');
  });

  let rolled = '';

  it('rolls the key with an hour of grace: both secrets work until then, the new one shown once', async () => {
    // All from the keyboard: Tab to the link, Enter; Tab into the graces, an arrow up to an hour; Tab
    // on to the button, Enter.
    await tabTo(page, page.getByRole('link', { name: 'Roll laptop' }));
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/roll$/);
    expect(await page.getByLabel('24 hours').isChecked()).toBe(true);
    await look(page, '10-roll-confirm');
    await tabTo(page, page.getByLabel('24 hours'));
    await page.keyboard.press('ArrowUp');
    expect(await page.getByLabel('1 hour').isChecked()).toBe(true);
    await tabTo(page, page.getByRole('button', { name: 'Roll key' }), 1);
    await page.keyboard.press('Enter');
    rolled = (await page.locator('#new-key').innerText()).trim();
    expect(rolled).toMatch(/^pdn_test_[0-9a-f]{32}$/);
    expect(rolled).not.toBe(key);
    expect(await text('h1')).toBe('Your rolled API key');
    expect(await text('main')).toMatch(/keeps working until .* \(in 60 min\)/);
    await look(page, '11-key-rolled');
    expect((await merge(key)).status).toBe(200);
    expect((await merge(rolled)).status).toBe(200);
    await page.getByRole('link', { name: /back to your keys/ }).click();
    expect(await page.content()).not.toContain(rolled);
    // The old key, marked as expiring and no longer offered for rolling; the new one, both named laptop.
    const rows = page.locator('table.keys tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toMatch(/laptop\s+expires in 60 min/);
    expect(await rows.nth(0).getByRole('link', { name: /Roll/ }).count()).toBe(0);
    expect(await rows.nth(1).getByRole('link', { name: /Roll/ }).count()).toBe(1);
    await look(page, '12-keys-rolled');
  });

  it('revokes both keys after a confirmation; the next calls are 401', async () => {
    for (const [index, secret] of [key, rolled].entries()) {
      await page
        .getByRole('link', { name: /Revoke/ })
        .first()
        .click();
      if (index === 0) await look(page, '13-revoke-confirm');
      await page.getByRole('button', { name: 'Revoke key' }).click();
      await page.waitForURL(url('/account/keys?revoked'));
      expect(await text('.notice')).toMatch(/revoked/);
      expect((await merge(secret)).status).toBe(401);
    }
    await look(page, '14-keys-revoked');
  });

  it('signs out: the private pages send back to sign in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto(url('/account/usage'));
    expect(page.url()).toBe(url('/account/sign-in'));
    await page.goto(url('/account/no-such-page'));
    await look(page, '15-not-found');
  });

  it('lets an invited user choose a password from a one-time link, which then stops working', async () => {
    const made = await ctx.server.admin(['users', 'create', '--email', 'invited@example.com'], {
      env: { PDN_PUBLIC_URL: ctx.server.baseUrl },
    });
    const link = made.stdout.trim().split('\n').at(-1) ?? '';
    expect(link).toMatch(/\/account\/welcome\?token=/);
    await page.goto(link);
    expect(await text('main')).toContain('invited@example.com');
    await look(page, '16-choose-password');
    await page.getByLabel('New password').fill('my own new password');
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.waitForURL(url('/account/keys'));
    expect(await text('.who')).toBe('invited@example.com');
    await page.goto(link);
    expect(await text('h1')).toBe('This link no longer works');
    await look(page, '17-link-used');
    await page.goto(url('/account/keys'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(url('/account/sign-in?signed-out'));
  });

  it('works without JavaScript: the key is shown, selectable, with no dead Copy button', async () => {
    const noScript = await browser.newContext({ viewport: WIDTHS.desktop, javaScriptEnabled: false });
    try {
      const plain = await noScript.newPage();
      await plain.goto(url('/account/sign-in'));
      await plain.getByLabel('Email').fill(email);
      await plain.getByLabel('Password').fill(password);
      await plain.getByRole('button', { name: 'Sign in' }).click();
      await plain.waitForURL(url('/account/keys'));
      await plain.getByLabel('Name').fill('no script');
      await plain.getByRole('button', { name: 'Create key' }).click();
      expect((await plain.locator('#new-key').innerText()).trim()).toMatch(/^pdn_live_[0-9a-f]{32}$/);
      expect(await plain.locator('button[data-copy]').isVisible()).toBe(false);
      await plain.getByRole('link', { name: /back to your keys/ }).click();
      expect(await plain.locator('table.keys').innerText()).toContain('no script');
    } finally {
      await noScript.close();
    }
  });

  it('meets a server with sign-up turned off', async () => {
    const closed = await startServer({ env: { PDN_SIGNUP: 'off' } });
    try {
      await page.goto(`${closed.baseUrl}/account/sign-up`);
      expect(await text('h1')).toBe('Sign-up is closed');
      await look(page, '18-sign-up-closed');
      await page.goto(`${closed.baseUrl}/account/sign-in`);
      expect(await page.getByRole('link', { name: 'Create an account' }).count()).toBe(0);
    } finally {
      await closed.stop();
    }
  });
});
