// The SDK in a browser: a page served from one origin bundles @pdn/sdk with esbuild, takes a PDF from
// the real-world corpus through <input type=file>, compresses it against the API server on another
// origin (allowed by PDN_CORS_ORIGINS) and downloads the result as a browser download. Real Chromium,
// real server, real CORS: the page must be able to read the rate-limit headers and the request id, and
// get a PDF. On a server that does not allow the page's origin, the call fails at once, not retried,
// with an error that says the server must allow the origin and how; a server that is down is still a
// connection error, retried.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchBrowser } from './harness/browser.js';
import { startServer, type TestServer } from './harness/server.js';

if (browserMissing) console.warn(`sdk-browser.test.ts skipped: ${browserMissing}`);

const CORPUS_PDF = fileURLToPath(
  new URL('../../packages/fixtures/corpus/distiller-rotation.pdf', import.meta.url),
);

// What a user's page does with the SDK, as the SDK README's "In a browser" shows.
const PAGE_SCRIPT = `
import { Pdn } from '@pdn/sdk';
const params = new URLSearchParams(location.search);
const retries = [];
const pdn = new Pdn({
  apiKey: params.get('key'),
  baseUrl: params.get('api'),
  maxRetries: Number(params.get('retries') ?? 0),
  onRetry: () => retries.push(1),
});
if (params.get('call') === 'languages') {
  pdn.languages().then(
    () => { window.outcome = { ok: true }; },
    (error) => { window.outcome = { name: error.name, code: error.code, message: error.message, retries: retries.length }; },
  );
}
document.querySelector('#file').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  const progress = [];
  try {
    const { data, response } = await pdn
      .compress({ file, level: 'high', onUploadProgress: (p) => progress.push(p) })
      .withResponse();
    const bytes = await pdn.download(data.download);
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([bytes], { type: 'application/pdf' }));
    link.download = data.filename;
    document.body.append(link);
    link.click();
    window.outcome = {
      filename: data.filename,
      sent: file.name,
      rateLimit: data.rateLimit && { limit: data.rateLimit.limit, remaining: data.rateLimit.remaining },
      requestId: data.requestId,
      requestIdHeader: response.headers.get('x-request-id'),
      progress,
      downloadSize: bytes.byteLength,
      compressedSize: data.compressed_size,
    };
  } catch (error) {
    window.outcome = { error: String(error), name: error.name };
  }
});
`;

const PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pdn in a browser</title></head>
<body><label>PDF <input id="file" type="file" accept="application/pdf"></label>
<script type="module" src="/app.js"></script></body></html>`;

/**
 * The page's script with the SDK bundled in, as a user's build would make it (the SDK README's
 * esbuild line): `fromPath` and `download(d, path)` load node:* modules with import() when used,
 * which a page never does; splitting keeps those imports in a chunk of their own, never loaded.
 */
async function bundle(): Promise<Map<string, string>> {
  const result = await build({
    stdin: { contents: PAGE_SCRIPT, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'chrome120',
    external: ['node:*'],
    entryNames: 'app',
    outdir: '/page',
    write: false,
  });
  return new Map(result.outputFiles.map((file) => [file.path.replace(/^\/page/, ''), file.text]));
}

/** The page's own origin: a second port, so every API call is cross-origin. */
async function servePage(scripts: Map<string, string>): Promise<Server> {
  const server = createServer((req, res) => {
    const script = scripts.get(req.url ?? '');
    res.writeHead(200, { 'content-type': script ? 'text/javascript' : 'text/html; charset=utf-8' });
    res.end(script ?? PAGE_HTML);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe.skipIf(browserMissing !== undefined)('the SDK bundled in a page, in Chromium', () => {
  let pageServer: Server;
  let pageOrigin: string;
  let api: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    pageServer = await servePage(await bundle());
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    api = await startServer({ env: { PDN_CORS_ORIGINS: pageOrigin } });
    browser = await launchBrowser();
    page = await (await browser.newContext({ acceptDownloads: true })).newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.stop();
    await new Promise((resolve) => pageServer?.close(resolve));
  });

  it('picks a PDF, compresses it on the other origin and downloads the result', async () => {
    const key = await api.createKey({ user: 'browser', plan: 'free' });
    expect(new URL(api.baseUrl).origin).not.toBe(pageOrigin);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => pageErrors.push(`console: ${message.text()}`));
    await page.goto(`${pageOrigin}/?${new URLSearchParams({ key, api: api.baseUrl })}`);

    const downloading = page.waitForEvent('download');
    await page.setInputFiles('#file', CORPUS_PDF);
    await page.waitForFunction('"outcome" in window');
    const outcome = (await page.evaluate('window.outcome')) as Record<string, unknown>;
    expect(pageErrors).toEqual([]);
    expect(outcome.error).toBeUndefined();
    const download = await downloading;

    // The result, through a real browser download.
    const saved = await readFile((await download.path()) ?? '');
    expect(saved.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(saved.length).toBe(outcome.compressedSize);
    expect(download.suggestedFilename()).toBe('distiller-rotation.compressed.pdf');
    expect(outcome.sent).toBe('distiller-rotation.pdf');

    // Readable across origins only because the server exposes them (openapi.yaml "Browsers (CORS)").
    expect(outcome.rateLimit).toEqual({ limit: 10, remaining: 9 });
    expect(outcome.requestIdHeader).toBe(outcome.requestId);
    expect(outcome.requestId).toMatch(/\S/);

    // A Blob upload says nothing while it goes: 0 at the start, all once answered, nothing invented.
    const total = (await readFile(CORPUS_PDF)).length;
    const progress = outcome.progress as { loaded: number; total: number }[];
    expect(progress.map((p) => p.loaded)).toEqual([0, progress[0]?.total]);
    expect(progress[0]?.total).toBeGreaterThan(total);
  });
});

describe.skipIf(browserMissing !== undefined)('the SDK in a page the server does not allow', () => {
  let pageServer: Server;
  let pageOrigin: string;
  let api: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    pageServer = await servePage(await bundle());
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    // CORS off, as a server is by default.
    api = await startServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.stop();
    await new Promise((resolve) => pageServer?.close(resolve));
  });

  async function languagesFrom(
    baseUrl: string,
    key: string,
  ): Promise<{ outcome: Record<string, unknown>; sent: string[] }> {
    const page = await browser.newPage();
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(baseUrl)) sent.push(request.method());
    });
    const query = new URLSearchParams({ key, api: baseUrl, retries: '2', call: 'languages' });
    await page.goto(`${pageOrigin}/?${query}`);
    await page.waitForFunction('"outcome" in window', undefined, { timeout: 60_000 });
    const outcome = (await page.evaluate('window.outcome')) as Record<string, unknown>;
    await page.close();
    return { outcome, sent };
  }

  it('fails at once with a CorsRefusalError naming the origin and PDN_CORS_ORIGINS', async () => {
    const key = await api.createKey({ user: 'refused-page', plan: 'free' });
    const { outcome, sent } = await languagesFrom(api.baseUrl, key);
    expect(outcome).toMatchObject({ name: 'CorsRefusalError', code: 'cors_refused', retries: 0 });
    expect(outcome.message).toContain(`did not allow this page's origin ${pageOrigin}`);
    expect(outcome.message).toContain(`PDN_CORS_ORIGINS=${pageOrigin}`);
    // The call once (its preflight, refused, is the browser's own), then the SDK's no-cors look: no retry.
    expect(sent).toEqual(['GET', 'HEAD']);
  });

  it('a server that is down is a ConnectionError, retried', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const down = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const { outcome } = await languagesFrom(down, 'pdn_test_0123456789abcdef0123456789abcdef');
    expect(outcome).toMatchObject({ name: 'ConnectionError', code: 'connection_error', retries: 2 });
  });
});
