// `pdn login` and `pdn logout` end to end: the CLI at a real terminal (under `script`) shows a code
// and hands the page to the desktop's browser (unless --no-browser); Chromium, signed in, opens the
// page the CLI names, sees what asks (this machine's name, its address, when) and approves; the CLI saves the new key 0600 and the key works; `pdn logout` revokes it on
// the server. A browser not signed in is sent through sign-in and back to the code. And the
// refusals: a denial and an expiry each end the CLI's wait with exit 3 and say which, a device code
// works once, and codes that match nothing are throttled (per address here; per account and per code
// in src/device-code-throttle.test.ts).
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchBrowser } from '../src/harness/browser.js';
import { look, tabTo } from '../src/harness/page-checks.js';
import { until } from '../src/harness/until.js';
import { useServer } from '../src/harness/use-server.js';
import { hasScript, pdnInTerminal, type Terminal } from './run-in-terminal.js';
import { runPdn } from './run-pdn.js';
import { useWorkspace } from './workspace.js';

const ctx = useServer();
const ws = useWorkspace();
const email = 'terminal.owner@example.com';

describe.runIf(hasScript && browserMissing === undefined)('pdn login', () => {
  let browser: Browser;
  let page: Page;
  const url = (path: string) => `${ctx.server.baseUrl}${path}`;
  // The desktop's browser is an xdg-open of the test's own, first on PATH, that notes what it opens.
  const fakeBin = () => ws.path('fake-bin');
  const opened = async () => readFile(ws.path('opened.txt'), 'utf8').catch(() => '');
  const env = () => ({ XDG_CONFIG_HOME: ws.configHome, PATH: `${fakeBin()}:${process.env.PATH ?? ''}` });
  const configFile = () => join(ws.configHome, 'pdn', 'config.json');

  beforeAll(async () => {
    await mkdir(fakeBin());
    const xdgOpen = join(fakeBin(), 'xdg-open');
    await writeFile(xdgOpen, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${ws.path('opened.txt')}'\n`);
    await chmod(xdgOpen, 0o755);
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.goto(url('/account/sign-up'));
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(url('/account/keys?welcome'));
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** `pdn login` at a terminal, and the link it shows once it shows it. */
  async function login(...flags: string[]): Promise<{ terminal: Terminal; link: string; code: string }> {
    const terminal = pdnInTerminal(['login', '--base-url', ctx.server.baseUrl, ...flags], {
      cwd: ws.dir,
      env: env(),
    });
    await terminal.waitFor(/Waiting for approval/);
    const link = /Then open (\S+)/.exec(terminal.screen)?.[1] ?? '';
    const code = /one-time code: (\S+)/.exec(terminal.screen)?.[1] ?? '';
    return { terminal, link, code };
  }

  it('saves a working key once the code is approved in the browser', async () => {
    const { terminal, link, code } = await login();
    expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(link).toBe(url(`/account/device?code=${code}`));
    // At a terminal the CLI opens the page in the desktop's browser too.
    await until('the browser is opened on the link', async () => (await opened()).split('\n').includes(link));
    await page.goto(link);
    expect(await page.locator('h1').innerText()).toBe('Approve this terminal?');
    const asker = await page.locator('dl.asker').innerText();
    expect(asker).toContain(hostname());
    expect(asker).toContain('127.0.0.1');
    const askedAt = await page.locator('dl.asker time').getAttribute('datetime');
    expect(Math.abs(Date.parse(askedAt ?? '') - Date.now())).toBeLessThan(60_000);
    expect(asker).toMatch(/Asked at\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(await page.locator('main').innerText()).toContain(code);
    await look(page, '30-device-approve');
    // From the keyboard: Tab to the button, Enter.
    await tabTo(page, page.getByRole('button', { name: 'Approve' }));
    await page.keyboard.press('Enter');
    await page.waitForURL(url('/account/device'));
    expect(await page.locator('h1').innerText()).toBe('Terminal approved');
    await look(page, '31-device-approved');
    const run = await terminal.done;
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toMatch(
      new RegExp(`Logged in as ${email}: key "pdn CLI on ${hostname()}" \\(pdn_live_…\\w{4}\\) saved to`),
    );
    expect((await stat(configFile())).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(configFile(), 'utf8')) as { api_key: string; base_url: string };
    expect(saved.api_key).toMatch(/^pdn_live_[0-9a-f]{32}$/);
    expect(saved.base_url).toBe(ctx.server.baseUrl);
    // The next command needs nothing more: the key and the server come from the config file.
    const status = await runPdn(['status'], { cwd: ws.dir, env: env() });
    expect(status.code, status.stderr).toBe(0);
    expect(status.text).toMatch(/Free/);
    await page.goto(url('/account/keys'));
    expect(await page.locator('table.keys').innerText()).toContain(`pdn CLI on ${hostname()}`);
  });

  it('logs out: the key is revoked on the server and removed from the config file', async () => {
    const { api_key: key } = JSON.parse(await readFile(configFile(), 'utf8')) as { api_key: string };
    const run = await runPdn(['logout'], { cwd: ws.dir, env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.text).toMatch(/Logged out: key pdn_live_…\w{4} is revoked and removed/);
    expect((await ctx.call('/api/v1/account', { key })).status).toBe(401);
    expect(JSON.parse(await readFile(configFile(), 'utf8'))).toEqual({ base_url: ctx.server.baseUrl });
    const again = await runPdn(['logout'], { cwd: ws.dir, env: env() });
    expect(again.code).toBe(0);
    expect(again.text).toMatch(/Not logged in/);
  });

  it('ends the wait with exit 3 when the sign-in is denied, from a browser signed in on the way', async () => {
    const { terminal, link } = await login('--no-browser');
    // A browser not signed in yet: the link leads to sign in, and on to the code's page after it.
    const fresh = await browser.newPage();
    await fresh.goto(link);
    expect(new URL(fresh.url()).pathname).toBe('/account/sign-in');
    await fresh.getByLabel('Email').fill(email);
    await fresh.getByLabel('Password').fill('a long enough password');
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    await fresh.waitForURL(link);
    await fresh.getByRole('button', { name: 'Deny' }).click();
    expect(await fresh.locator('h1').innerText()).toBe('Terminal denied');
    await look(fresh, '34-device-denied');
    await fresh.close();
    const run = await terminal.done;
    expect(run.code).toBe(3);
    expect(run.screen).toMatch(/The sign-in was denied in the browser/);
    // --no-browser: printed only, nothing opened.
    expect((await opened()).split('\n')).not.toContain(link);
    expect(JSON.parse(await readFile(configFile(), 'utf8'))).not.toHaveProperty('api_key');
  });

  it('ends the wait with exit 3 when the code expires before anyone approves it', async () => {
    const { terminal, code } = await login();
    // Its fifteen minutes pass at once: the row's expiry is moved to now, as the clock would move it.
    const db = new Database(join(ctx.server.dataDir, 'pdn.sqlite'));
    try {
      const moved = db
        .prepare('UPDATE device_logins SET expires_at = ? WHERE user_code = ?')
        .run(Date.now(), code.replace('-', ''));
      expect(moved.changes).toBe(1);
    } finally {
      db.close();
    }
    const run = await terminal.done;
    expect(run.code).toBe(3);
    expect(run.screen).toMatch(/The code expired before it was approved/);
    expect(JSON.parse(await readFile(configFile(), 'utf8'))).not.toHaveProperty('api_key');
  });

  it('grants a device code once, and throttles codes that match nothing', async () => {
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
    const started = (await (
      await fetch(url('/account/device/code'), form({ client_name: 'script' }))
    ).json()) as {
      device_code: string;
      user_code: string;
      verification_uri: string;
    };
    // The code typed on the page without it, from the keyboard.
    await page.goto(started.verification_uri);
    await look(page, '33-device-entry');
    await tabTo(page, page.getByLabel('Code'));
    await page.keyboard.type(started.user_code.toLowerCase());
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/account\/device\?code=/);
    await tabTo(page, page.getByRole('button', { name: 'Approve' }));
    await page.keyboard.press('Enter');
    await page.waitForURL(url('/account/device'));
    const poll = form({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: started.device_code,
    });
    const first = await fetch(url('/account/device/token'), poll);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(await first.json()).toMatchObject({
      access_token: expect.stringMatching(/^pdn_live_/),
      token_type: 'Bearer',
    });
    const reused = await fetch(url('/account/device/token'), poll);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
    // Ten different codes that match nothing from this address (one code alone gets five tries);
    // the eleventh try is refused unlooked-at.
    for (const letter of 'CDFGHJKLMN') {
      const res = await page.goto(url(`/account/device?code=BBBB-BB${letter}${letter}`));
      expect(res?.status()).toBe(404);
    }
    const refused = await page.goto(url('/account/device?code=CCCC-CCCC'));
    expect(refused?.status()).toBe(429);
    expect(await page.locator('[role="alert"]').innerText()).toMatch(/Too many codes tried/);
    await look(page, '32-device-throttled');
  });
});
