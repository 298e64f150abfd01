// The shared backends behind PgBouncer in transaction mode (README, "Connections to PostgreSQL"): an
// API process and a worker, each with its own pool, share two server connections, one transaction at
// a time on whichever is free. Nothing pdn does may depend on meeting the same server connection
// twice: the calls below run migrations, key checks, a user's concurrent submissions (under a
// transaction-level advisory lock), jobs handed to the worker, and a revocation. Debian's PgBouncer is
// 1.18, which cannot carry named statements between server connections, so the processes run with
// PDN_DATABASE_PREPARED_STATEMENTS=false. Skips, saying why, without PostgreSQL, Redis or PgBouncer.
import { randomBytes } from 'node:crypto';
import type { MergeResponse, MergeResult } from '@pdn/api-types';
import { labelledPdf } from '@pdn/fixtures';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './contract/checked-fetch.js';
import { pageCount } from './harness/download.js';
import { file, form } from './harness/form.js';
import { type Caller, submitJob, waitForJob } from './harness/jobs.js';
import { type PgBouncer, pgbouncerMissing, startPgBouncer } from './harness/pgbouncer.js';
import { startServer, type TestServer } from './harness/server.js';
import {
  type SharedServices,
  sharedServicesMissing,
  startSharedServices,
} from './harness/shared-services.js';

const missing = (await sharedServicesMissing()) ?? pgbouncerMissing();
/** PgBouncer's server connections for the whole deployment. */
const SERVER_CONNECTIONS = 2;
/** One user's synchronous calls sent at once. */
const CALLS = 12;

/** The most server connections to `database` seen while it runs, sampled every 20 ms. */
class ConnectionWatch {
  most = 0;
  #stopped = false;
  readonly #done: Promise<void>;

  constructor(adminUrl: string, database: string) {
    this.#done = this.#watch(adminUrl, database);
  }

  async #watch(adminUrl: string, database: string): Promise<void> {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      while (!this.#stopped) {
        const { rows } = await client.query<{ n: string }>(
          'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1',
          [database],
        );
        this.most = Math.max(this.most, Number(rows[0]?.n ?? 0));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await client.end();
    }
  }

  stop(): Promise<void> {
    this.#stopped = true;
    return this.#done;
  }
}

describe.skipIf(missing !== undefined)('the shared backends behind PgBouncer in transaction mode', () => {
  let services: SharedServices;
  let bouncer: PgBouncer;
  let api: TestServer;
  let worker: TestServer;
  let watch: ConnectionWatch;
  let parts: [Uint8Array, Uint8Array];

  beforeAll(async () => {
    services = await startSharedServices();
    const direct = services.directEnv.PDN_DATABASE_URL as string;
    const admin = new URL(direct);
    admin.pathname = '/postgres';
    watch = new ConnectionWatch(admin.toString(), new URL(direct).pathname.slice(1));
    bouncer = await startPgBouncer(direct, SERVER_CONNECTIONS);
    const env = {
      ...services.env,
      PDN_DATABASE_URL: bouncer.through(direct),
      PDN_DATABASE_PREPARED_STATEMENTS: 'false',
      PDN_SIGNING_SECRET: randomBytes(32).toString('hex'),
    };
    api = await startServer({ env, role: 'api' });
    worker = await startServer({ env, role: 'worker' });
    parts = [await labelledPdf('a', 2), await labelledPdf('b', 1)];
  }, 90_000);

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await watch?.stop();
    await bouncer?.stop();
    await services?.stop();
  }, 60_000);

  const through: Caller = { call: (path, options) => call(api.baseUrl, path, options) };
  const merge = () => form(file('files[]', parts[0], 'a.pdf'), file('files[]', parts[1], 'b.pdf'));

  it(`answers ${CALLS} simultaneous synchronous calls of one user, each with its output`, async () => {
    const key = await api.createKey({ user: 'crowd', plan: 'premium' });
    const answers = await Promise.all(
      Array.from({ length: CALLS }, () =>
        call<MergeResponse>(api.baseUrl, '/api/v1/merge', { key, body: merge() }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(CALLS).fill(200));
    for (const answer of answers) {
      const output = await call(api.baseUrl, answer.json.data.download.url);
      expect(await pageCount(output.bytes)).toBe(3);
    }
  });

  it('runs a job submitted with Prefer: respond-async on the worker', async () => {
    const key = await api.createKey({ user: 'async', plan: 'premium' });
    const job = await submitJob(through, key, '/api/v1/merge', merge());
    const ended = await waitForJob(through, key, job.id);
    expect(ended).toMatchObject({ status: 'succeeded', attempts: 1 });
    const output = await call(api.baseUrl, (ended.result as MergeResult).download.url);
    expect(await pageCount(output.bytes)).toBe(3);
  });

  it('refuses a key on the request after its revocation', async () => {
    const key = await api.createKey({ user: 'leaver', plan: 'free' });
    expect((await call(api.baseUrl, '/api/v1/account', { key })).status).toBe(200);
    expect((await call(api.baseUrl, '/api/v1/account/key', { key, method: 'DELETE' })).status).toBe(200);
    expect((await call(api.baseUrl, '/api/v1/account', { key })).status).toBe(401);
  });

  it(`never had more than ${SERVER_CONNECTIONS} server connections for both processes`, () => {
    expect(watch.most).toBeGreaterThan(0);
    expect(watch.most).toBeLessThanOrEqual(SERVER_CONNECTIONS);
  });
});
