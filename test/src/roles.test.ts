// `pdn-server start --role api|worker` : two API processes and a worker on the
// shared backends and one data folder. Jobs submitted through either API process run in the worker;
// synchronous calls (a split, an OCR) are answered by the API process that took them, asynchronous
// jobs are read through either; each API process holds a user's synchronous calls in progress to the
// plan's number. The worker serves /healthz, /readyz and /metrics on its own port, and nothing else.
// Skips, saying why, without PostgreSQL or Redis (.ci/run installs and starts both).
import { randomBytes } from 'node:crypto';
import type { MergeResult, OcrResponse, SplitResult } from '@pdn/api-types';
import { characterErrorRate, embeddedFontPdf, labelledPdf, ocrSample, pageLabels } from '@pdn/fixtures';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './contract/checked-fetch.js';
import { pageCount } from './harness/download.js';
import { field, file, form } from './harness/form.js';
import { HOLDING_ENV, holdAPlace } from './harness/hold-a-place.js';
import { type Caller, submitJob, waitForJob } from './harness/jobs.js';
import { startServer, type TestServer } from './harness/server.js';
import {
  type SharedServices,
  sharedServicesMissing,
  startSharedServices,
} from './harness/shared-services.js';

const missing = await sharedServicesMissing();
const METRICS_TOKEN = 'worker-metrics-token';
/** As ocr.test.ts: a clean render read by a working engine. */
const MAX_CER = 0.05;

