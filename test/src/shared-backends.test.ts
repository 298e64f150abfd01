// Two server processes on the same PostgreSQL, Redis and S3 bucket: limits, keys, outputs
// and jobs hold across both, and a service going away answers 503 service_unavailable
// (never unlimited admission, never a crash) until it is back. The services are cut at a TCP proxy,
// never stopped: the machine's PostgreSQL and Redis serve other runs too. Skips, saying why, without
// PostgreSQL or Redis (.ci/run installs and starts both).
import { randomBytes } from 'node:crypto';
import type { MergeResult } from '@pdn/api-types';
import { labelledPdf } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallResult, call } from './contract/checked-fetch.js';
import { pageCount } from './harness/download.js';
import { field, file, form } from './harness/form.js';
import { type Caller, getJob, submitJob, waitForJob } from './harness/jobs.js';
import { startServer, type TestServer } from './harness/server.js';
import {
  type SharedServices,
  sharedServicesMissing,
  startSharedServices,
} from './harness/shared-services.js';

const missing = await sharedServicesMissing();

function isJsonLine(line: string): boolean {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
}

describe.skipIf(missing !== undefined)('two servers on shared backends', () => {
  let services: SharedServices;
  let servers: TestServer[] = [];
  let onePage: Uint8Array;

  beforeAll(async () => {
    services = await startSharedServices();
    // Every process of a deployment signs download URLs with the same secret.
    const env = { ...services.env, PDN_SIGNING_SECRET: randomBytes(32).toString('hex') };
    servers = [await startServer({ env }), await startServer({ env })];
    onePage = await labelledPdf('p', 1);
  }, 60_000);

  afterAll(async () => {
    for (const server of servers) await server.stop();
    await services?.stop();
  });

  const [a, b] = [() => servers[0] as TestServer, () => servers[1] as TestServer];
  const caller = (server: TestServer): Caller => ({
    call: (path, options) => call(server.baseUrl, path, options),
  });

  /** A call that counts against the limit: a split of a one-page PDF. */
  function split(server: TestServer, key: string): Promise<CallResult<{ error?: { code: string } }>> {
    return call(server.baseUrl, '/api/v1/split', {
      key,
      body: form(file('file', onePage), field('ranges', '1')),
    });
  }

  function account(server: TestServer, key: string): Promise<CallResult<{ error?: { code: string } }>> {
    return call(server.baseUrl, '/api/v1/account', { key });
  }

  it('admits exactly 10 of 50 simultaneous requests of one Free user, spread over both', async () => {
    const key = await a().createKey({ user: 'free-burst', plan: 'free' });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => split(i % 2 === 0 ? a() : b(), key)),
    );
    const statuses = results.map((result) => result.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40);
  });

  it('shows its PostgreSQL pool and Redis connection on GET /metrics, and its role on /readyz', async () => {
    const metrics = await call(a().baseUrl, '/metrics');
    const text = metrics.bytes.toString('utf8');
    expect(text).toMatch(/^pdn_postgres_pool_clients\{state="idle"\} \d+$/m);
    expect(text).toMatch(/^pdn_postgres_pool_waiting \d+$/m);
    expect(text).toMatch(/^pdn_redis_connection\{status="ready"\} 1$/m);
    const ready = await call<{ data: { role: string } }>(a().baseUrl, '/readyz');
    expect(ready.json.data.role).toBe('all');
  });

  it('refuses on one server a key revoked through the other, on the very next request', async () => {
    const key = await a().createKey({ user: 'revoked', plan: 'premium' });
    expect((await account(b(), key)).status).toBe(200);
    const [id] = await a().keyIds('revoked');
    await a().revokeKey(id ?? '');
    expect((await account(b(), key)).status).toBe(401);
  });

  it('serves through one server an output made through the other', async () => {
    const key = await a().createKey({ user: 'outputs', plan: 'premium' });
    const merged = await call<{ data: { download: { url: string }; page_count: number } }>(
      a().baseUrl,
      '/api/v1/merge',
      {
        key,
        body: form(
          file('files[]', await labelledPdf('a', 2), 'a.pdf'),
          file('files[]', await labelledPdf('b', 3), 'b.pdf'),
        ),
      },
    );
    expect(merged.status).toBe(200);
    const downloaded = await call(b().baseUrl, merged.json.data.download.url);
    expect(downloaded.status).toBe(200);
    expect(await pageCount(downloaded.bytes)).toBe(5);
  });

  it('runs a job submitted with Prefer: respond-async, read and downloaded through the other server', async () => {
    const key = await a().createKey({ user: 'async-jobs', plan: 'premium' });
    const body = form(
      file('files[]', await labelledPdf('a', 2), 'a.pdf'),
      file('files[]', await labelledPdf('b', 3), 'b.pdf'),
    );
    const job = await submitJob(caller(a()), key, '/api/v1/merge', body);
    expect(job.status).toBe('queued');
    expect(await waitForJob(caller(a()), key, job.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    const read = await getJob(caller(b()), key, job.id);
    expect(read).toMatchObject({ status: 'succeeded', expired: false });
    const downloaded = await call(b().baseUrl, (read.result as MergeResult).download.url);
    expect(downloaded.status).toBe(200);
    expect(await pageCount(downloaded.bytes)).toBe(5);
  });

  /** Polls `attempt` until it answers `status`, for up to 15 s. */
  async function until(
    status: number,
    attempt: () => Promise<CallResult<unknown>>,
  ): Promise<CallResult<unknown>> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const result = await attempt();
      if (result.status === status || Date.now() > deadline) return result;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  for (const service of ['redis', 'postgres'] as const) {
    it(`answers 503 without rate-limit headers, and /readyz 503, while ${service} is cut, and recovers when it is back`, async () => {
      const key = await a().createKey({ user: `cut-${service}`, plan: 'free' });
      expect((await split(a(), key)).status).toBe(200);
      services[service].cut();
      try {
        for (const server of [a(), b()]) {
          const refused = (await split(server, key)) as CallResult<{ error: { code: string } }>;
          expect(refused.status).toBe(503);
          expect(refused.json.error.code).toBe('service_unavailable');
          expect(refused.headers.get('x-ratelimit-limit')).toBeNull();
          expect(refused.headers.get('ratelimit')).toBeNull();
          // Not ready either, naming what fails: a balancer sends the traffic elsewhere.
          const ready = (await call(server.baseUrl, '/readyz')) as CallResult<{ error: { message: string } }>;
          expect(ready.status).toBe(503);
          expect(ready.json.error.message).toContain(service === 'redis' ? 'rate_limits' : 'database');
        }
      } finally {
        services[service].restore();
      }
      for (const server of [a(), b()]) expect((await until(200, () => split(server, key))).status).toBe(200);
      for (const server of [a(), b()])
        expect((await until(200, () => call(server.baseUrl, '/readyz'))).status).toBe(200);
      for (const server of [a(), b()]) expect(server.exit).toBeUndefined();
      // The outage went into the log as log lines, never as a client library's raw output.
      for (const server of [a(), b()]) {
        const raw = server.log.split('\n').filter((line) => line !== '' && !isJsonLine(line));
        expect([...new Set(raw.map((line) => line.slice(0, 60)))]).toEqual([]);
      }
      // Nothing was admitted while the service was away: 3 of the Free 10 used.
      expect((await account(a(), key)).headers.get('x-ratelimit-remaining')).toBe('7');
    });
  }
});

