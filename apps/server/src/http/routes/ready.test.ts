// GET /readyz answers 503 naming what fails, over a real listener: a database that does not
// answer, a full data folder, a tool gone since the start, and a stop announced (the drain delay).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import type { Accounts } from '../../accounts/index.js';
import { createLogger } from '../../logger.js';
import { errorEnvelope } from '../middleware/error-envelope.js';
import { requestId } from '../middleware/request-id.js';
import type { AppState } from '../state.js';
import { readyRoute } from './ready.js';

async function ask(
  database: () => Promise<number>,
  full: boolean,
  tools: readonly string[] = [],
  announced = false,
) {
  const accounts = {
    users: { count: database },
    rateLimiter: { usage: async () => ({}) },
  } as unknown as Accounts;
  const app = new Koa<AppState>();
  app.use(requestId(createLogger('quiet')));
  app.use(errorEnvelope(createLogger('quiet')));
  app.use(
    readyRoute({
      accounts,
      storage: { isFull: async () => full },
      dataDir: tmpdir(),
      role: 'all',
      tools,
      drain: { announced },
    }),
  );
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`);
    return {
      status: res.status,
      body: (await res.json()) as { data?: { role: string }; error?: { code: string; message: string } },
    };
  } finally {
    server.close();
  }
}

describe('readyRoute', () => {
  it('answers 200 naming its role when every check passes', async () => {
    const { status, body } = await ask(async () => 1, false, [process.execPath]);
    expect(status).toBe(200);
    expect(body.data?.role).toBe('all');
  });

  it('answers 503 service_unavailable naming the database when it does not answer', async () => {
    const { status, body } = await ask(() => Promise.reject(new Error('ECONNREFUSED')), false);
    expect(status).toBe(503);
    expect(body.error?.code).toBe('service_unavailable');
    expect(body.error?.message).toBe('Not ready: database failing; try again shortly.');
  });

  it('answers 503 naming the data folder when it is full', async () => {
    const { status, body } = await ask(async () => 1, true);
    expect(status).toBe(503);
    expect(body.error?.message).toMatch(/^Not ready: data_folder failing/);
  });

  it('answers 503 naming the tools when one its engines were started with is gone', async () => {
    const { status, body } = await ask(async () => 1, false, [process.execPath, '/nonexistent/qpdf']);
    expect(status).toBe(503);
    expect(body.error?.message).toBe('Not ready: tools failing; try again shortly.');
  });

  it('answers 503 once the stop is announced, every check passing', async () => {
    const { status, body } = await ask(async () => 1, false, [], true);
    expect(status).toBe(503);
    expect(body.error?.message).toMatch(/^Not ready: the server is shutting down/);
  });
});
