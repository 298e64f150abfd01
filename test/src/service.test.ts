// The service's self-description and its answers to requests it has no operation for:
// /healthz, /openapi.json, /docs served locally, 404 and 405 envelopes, X-Request-Id everywhere.

import type { OcrResponse } from '@pdn/api-types';
import { characterErrorRate, ocrSample } from '@pdn/fixtures';
import { describe, expect, it } from 'vitest';
import { openapi } from './contract/openapi-document.js';
import { field, file, form } from './harness/form.js';
import { rawExchange } from './harness/raw-request.js';
import { tools } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer();
let exactRoutesKey: string | undefined;

describe('service endpoints', () => {
  it('GET /healthz answers without a key and names the engines with their versions', async () => {
    const res = await ctx.call<{
      data: { status: string; engines: Record<string, { name: string; version: string }> };
    }>('/healthz');
    expect(res.status).toBe(200);
    expect(res.json.data.status).toBe('ok');
    for (const engine of Object.values(res.json.data.engines)) expect(engine.version).not.toBe('');
  });

  it('the first start creates user "dev" on Premium and prints a working test key with a curl example', async () => {
    const key = /^\s+(pdn_test_[0-9a-f]{32})\s*$/m.exec(ctx.server.output)?.[1];
    expect(key, ctx.server.output).toBeDefined();
    expect(ctx.server.output).toContain(`curl -H "Authorization: Bearer ${key}"`);
    expect(ctx.server.output).toContain(`${ctx.server.baseUrl}/api/v1/merge`);
    // The command for more keys names this server's data folder, as a new terminal needs it.
    expect(ctx.server.output).toContain(`PDN_DATA_DIR=${ctx.server.dataDir} npx pdn-server keys create`);
    const res = await ctx.call<{ data: { plan: string } }>('/api/v1/account', { key: key ?? '' });
    expect(res.status).toBe(200);
    expect(res.json.data.plan).toBe('premium');
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
  });

  it('picks the external tools when installed, as /healthz reports', async () => {
    const res = await ctx.call<{ data: { engines: Record<string, { name: string }> } }>('/healthz');
    const { pdf, compress, ocr } = res.json.data.engines;
    if (tools.qpdf) expect(pdf?.name).toBe('qpdf');
    if (tools.ghostscript) expect(compress?.name).toBe('ghostscript');
    if (tools.tesseract) expect(ocr?.name).toBe('tesseract');
  });

  // With auto, OCR runs natively for languages the binary has and through tesseract.js for the others
  // ("Optional accelerator"): both kinds of language must read correctly in one server.
  it.each(['eng', 'fra'] as const)('auto OCR reads %s', async (language) => {
    const key = await ctx.server.createKey({ user: 'auto-ocr', plan: 'enterprise' });
    const sample = await ocrSample(language, 'png');
    const res = await ctx.call<OcrResponse>('/api/v1/ocr', {
      key,
      body: form(file('image', sample.bytes, 'page.png'), field('language', language)),
    });
    expect(res.status).toBe(200);
    expect(characterErrorRate(sample.text, res.json.data.text)).toBeLessThan(0.05);
  });

  it('GET /openapi.json serves the contract the tests validate against', async () => {
    const res = await ctx.call('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.json).toEqual(openapi);
  });

  it('GET /docs serves a readable page whose assets are all local (no CDN)', async () => {
    const res = await ctx.call('/docs');
    expect(res.status).toBe(200);
    const html = res.bytes.toString('utf8');
    expect(html).toMatch(/<html/i);
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//i);
    // Every script and stylesheet the page names must be served by the server itself (GET /docs/{asset}).
    const assets = [...html.matchAll(/(?:src|href)=["']([^"'#]+\.(?:js|css))["']/gi)].map((m) => m[1] ?? '');
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const { pathname } = new URL(asset, `${ctx.server.baseUrl}/docs/`);
      expect((await ctx.call(pathname)).status, pathname).toBe(200);
    }
    expect((await ctx.call('/docs/package.json')).status).toBe(404);
  });

  it("answers request headers over the server's limit with a 431 envelope", async () => {
    const res = await ctx.call('/healthz', { headers: { 'x-padding': 'a'.repeat(20 * 1024) } });
    expect(res.status).toBe(431);
  });

  // Node's own answers to these were a bare status line, without envelope or request id.
  it.each<[string, string, number]>([
    ['an HTTP/1.1 request without Host', 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n', 400],
    [
      'an expectation other than 100-continue',
      'GET /healthz HTTP/1.1\r\nHost: pdn.test\r\nExpect: foo\r\nConnection: close\r\n\r\n',
      417,
    ],
    [
      'an expectation on a path with no route',
      'POST /nope HTTP/1.1\r\nHost: pdn.test\r\nExpect: bar\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
      417,
    ],
    ['CONNECT, which asks for a tunnel', 'CONNECT pdn.test:443 HTTP/1.1\r\nHost: pdn.test:443\r\n\r\n', 400],
  ])('answers %s with the envelope', async (_name, request, status) => {
    const target = request.split(' ')[1] ?? '/';
    const path = target.startsWith('/') ? target : '/';
    const res = await rawExchange(
      ctx.server.baseUrl,
      request.split(' ')[0] ?? 'GET',
      path,
      Buffer.from(request),
    );
    expect(res.status).toBe(status);
    expect(res.json?.error?.code).toBe('invalid_input');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('needs no Host from HTTP/1.0, and ignores its expectations', async () => {
    const request = 'GET /healthz HTTP/1.0\r\nExpect: foo\r\n\r\n';
    expect((await rawExchange(ctx.server.baseUrl, 'GET', '/healthz', Buffer.from(request))).status).toBe(200);
  });

  it.each([
    ['GET', '/nope'],
    ['GET', '/api/v1/nope'],
    ['POST', '/api/v2/compress'],
    // Routes are exact: no case folding, no trailing-slash aliases.
    ['GET', '/API/V1/LANGUAGES'],
    ['GET', '/Healthz'],
    ['GET', '/healthz/'],
    ['POST', '/api/v1/split/'],
    ['GET', '/api/v1/languages/'],
    ['GET', '/docs/'],
    ['GET', '/docs/swagger-ui.css/'],
    ['GET', '/openapi.json/'],
  ])('%s %s is a 404 not_found envelope', async (method, path) => {
    // With a valid key, so that a route matching loosely would answer 200 rather than 401.
    exactRoutesKey ??= await ctx.server.createKey({ user: 'exact-routes' });
    const res = await ctx.call(path, { method, key: exactRoutesKey });
    expect(res.status).toBe(404);
  });

  it.each([
    ['GET', '/api/v1/merge'],
    ['PUT', '/api/v1/compress'],
    ['DELETE', '/api/v1/split'],
    ['POST', '/healthz'],
    ['POST', '/api/get-pdf.php'],
  ])('%s %s is a 405 method_not_allowed envelope', async (method, path) => {
    const res = await ctx.call(path, method === 'GET' ? { method } : { method, body: '' });
    expect(res.status).toBe(405);
  });

  it('gives each response its own request id', async () => {
    const ids = await Promise.all([1, 2, 3].map(async () => (await ctx.call('/healthz')).requestId));
    expect(new Set(ids).size).toBe(3);
  });
});