describe.skipIf(missing !== undefined)('moving from embedded to shared', () => {
  let services: SharedServices | undefined;
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await services?.stop();
  });

  it('copies the users, plans and keys of a data folder into PostgreSQL, where the keys work', async () => {
    const embedded = await startServer();
    servers.push(embedded);
    const key = await embedded.createKey({ user: 'moved', plan: 'business' });
    const revoked = await embedded.createKey({ user: 'moved', plan: 'business' });
    const ids = await embedded.keyIds('moved');
    await embedded.revokeKey(ids[1] ?? '');
    await embedded.kill();

    services = await startSharedServices();
    const env = { ...services.env, PDN_SIGNING_SECRET: randomBytes(32).toString('hex') };
    const copied = await embedded.admin(['accounts', 'copy', '--from', embedded.dataDir], { env });
    expect(copied.stderr).toBe('');
    // The first start's dev user and ours.
    expect(copied.stdout).toMatch(/^Copied 2 users and 3 API keys from .* into PostgreSQL\.$/m);
    expect((await embedded.admin(['accounts', 'copy', '--from', embedded.dataDir], { env })).stderr).toMatch(
      /already has 2 users; copy into an empty one/,
    );

    const shared = await startServer({ env });
    servers.push(shared);
    const answer = await call<{ data: { plan: string } }>(shared.baseUrl, '/api/v1/account', { key });
    expect(answer.status).toBe(200);
    expect(answer.json.data.plan).toBe('business');
    expect((await call(shared.baseUrl, '/api/v1/account', { key: revoked })).status).toBe(401);
  });
});
