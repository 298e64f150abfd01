// The CORS policy over a real listener: the middleware with the error envelope and the
// request id around a few stand-in routes, so error answers are checked as well as successes.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CorsOrigins } from '../../config.js';
import { RateLimitedError, UnauthorizedError } from '../../errors.js';
import { createLogger } from '../../logger.js';
import { createHttpServer } from '../http-server.js';
import type { AppState } from '../state.js';
import { CORS_EXPOSED_HEADERS, cors } from './cors.js';
import { errorEnvelope } from './error-envelope.js';
import { requestId } from './request-id.js';
import { unmatched } from './unmatched.js';

const page = 'http://app.example';

function app(origins: CorsOrigins): Koa<AppState> {
  const koa = new Koa<AppState>();
  koa.use(requestId(createLogger('quiet')));
  koa.use(cors(origins));
  koa.use(errorEnvelope(createLogger('quiet')));
  const router = new Router<AppState>();
  router.post('/api/v1/languages', (ctx) => {
    ctx.body = { data: {} };
  });
  router.post('/api/v1/compress', () => {
    throw new UnauthorizedError('no key');
  });
  router.post('/api/v1/merge', () => {
    throw new RateLimitedError('slow down', { headers: { 'Retry-After': '60' } });
  });
  router.get('/docs', (ctx) => {
    ctx.body = 'docs';
  });
  koa.use(router.routes());
  koa.use(unmatched());
  return koa;
}

const servers: Server[] = [];
async function listen(origins: CorsOrigins): Promise<string> {
  const server = createHttpServer(app(origins), createLogger('quiet'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

function preflight(base: string, path: string, origin = page): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization',
    },
  });
}

describe('CORS with listed origins', () => {
  let base = '';
  beforeAll(async () => {
    base = await listen([page, 'http://other.example:8080']);
  });

  it('answers a preflight from a listed origin with 204 and what may be sent', async () => {
    const response = await preflight(base, '/api/v1/compress');
    expect(response.status).toBe(204);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'access-control-allow-origin': page,
      'access-control-allow-methods': 'GET, HEAD, POST, DELETE',
      'access-control-allow-headers': 'Authorization, Content-Type, X-Request-Id, Prefer, Idempotency-Key',
      'access-control-max-age': '600',
      vary: 'Origin',
    });
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.has('access-control-allow-credentials')).toBe(false);
    expect(await response.text()).toBe('');
  });

  const table: Array<[string, { path: string; status: number }]> = [
    ['a success', { path: '/api/v1/languages', status: 200 }],
    ['a 401 error envelope', { path: '/api/v1/compress', status: 401 }],
    ['a 429 with Retry-After', { path: '/api/v1/merge', status: 429 }],
    ['a 404 for an unknown /api path', { path: '/api/v1/nothing', status: 404 }],
  ];
  it.each(table)('lets the page read %s and its headers', async (_name, { path, status }) => {
    const response = await fetch(`${base}${path}`, { method: 'POST', headers: { origin: page } });
    expect(response.status).toBe(status);
    expect(response.headers.get('access-control-allow-origin')).toBe(page);
    expect(response.headers.get('access-control-expose-headers')).toBe(CORS_EXPOSED_HEADERS);
    expect(response.headers.has('access-control-allow-credentials')).toBe(false);
  });

  it('exposes the ids, the rate-limit headers and Retry-After', () => {
    const exposed = CORS_EXPOSED_HEADERS.split(', ');
    for (const name of ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
      expect(exposed).toContain(name);
    expect(exposed).toContain('Retry-After');
    expect(exposed).toEqual(expect.arrayContaining(['Location', 'Preference-Applied']));
  });

  it('says nothing to an origin it does not list: the preflight is the usual 405', async () => {
    const response = await preflight(base, '/api/v1/compress', 'http://evil.example');
    expect(response.status).toBe(405);
    expect(response.headers.has('access-control-allow-origin')).toBe(false);
    expect(response.headers.get('vary')).toBe('Origin');
  });

  it('leaves paths outside /api alone', async () => {
    const response = await fetch(`${base}/docs`, { headers: { origin: page } });
    expect(response.status).toBe(200);
    expect(response.headers.has('access-control-allow-origin')).toBe(false);
    expect(response.headers.has('vary')).toBe(false);
  });
});

describe('CORS for any origin', () => {
  it('answers * and no Vary', async () => {
    const base = await listen('*');
    const response = await preflight(base, '/api/v1/ocr', 'http://anything.example');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.has('vary')).toBe(false);
  });
});

describe('CORS off (the default)', () => {
  it('adds nothing, and a preflight is the usual 405', async () => {
    const base = await listen([]);
    const response = await preflight(base, '/api/v1/compress');
    expect(response.status).toBe(405);
    expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const plain = await fetch(`${base}/api/v1/languages`, { method: 'POST', headers: { origin: page } });
    expect(plain.headers.has('access-control-allow-origin')).toBe(false);
  });
});
