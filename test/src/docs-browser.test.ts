// /docs "Try it out" on whatever host and port the server has (issue #20: the document named
// http://127.0.0.1:3000, so the page called that address from anywhere else). The server runs on a
// random port; Chromium loads its /docs, runs GET /healthz from the page, and the call must go to
// that same server and come back 200.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchBrowser } from './harness/browser.js';
import { useServer } from './harness/use-server.js';

if (browserMissing) console.warn(`docs-browser.test.ts skipped: ${browserMissing}`);

describe.skipIf(browserMissing !== undefined)('/docs in Chromium', () => {
  const ctx = useServer();
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('"Try it out" calls the server the page came from', async () => {
    expect(new URL(ctx.server.baseUrl).port).not.toBe('3000');
    const page = await browser.newPage();
    const called: string[] = [];
    page.on('request', (request) => called.push(request.url()));
    await page.goto(`${ctx.server.baseUrl}/docs`);

    const health = page.locator('#operations-Service-health');
    await health.locator('.opblock-summary').click();
    await health.locator('button.try-out__btn').click();
    await health.locator('button.execute').click();
    await expect
      .poll(() =>
        health.locator('.live-responses-table tr.response .response-col_status').first().textContent(),
      )
      .toBe('200');

    expect(await health.locator('.request-url pre').textContent()).toBe(`${ctx.server.baseUrl}/healthz`);
    expect(called).toContain(`${ctx.server.baseUrl}/healthz`);
    expect(called.filter((url) => !url.startsWith(ctx.server.baseUrl))).toEqual([]);
  });
});