describe.skipIf(missing !== undefined)('API processes and a worker (--role)', () => {
  let services: SharedServices;
  let processes: TestServer[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    services = await startSharedServices();
    env = { ...services.env, PDN_SIGNING_SECRET: randomBytes(32).toString('hex') };
    const first = await startServer({ env, role: 'api' });
    processes = [
      first,
      await startServer({ env, role: 'api', dataDir: first.dataDir }),
      await startServer({
        env: { ...env, PDN_METRICS_TOKEN: METRICS_TOKEN },
        role: 'worker',
        dataDir: first.dataDir,
      }),
    ];
  }, 90_000);

  afterAll(async () => {
    for (const process of processes.reverse()) await process.stop();
    await services?.stop();
  });

  const [a, b] = [() => processes[0] as TestServer, () => processes[1] as TestServer];
  const worker = () => processes[2] as TestServer;
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

  it('answers a synchronous OCR taken by API B with the text the worker’s engine read', async () => {
    const key = await a().createKey({ user: 'ocr', plan: 'premium' });
    const sample = await ocrSample('eng', 'png');
    const read = await call<OcrResponse>(b().baseUrl, '/api/v1/ocr', {
      key,
      body: form(file('image', sample.bytes, 'eng.png'), field('language', 'eng')),
    });
    expect(read.status).toBe(200);
    expect(characterErrorRate(sample.text, read.json.data.text)).toBeLessThan(MAX_CER);
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

  it('carries a job of small files in its row, not the bucket, and forgets them once it ends', async () => {
    const key = await a().createKey({ user: 'inline', plan: 'premium' });
    const smallJob = async (label: string) =>
      submitJob(
        caller(a()),
        key,
        '/api/v1/merge',
        form(
          file('files[]', await labelledPdf(`${label}-a`, 1), 'a.pdf'),
          file('files[]', await labelledPdf(`${label}-b`, 2), 'b.pdf'),
        ),
      );
    const inputsBefore = services.bucketWritten('inputs/');
    const small = await waitForJob(caller(b()), key, (await smallJob('s')).id);
    expect(small).toMatchObject({ status: 'succeeded', attempts: 1 });
    const merged = await call(b().baseUrl, (small.result as MergeResult).download.url);
    expect(await pageLabels(merged.bytes)).toEqual(['s-a-1', 's-b-1', 's-b-2']);
    expect(services.bucketWritten('inputs/')).toBe(inputsBefore);
    // Over the limit: through the bucket, as before.
    const large = await submitJob(
      caller(a()),
      key,
      '/api/v1/merge',
      form(
        file('files[]', await embeddedFontPdf({ pages: 20 }), 'fonts.pdf'),
        file('files[]', await labelledPdf('l', 1), 'l.pdf'),
      ),
    );
    expect(await waitForJob(caller(b()), key, large.id)).toMatchObject({ status: 'succeeded' });
    expect(services.bucketWritten('inputs/')).toBeGreaterThan(inputsBefore);
    const db = new pg.Client({ connectionString: env.PDN_DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT inline_inputs FROM jobs WHERE id = ANY($1)', [
        [small.id, large.id],
      ]);
      expect(rows).toEqual([{ inline_inputs: null }, { inline_inputs: null }]);
    } finally {
      await db.end();
    }
  });

  it('keeps a small output in the database, not the bucket, for either API process to serve', async () => {
    const key = await a().createKey({ user: 'small-output', plan: 'premium' });
    const merge = async (files: [Uint8Array, Uint8Array]) =>
      call<{ data: MergeResult }>(a().baseUrl, '/api/v1/merge', {
        key,
        body: form(file('files[]', files[0], 'a.pdf'), file('files[]', files[1], 'b.pdf')),
      });
    const outputsBefore = services.bucketWritten('outputs/');
    const small = await merge([await labelledPdf('o-a', 1), await labelledPdf('o-b', 1)]);
    expect(small.status).toBe(200);
    expect(services.bucketWritten('outputs/')).toBe(outputsBefore);
    for (const api of [a, b]) {
      const downloaded = await call(api().baseUrl, small.json.data.download.url);
      expect(downloaded.status).toBe(200);
      expect(downloaded.bytes.length).toBe(small.json.data.size);
      expect(await pageLabels(downloaded.bytes)).toEqual(['o-a-1', 'o-b-1']);
    }
    // Over the limit: through the bucket, as before.
    const large = await merge([await embeddedFontPdf({ pages: 20 }), await labelledPdf('l', 1)]);
    expect(large.status).toBe(200);
    expect(large.json.data.size).toBeGreaterThan(128 * 1024);
    expect(services.bucketWritten('outputs/')).toBeGreaterThan(outputsBefore);
    const downloaded = await call(b().baseUrl, large.json.data.download.url);
    expect(await pageCount(downloaded.bytes)).toBe(21);
  });

  it('serves the worker’s own figures, role and readiness on its port, behind PDN_METRICS_TOKEN', async () => {
    const key = await a().createKey({ user: 'watched', plan: 'premium' });
    const split = await call(a().baseUrl, '/api/v1/split', {
      key,
      body: form(file('file', await labelledPdf('p', 2)), field('ranges', '1')),
    });
    expect(split.status).toBe(200);
    expect((await call(worker().baseUrl, '/metrics')).status).toBe(401);
    const metrics = await call(worker().baseUrl, '/metrics', {
      headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(metrics.status).toBe(200);
    const text = metrics.bytes.toString('utf8');
    expect(text).toContain('pdn_role_info{role="worker"} 1');
    expect(text).toMatch(
      /^pdn_jobs_finished_total\{operation="split",[^}]*outcome="succeeded"[^}]*\} [1-9]/m,
    );
    // The API process stored the job; the worker ran it, so only the worker counted it.
    const apiMetrics = (await call(a().baseUrl, '/metrics')).bytes.toString('utf8');
    expect(apiMetrics).not.toMatch(/^pdn_jobs_finished_total\{operation="split"/m);
    const ready = await call<{ data: { status: string; role: string } }>(worker().baseUrl, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json.data).toEqual({ status: 'ready', role: 'worker' });
    const health = await call<{ data: { role: string } }>(worker().baseUrl, '/healthz');
    expect(health.json.data.role).toBe('worker');
  });

  it('answers every other path on the worker’s port 404 with the envelope', async () => {
    expect((await call(worker().baseUrl, '/nothing-here')).status).toBe(404);
    // These paths are operations of an API process, so the checked call() would expect their
    // answers there; on a worker the contract's "Unknown routes" says 404, read here as it comes.
    const key = await a().createKey({ user: 'misdirected', plan: 'premium' });
    for (const [method, path] of [
      ['GET', '/api/v1/languages'],
      ['POST', '/api/v1/merge'],
      ['GET', '/docs'],
      ['GET', '/account'],
      ['GET', '/openapi.json'],
    ] as const) {
      const answer = await fetch(`${worker().baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}` },
        ...(method === 'POST' ? { body: form(file('files[]', await labelledPdf('a', 1))) } : {}),
      });
      const body = (await answer.json()) as { error: { code: string; message: string } };
      expect([path, answer.status, body.error.code]).toEqual([path, 404, 'not_found']);
      expect(body.error.message).toContain('worker');
      expect(answer.headers.get('x-request-id')).toMatch(/\S/);
      expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it("holds a user's synchronous calls in progress to the plan's number in each API process", async () => {
    const bounded = await startServer({ env: { ...env, ...HOLDING_ENV }, role: 'api', dataDir: a().dataDir });
    processes.push(bounded);
    const key = await a().createKey({ user: 'bounded', plan: 'premium' });
    // Premium: 20 calls in progress at once (plans.ts), each holding its upload half sent.
    const holders = [];
    for (let i = 0; i < 20; i += 1) holders.push(await holdAPlace(bounded.baseUrl, key));
    try {
      const busy = await call<{ error: { code: string; message: string } }>(
        bounded.baseUrl,
        '/api/v1/split',
        {
          key,
          body: form(file('file', await labelledPdf('p', 2)), field('ranges', '1')),
        },
      );
      expect(busy.status).toBe(503);
      expect(busy.json.error.code).toBe('server_busy');
      expect(busy.json.error.message).toMatch(/20 synchronous calls in progress; the Premium plan allows 20/);
      // Another API process counts its own.
      const split = await call(b().baseUrl, '/api/v1/split', {
        key,
        body: form(file('file', await labelledPdf('p', 2)), field('ranges', '1')),
      });
      expect(split.status).toBe(200);
    } finally {
      for (const holder of holders) holder.destroy();
    }
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
