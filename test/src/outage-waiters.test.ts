// A synchronous call whose job ends while Redis or PostgreSQL is down is not forgotten. Its waiter, in
// the API process, looks at the job store for as long as it waits, and does not rely only on the
// worker's news of the end, which an outage can lose. So its caller gets the result, or a clean 5xx
// envelope, and the job is recorded once, with its output. The Redis and the PostgreSQL here are the
// test's own (own-services.ts), stopped and started again for real: this Redis comes back empty, as
// one without persistence does. The API process and the worker are two processes, as deployed.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CompressResponse, ErrorResponse, Job, JobListResponse } from '@pdn/api-types';
import { photoPdf } from '@pdn/fixtures';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './contract/checked-fetch.js';
import { download, pageCount } from './harness/download.js';
import { field, file, form } from './harness/form.js';
import { type OwnService, ownPostgres, ownRedis, ownServicesMissing } from './harness/own-services.js';
import { startServer, type TestServer } from './harness/server.js';
import { type SharedServices, startSharedServices } from './harness/shared-services.js';
import { until } from './harness/until.js';
import type { ServerContext } from './harness/use-server.js';

const missing = ownServicesMissing();
/** Photo pages compressed at `high`: a few seconds of work, time to stop a service mid-job. */
const PAGES = 6;
/**
 * The longest from a service's return to the answer: the waiter looks at the store every 2 s and the
 * worker offers a kept end every second, so seconds are enough; a forgotten waiter, or a job run again
 * from the start, takes far longer.
 */
const RETURN_TO_ANSWER_MS = 20_000;

/** `promise`, or a failure naming `what` once `ms` pass. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe.skipIf(missing !== undefined)('a synchronous call whose job ends while a backend is down', () => {
  let redis: OwnService;
  let postgres: OwnService;
  let services: SharedServices;
  let api: TestServer;
  let worker: TestServer;
  let photos: Uint8Array;

  beforeAll(async () => {
    [redis, postgres] = await Promise.all([ownRedis(), ownPostgres()]);
    services = await startSharedServices({ databaseUrl: postgres.url, redisUrl: redis.url });
    // At info, the worker's log tells when the job ends.
    const env = {
      ...services.env,
      PDN_SIGNING_SECRET: randomBytes(32).toString('hex'),
      PDN_LOG_LEVEL: 'info',
    };
    api = await startServer({ env, role: 'api' });
    worker = await startServer({ env, role: 'worker' });
    photos = await photoPdf({ pages: PAGES, seed: 3 });
  }, 180_000);

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await services?.stop();
    await Promise.all([redis?.remove(), postgres?.remove()]);
  }, 60_000);

  const through: ServerContext = {
    get server() {
      return api;
    },
    call: (path, options) => call(api.baseUrl, path, options),
  };

  /** The job of `user` that is running, read from the job store directly (the API may be cut off). */
  async function runningJob(user: string): Promise<string> {
    const db = new pg.Client({ connectionString: services.env.PDN_DATABASE_URL });
    await db.connect();
    try {
      let id: string | undefined;
      await until(
        `${user}'s job starts`,
        async () => {
          const { rows } = await db.query<{ id: string }>(
            `SELECT j.id FROM jobs j JOIN users u ON u.id = j.user_id
              WHERE u.name = $1 AND j.status = 'running'`,
            [user],
          );
          id = rows[0]?.id;
          return id !== undefined;
        },
        60_000,
      );
      return id as string;
    } finally {
      await db.end();
    }
  }

  /**
   * Whether the worker's log tells of job `id`'s end: recorded ("job ended"), or not ("could not be
   * ended"), or offered again until the store is back.
   */
  function endedOnWorker(id: string): boolean {
    return worker.log
      .split('\n')
      .some((line) => line.includes(id) && /job ended|could not be ended|offered again/.test(line));
  }

  for (const [name, service] of [
    ['Redis', () => redis],
    ['PostgreSQL', () => postgres],
  ] as const) {
    it(`answers it within seconds of ${name}'s return, and records the job once, with its output`, async () => {
      const user = `waiter-${name.toLowerCase()}`;
      const key = await api.createKey({ user, plan: 'premium' });
      const answer = call<CompressResponse | ErrorResponse>(api.baseUrl, '/api/v1/compress', {
        key,
        body: form(file('file', photos, 'photos.pdf'), field('level', 'high')),
      });
      const id = await runningJob(user);
      await service().stop();
      // The job ends on the worker while the service is away, and the outage goes on a moment: any
      // news of the end sent meanwhile is lost.
      await until(`job ${id} ends`, async () => endedOnWorker(id));
      await sleep(1000);
      await service().start();

      // Within seconds: the waiter looks at the store again, and the worker records the end it kept.
      const res = await within(answer, RETURN_TO_ANSWER_MS, `the answer after ${name} came back`);
      if (res.status === 200) {
        const { data } = res.json as CompressResponse;
        expect(await pageCount((await download(through, data.download.url)).bytes)).toBe(PAGES);
      } else {
        expect(res.status, res.bytes.toString('utf8')).toBeGreaterThanOrEqual(500);
        expect((res.json as ErrorResponse).error.code).toMatch(/^[a-z_]+$/);
      }

      // Recorded once: the user's only job, run once, succeeded, its output there to download.
      let jobs: Job[] = [];
      await until(
        `job ${id} is recorded as succeeded`,
        async () => {
          const list = await call<JobListResponse>(api.baseUrl, '/api/v1/jobs', { key });
          jobs = list.status === 200 ? list.json.data.jobs : [];
          return jobs.length > 0 && jobs.every((job) => job.status === 'succeeded');
        },
        60_000,
      );
      expect(jobs.map((job) => [job.id, job.attempts])).toEqual([[id, 1]]);
      const result = jobs[0]?.result as { download: { url: string } } | undefined;
      expect(await pageCount((await download(through, result?.download.url ?? '')).bytes)).toBe(PAGES);
    });
  }
});
