// The drain of a stopping server, over a real listener: requests in flight finish,
// new ones are refused with the 503 envelope, a cut-off answers what is still running with 503 and
// aborts its signal, and every answer given while draining closes its connection; before that, once
// the stop is announced (the drain delay), requests are still served on closing connections.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { Drain } from './drain.js';
import { errorEnvelope } from './middleware/error-envelope.js';
import { requestId } from './middleware/request-id.js';
import type { AppState } from './state.js';

let drain: Drain;
let server: Server;
let base: string;
/** Resolves the route's wait; set by each request. */
let release: () => void;
let started: Promise<AbortSignal | undefined>;
let markStarted: (signal: AbortSignal | undefined) => void;

beforeEach(async () => {
  drain = new Drain();
  started = new Promise((resolve) => {
    markStarted = resolve;
  });
  const app = new Koa<AppState>();
  const log = createLogger('quiet');
  app.use(requestId(log));
  app.use(errorEnvelope(log));
  app.use(drain.middleware());
  app.use(async (ctx) => {
    markStarted(ctx.state.shutdown);
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    ctx.body = { data: 'done' };
  });
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

type Body = { data?: string; error?: { code: string; retry_after_seconds?: number } };

async function answer(
  res: Promise<Response>,
): Promise<{ status: number; connection: string | null; body: Body }> {
  const response = await res;
  return {
    status: response.status,
    connection: response.headers.get('connection'),
    body: (await response.json()) as Body,
  };
}

describe('Drain', () => {
  it('lets a request in flight finish, and closes its connection', async () => {
    const pending = answer(fetch(base));
    await started;
    drain.begin();
    const idle = drain.idle();
    release();
    expect(await pending).toEqual({ status: 200, connection: 'close', body: { data: 'done' } });
    await idle;
  });

  it('serves a request that arrives once the stop is announced, closing its connection', async () => {
    drain.announce();
    expect(drain.announced).toBe(true);
    const pending = answer(fetch(base));
    await started;
    release();
    expect(await pending).toEqual({ status: 200, connection: 'close', body: { data: 'done' } });
  });

  it('refuses a request that arrives while draining with the 503 envelope', async () => {
    drain.begin();
    const { status, connection, body } = await answer(fetch(base));
    expect({ status, connection }).toEqual({ status: 503, connection: 'close' });
    expect(body.error).toMatchObject({ code: 'service_unavailable', retry_after_seconds: 5 });
    await drain.idle();
  });

  it('answers what is still running at the cut-off with 503 and aborts its signal', async () => {
    const pending = answer(fetch(base));
    const signal = await started;
    drain.begin();
    drain.cutOff();
    const { status, body } = await pending;
    expect(status).toBe(503);
    expect(body.error?.code).toBe('service_unavailable');
    expect(signal?.aborted).toBe(true);
    await drain.idle();
    release();
  });

  it('is idle at once with nothing in flight', async () => {
    await expect(drain.idle()).resolves.toBeUndefined();
  });
});
