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
import { type CallResult, call } from './contract/checked-fetch.js';
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
    const env = { ...services.env, PDN_SIGNING_SECRET: randomBytes(32).toString('hex') };
    api = await startServer({ env: { ...env, PDN_LOG_LEVEL: 'info' }, role: 'api' });
    // At debug, the worker's log tells when a job's tools run, and when the job ends.
    worker = await startServer({ env: { ...env, PDN_LOG_LEVEL: 'debug' }, role: 'worker' });
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

  /**
   * The job of `user` that the store marks running, read from it directly (the API may be cut off). The
   * store marks a job running as it hands it to BullMQ, before a worker takes it up.
   */
  async function markedRunning(user: string): Promise<string> {
    const db = new pg.Client({ connectionString: services.env.PDN_DATABASE_URL });
    await db.connect();
    try {
      let id: string | undefined;
      await until(
        `${user}'s job is marked running`,
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

  /** Whether the worker's log has a line about job `id` that contains `text`. */
  function workerTells(id: string, text: RegExp): boolean {
    return worker.log.split('\n').some((line) => line.includes(id) && text.test(line));
  }

  /** `user`'s job, once the worker runs its tools. */
  async function runningJob(user: string): Promise<string> {
    const id = await markedRunning(user);
    await until(`${user}'s job runs on the worker`, async () => workerTells(id, /tool finished/));
    return id;
  }

  /** Whether the call's answer is the job's output, or a clean 5xx envelope. */
  async function expectOutputOrCleanFailure(
    res: CallResult<CompressResponse | ErrorResponse>,
  ): Promise<void> {
    if (res.status === 200) {
      const { data } = res.json as CompressResponse;
      expect(await pageCount((await download(through, data.download.url)).bytes)).toBe(PAGES);
    } else {
      expect(res.status, res.bytes.toString('utf8')).toBeGreaterThanOrEqual(500);
      expect((res.json as ErrorResponse).error.code).toMatch(/^[a-z_]+$/);
    }
  }

  /** Job `id` is `user`'s only job, run once, succeeded, its output there to download. */
  async function expectRecordedOnce(key: string, id: string): Promise<void> {
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
  }

  /** `user`'s synchronous compress call, not yet answered. */
  async function compressCall(user: string) {
    const key = await api.createKey({ user, plan: 'premium' });
    const answer = call<CompressResponse | ErrorResponse>(api.baseUrl, '/api/v1/compress', {
      key,
      body: form(file('file', photos, 'photos.pdf'), field('level', 'high')),
    });
    return { key, answer };
  }

  /**
   * Whether the worker's log tells of job `id`'s end: recorded ("job ended"), or not ("could not be
   * ended"), or offered again until the store is back.
   */
  function endedOnWorker(id: string): boolean {
    return workerTells(id, /job ended|could not be ended|offered again/);
  }

  for (const [name, service] of [
    ['Redis', () => redis],
    ['PostgreSQL', () => postgres],
  ] as const) {
    it(`answers it within seconds of ${name}'s return, and records the job once, with its output`, async () => {
      const user = `waiter-${name.toLowerCase()}`;
      const { key, answer } = await compressCall(user);
      const id = await runningJob(user);
      await service().stop();
      // The job ends on the worker while the service is away, and the outage goes on a moment: any
      // news of the end sent meanwhile is lost.
      await until(`job ${id} ends`, async () => endedOnWorker(id));
      await sleep(1000);
      await service().start();

      // Within seconds: the waiter looks at the store again, and the worker records the end it kept.
      await expectOutputOrCleanFailure(
        await within(answer, RETURN_TO_ANSWER_MS, `the answer after ${name} came back`),
      );
      await expectRecordedOnce(key, id);
    });
  }

  it('runs a job a worker takes up while PostgreSQL is away, and records it once it is back, on its first attempt', async () => {
    const user = 'taken-up-in-outage';
    const { key, answer } = await compressCall(user);
    // The worker, stopped, cannot take the job up before PostgreSQL is away; the store marks it running.
    process.kill(worker.pid, 'SIGSTOP');
    let id: string;
    try {
      id = await markedRunning(user);
      await postgres.stop();
    } finally {
      process.kill(worker.pid, 'SIGCONT');
    }
    // It runs as the feeder claimed it, without reading the store, and offers its end until the store is back.
    await until(
      `the worker offers job ${id}'s end to the store again`,
      async () => workerTells(id, /offered again/),
      30_000,
    );
    await postgres.start();

    await expectOutputOrCleanFailure(
      await within(answer, RETURN_TO_ANSWER_MS, 'the answer after PostgreSQL came back'),
    );
    await expectRecordedOnce(key, id);
  });
});
