// /docs in Chromium, as a new user meets it: the page authorises with a Free key and runs "Try it out"
// for every operation of the document, each answered by the server the page came from (on a random
// port, not the 3000 a document once named) with success, and every answer it gets is checked against
// the contract. Forms start empty or at their defaults: an example or a sample Swagger UI made up
// (a callback_url of "http://", a ranges of "string") once failed every upload operation, each try
// spending a call. The page is laid out for a phone's width, keeps to its Content-Security-Policy
// while doing all that, and no other site may frame it.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { JobListResponse, JobResponse } from '@pdn/api-types';
import { labelledPdf, OFFICE_ASSETS, ocrSample } from '@pdn/fixtures';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkExchange, type Exchange } from './contract/check-exchange.js';
import { openapi } from './contract/openapi-document.js';
import { browserMissing, launchBrowser } from './harness/browser.js';
import { useServer } from './harness/use-server.js';

if (browserMissing) console.warn(`docs-browser.test.ts skipped: ${browserMissing}`);

type FilePayload = { name: string; mimeType: string; buffer: Buffer };
const pdfFile = async (name: string, label: string): Promise<FilePayload> => ({
  name,
  mimeType: 'application/pdf',
  buffer: Buffer.from(await labelledPdf(label, 3)),
});

/** Records, from the page's side, every answer it got from the server, checked against the contract. */
interface Watch {
  problems: string[];
  violations: string[];
  /** Attachments, whose bodies Chromium does not keep for the test to read: checked once saved. */
  downloads: Exchange[];
}

function watch(page: Page, baseUrl: string): Watch {
  const seen: Watch = { problems: [], violations: [], downloads: [] };
  const sentAt = new Map<unknown, number>();
  // Chromium reports what the Content-Security-Policy blocked on the console, naming the policy.
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) seen.violations.push(message.text());
  });
  page.on('request', (request) => sentAt.set(request, Date.now()));
  page.on('response', async (response) => {
    const request = response.request();
    if (!request.url().startsWith(baseUrl)) return;
    const headers = new Headers(await response.allHeaders());
    const exchange: Exchange = {
      method: request.method(),
      url: request.url(),
      status: response.status(),
      headers,
      body: new Uint8Array(),
      // The event reaches the test a little after the request left; the decision is after both.
      sentAt: (sentAt.get(request) ?? Date.now()) - 1000,
    };
    if ((headers.get('content-disposition') ?? '').startsWith('attachment')) {
      seen.downloads.push(exchange);
      return;
    }
    exchange.body = new Uint8Array(await response.body());
    for (const problem of checkExchange(exchange))
      seen.problems.push(`${exchange.method} ${exchange.url}: ${problem}`);
  });
  return seen;
}

