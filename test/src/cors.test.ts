// CORS over real HTTP: a server started with PDN_CORS_ORIGINS answers an allowed page's
// preflights and lets it read the ids and rate-limit headers of its answers, errors included; a server
// without it, and any origin not listed, get what they got before. Every exchange is validated against
// the contract (openapi.yaml "Browsers (CORS)" and the `options` operations).
import { labelledPdf } from '@pdn/fixtures';
import { describe, expect, it } from 'vitest';
import { call } from './contract/checked-fetch.js';
import { file, form } from './harness/form.js';
import { useServer } from './harness/use-server.js';

const page = 'http://127.0.0.1:5173';
const ctx = useServer({ env: { PDN_CORS_ORIGINS: `${page},https://app.example.com` } });
const plain = useServer();

function preflight(method: string, origin = page) {
  return {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization',
    },
  };
}

describe('with PDN_CORS_ORIGINS', () => {
  it.each([
    ['/api/v1/compress', 'POST'],
    ['/api/v1/languages', 'GET'],
    ['/api/get-pdf.php', 'GET'],
  ])('answers the preflight of %s with 204, before authentication', async (path, method) => {
    const res = await ctx.call(path, preflight(method));
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(page);
    expect(res.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect(res.headers.get('vary')).toBe('Origin');
    expect(res.headers.has('x-ratelimit-limit')).toBe(false);
    expect(res.headers.has('access-control-allow-credentials')).toBe(false);
  });

  it('lets the page read the rate-limit headers and the request id of a compress', async () => {
    const key = await ctx.server.createKey({ user: 'page', plan: 'free' });
    const res = await ctx.call('/api/v1/compress', {
      key,
      headers: { origin: page },
      body: form(file('file', await labelledPdf('cors', 1))),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(page);
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(', ');
    for (const name of [
      'X-Request-Id',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
    ])
      expect(exposed).toContain(name);
  });

  it('marks error answers too, so the page can read why', async () => {
    const res = await ctx.call('/api/v1/languages', { headers: { origin: page } });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(page);
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });

  it('says nothing to an origin it does not list: 204 with Allow, which browsers read as a refusal', async () => {
    const res = await ctx.call('/api/v1/compress', preflight('POST', 'http://evil.example'));
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.headers.has('access-control-allow-origin')).toBe(false);
  });

  it('leaves /docs, /openapi.json and /healthz same-origin', async () => {
    for (const path of ['/healthz', '/openapi.json']) {
      const res = await ctx.call(path, { headers: { origin: page } });
      expect(res.headers.has('access-control-allow-origin')).toBe(false);
    }
  });
});

describe('without PDN_CORS_ORIGINS (the default)', () => {
  it.each([
    ['/api/v1/compress', 'POST'],
    ['/api/v1/languages', 'HEAD, GET'],
  ])('a preflight of %s is 204 with Allow and no Access-Control header, not a 405', async (path, allow) => {
    const res = await call(plain.server.baseUrl, path, preflight('POST'));
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe(allow);
    expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(res.headers.has('x-ratelimit-limit')).toBe(false);
  });

  it('a path it does not list is still 404, and another method 405', async () => {
    expect((await call(plain.server.baseUrl, '/api/v1/nothing', preflight('POST'))).status).toBe(404);
    expect((await call(plain.server.baseUrl, '/api/v1/compress', { method: 'PUT' })).status).toBe(405);
  });
});
