// `pdn-server start --role api|worker` (issue #16, first slice): two API processes and a worker on the
// shared backends and one data folder. Jobs submitted through either API process run in the worker;
// synchronous calls are answered by the API process that took them, asynchronous jobs are read
// through either. Skips, saying why, without PostgreSQL or Redis (.ci/run installs and starts both).
import { randomBytes } from 'node:crypto';
import type { MergeResult, SplitResult } from '@pdn/api-types';
import { labelledPdf } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './contract/checked-fetch.js';
import { pageCount } from './harness/download.js';
import { field, file, form } from './harness/form.js';
import { type Caller, submitJob, waitForJob } from './harness/jobs.js';
import { startServer, type TestServer } from './harness/server.js';
import {
  type SharedServices,
  sharedServicesMissing,
  startSharedServices,
} from './harness/shared-services.js';

const missing = await sharedServicesMissing();

describe.skipIf(missing !== undefined)('API processes and a worker (--role)', () => {
  let services: SharedServices;
  let processes: TestServer[] = [];

  beforeAll(async () => {
    services = await startSharedServices();
    const env = { ...services.env, PDN_SIGNING_SECRET: randomBytes(32).toString('hex') };
    const first = await startServer({ env, role: 'api' });
    processes = [
      first,
      await startServer({ env, role: 'api', dataDir: first.dataDir }),
      await startServer({ env, role: 'worker', dataDir: first.dataDir }),
    ];
  }, 90_000);

  afterAll(async () => {
    for (const process of processes.reverse()) await process.stop();
    await services?.stop();
  });

  const [a, b] = [() => processes[0] as TestServer, () => processes[1] as TestServer];
  const caller = (server: TestServer): Caller => ({
    call: (path, options) => call(server.baseUrl, path, options),
  });

  it('says its role on /healthz', async () => {
    const health = await call<{ data: { role: string } }>(a().baseUrl, '/healthz');
    expect(health.status).toBe(200);
    expect(health.json.data.role).toBe('api');
  });

  it.each([
    ['A', a],
    ['B', b],
  ])('answers a synchronous split through API %s, run by the worker', async (_, api) => {
    const key = await a().createKey({ user: `sync-${_}`, plan: 'premium' });
    const split = await call<{ data: SplitResult }>(api().baseUrl, '/api/v1/split', {
      key,
      body: form(file('file', await labelledPdf('p', 3)), field('ranges', '1,3')),
    });
    expect(split.status).toBe(200);
    expect(split.json.data.parts).toHaveLength(2);
  });

  it('answers a synchronous failure with the status and code the worker recorded', async () => {
    const key = await a().createKey({ user: 'sync-failure', plan: 'premium' });
    const split = await call<{ error: { code: string } }>(b().baseUrl, '/api/v1/split', {
      key,
      body: form(file('file', await labelledPdf('p', 2)), field('ranges', '5')),
    });
    expect(split.status).toBe(400);
    expect(split.json.error.code).toBe('invalid_input');
  });

  it('runs a job submitted through API A, read and downloaded through API B', async () => {
    const key = await a().createKey({ user: 'async', plan: 'premium' });
    const body = form(
      file('files[]', await labelledPdf('a', 2), 'a.pdf'),
      file('files[]', await labelledPdf('b', 3), 'b.pdf'),
    );
    const job = await submitJob(caller(a()), key, '/api/v1/merge', body);
    const done = await waitForJob(caller(b()), key, job.id);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1 });
    const downloaded = await call(b().baseUrl, (done.result as MergeResult).download.url);
    expect(await pageCount(downloaded.bytes)).toBe(5);
  });

  it.each([
    ['api', 'needs the shared backends'],
    ['worker', 'needs the shared backends'],
    ['nope', 'must be one of all, api, worker'],
  ])('refuses --role %s on the embedded backends with exit 2', async (role, says) => {
    const embedded = Object.fromEntries(Object.keys(services.env).map((name) => [name, '']));
    const result = await a().admin(['start', '--role', role], { env: embedded });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(says);
  });
});