describe.skipIf(browserMissing !== undefined)('/docs in Chromium', () => {
  const ctx = useServer();
  let browser: Browser;
  let key: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    key = await ctx.server.createKey({ user: 'docs-reader', plan: 'free' });
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function authorised(page: Page): Promise<void> {
    await page.goto(`${ctx.server.baseUrl}/docs`);
    await page.locator('.auth-wrapper button.authorize').click();
    await page.locator('#auth-bearer-value').fill(key);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();
  }

  async function opened(page: Page, tag: string, operationId: string): Promise<Locator> {
    const operation = page.locator(`#operations-${tag}-${operationId}`);
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    return operation;
  }

  /** Executes and reads the answer's status. */
  async function execute(operation: Locator): Promise<string> {
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor({ timeout: 60_000 });
    return (await status.textContent()) ?? '';
  }

  /** The file behind the answer's "Download file" link, as the user saves it. */
  async function saved(page: Page, operation: Locator): Promise<Uint8Array> {
    const downloading = page.waitForEvent('download');
    await operation.locator('.live-responses-table a[download]').click();
    return new Uint8Array(await readFile((await (await downloading).path()) ?? ''));
  }

  /** A job of the key's user and a download of its result, as the API gives them (not counted). */
  async function aFinishedJob(): Promise<{ id: string; download: URL }> {
    const jobs = await ctx.call<JobListResponse>('/api/v1/jobs?status=succeeded', { key });
    const compress = jobs.json.data.jobs.find((job) => job.operation === 'compress');
    const job = await ctx.call<JobResponse>(`/api/v1/jobs/${compress?.id}`, { key });
    const result = job.json.data.result as { download: { url: string } };
    return { id: job.json.data.id, download: new URL(result.download.url, ctx.server.baseUrl) };
  }

  /**
   * What a user fills in before Execute, by operation; the rest of the form is left as the page
   * shows it. Every operation of the document must be here, so a new one gets tried too.
   */
  const fillers: Record<string, (operation: Locator) => Promise<void>> = {
    compress: async (op) => {
      await op
        .locator('tr[data-property-name="file"] input[type=file]')
        .setInputFiles(await pdfFile('a.pdf', 'A'));
    },
    merge: async (op) => {
      const inputs = op.locator('tr[data-property-name="files[]"] input[type=file]');
      await inputs.nth(0).setInputFiles(await pdfFile('a.pdf', 'A'));
      await inputs.nth(1).setInputFiles(await pdfFile('b.pdf', 'B'));
    },
    split: async (op) => {
      await op
        .locator('tr[data-property-name="file"] input[type=file]')
        .setInputFiles(await pdfFile('ab.pdf', 'S'));
      await op.locator('tr[data-property-name="ranges"] input').fill('1,2-3');
    },
    ocr: async (op) => {
      const sample = await ocrSample('eng', 'png');
      await op
        .locator('tr[data-property-name="image"] input[type=file]')
        .setInputFiles({ name: 'scan.png', mimeType: 'image/png', buffer: Buffer.from(sample.bytes) });
    },
    ocrPdf: async (op) => {
      await op
        .locator('tr[data-property-name="file"] input[type=file]')
        .setInputFiles(await pdfFile('doc.pdf', 'O'));
    },
    officeToPdf: async (op) => {
      await op
        .locator('tr[data-property-name="file"] input[type=file]')
        .setInputFiles(join(OFFICE_ASSETS, 'word-2007-sample.docx'));
    },
    imagesToPdf: async (op) => {
      const sample = await ocrSample('eng', 'png');
      await op
        .locator('tr[data-property-name="images[]"] input[type=file]')
        .nth(0)
        .setInputFiles({ name: 'scan.png', mimeType: 'image/png', buffer: Buffer.from(sample.bytes) });
    },
    pdfToImages: async (op) => {
      await op
        .locator('tr[data-property-name="file"] input[type=file]')
        .setInputFiles(await pdfFile('pages.pdf', 'P'));
    },
    htmlToPdf: async (op) => {
      await op.locator('tr[data-property-name="html"] input[type=file]').setInputFiles({
        name: 'page.html',
        mimeType: 'text/html',
        buffer: Buffer.from('<h1>From the docs</h1>'),
      });
    },
    getJob: async (op) => {
      await op.locator('tr[data-param-name="id"] input').fill((await aFinishedJob()).id);
    },
    cancelJob: async (op) => {
      await op.locator('tr[data-param-name="id"] input').fill((await aFinishedJob()).id);
    },
    jobPreflight: async (op) => {
      await op.locator('tr[data-param-name="id"] input').fill((await aFinishedJob()).id);
    },
    downloadPdf: async (op) => {
      const { download } = await aFinishedJob();
      for (const name of ['file', 'exp', 'sig'])
        await op.locator(`tr[data-param-name="${name}"] input`).fill(download.searchParams.get(name) ?? '');
    },
  };

  /**
   * Every operation of the document, uploads first so that the jobs ones have jobs to show, and the
   * revocation of the key in use last, since every call after it is rightly refused.
   */
  const operations = Object.values(openapi.paths)
    .flatMap((item) =>
      Object.entries(item as Record<string, { operationId?: string; tags?: string[] }>).flatMap(
        ([method, operation]) =>
          operation.operationId === undefined
            ? []
            : [{ method, operationId: operation.operationId, tag: operation.tags?.[0] ?? 'default' }],
      ),
    )
    .sort((a, b) => Number(b.method === 'post') - Number(a.method === 'post'))
    .sort(
      (a, b) => Number(a.operationId === 'revokeCurrentKey') - Number(b.operationId === 'revokeCurrentKey'),
    );

  it('runs every operation from "Try it out" with a key, each answered with success', async () => {
    expect(new URL(ctx.server.baseUrl).port).not.toBe('3000');
    const page = await browser.newPage();
    const seen = watch(page, ctx.server.baseUrl);
    const called: string[] = [];
    page.on('request', (request) => called.push(request.url()));
    await authorised(page);

    for (const { method, operationId, tag } of operations) {
      const operation = await opened(page, tag, operationId);
      await fillers[operationId]?.(operation);
      // For the upload operations a success also shows that the form sent no made-up value.
      expect(await execute(operation), `${method.toUpperCase()} ${operationId}`).toMatch(/^20[04]$/);
      if (operationId === 'downloadPdf') {
        const [exchange] = seen.downloads.splice(0);
        if (exchange === undefined) throw new Error('the download answer was not seen');
        exchange.body = await saved(page, operation);
        for (const problem of checkExchange(exchange)) seen.problems.push(`download: ${problem}`);
      }
      // Closed again: Swagger UI renders every open operation on each change, slower and slower.
      await operation.locator('.opblock-summary').click();
    }
    expect(seen.downloads).toEqual([]);
    expect(operations.length).toBeGreaterThan(20);
    expect(called.filter((url) => !url.startsWith(ctx.server.baseUrl))).toEqual([]);
    expect(seen.problems).toEqual([]);
    expect(seen.violations).toEqual([]);
    // Each upload counted once against the Free plan's 10: nothing was sent twice or refused. Asked
    // with another key of the same user: the one the page used is revoked now.
    const other = await ctx.server.createKey({ user: 'docs-reader', plan: 'free' });
    expect((await ctx.call('/api/v1/account', { key })).status).toBe(401);
    const account = await ctx.call<{ data: { used: number } }>('/api/v1/account', { key: other });
    expect(account.json.data.used).toBe(9);
  }, 600_000);

  it('a form starts empty, or at a default, never at an example', async () => {
    const page = await browser.newPage();
    await page.goto(`${ctx.server.baseUrl}/docs`);
    const compress = await opened(page, 'Documents', 'compress');
    expect(
      await compress.locator('tr[data-property-name="callback_url"] input[type=text]').inputValue(),
    ).toBe('');
    expect(await compress.locator('tr[data-property-name="level"] select').inputValue()).toBe('medium');
    const split = await opened(page, 'Documents', 'split');
    expect(await split.locator('tr[data-property-name="ranges"] input').inputValue()).toBe('');
    const ocr = await opened(page, 'OCR', 'ocr');
    expect(await ocr.locator('tr[data-property-name="language"] input[type=text]').inputValue()).toBe('eng');
  });

  it('is laid out for the width of a phone', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const page = await phone.newPage();
    await page.goto(`${ctx.server.baseUrl}/docs`);
    // Without a viewport tag a phone lays the page out 980 px wide and shrinks it.
    expect(await page.evaluate('window.innerWidth')).toBe(390);
    await phone.close();
  });

  describe('framed by another site', () => {
    let other: Server;
    beforeAll(async () => {
      other = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!doctype html><iframe src="${ctx.server.baseUrl}/docs"></iframe>`);
      });
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await new Promise((resolve) => other?.close(resolve));
    });

    it('shows nothing: the browser refuses to load it in the frame', async () => {
      const page = await browser.newPage();
      const refusals: string[] = [];
      page.on('console', (message) => refusals.push(message.text()));
      await page.goto(`http://localhost:${(other.address() as AddressInfo).port}/`);
      await page.waitForLoadState('load');
      const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
      expect(await frame?.locator('#swagger-ui').count()).toBe(0);
      expect(refusals.join('\n')).toMatch(/frame-ancestors|X-Frame-Options/);
    });
  });
});
