// API processes and workers on data folders of their own (inputs in the bucket; workers may be on other
// machines): one API process and two workers, each with its own PDN_DATA_DIR, on the shared
// PostgreSQL, Redis and bucket. Uploads go to the bucket at submission, each worker fetches
// a job's inputs into a folder of its own for the attempt, and nothing stays behind in any data folder,
// nor in the bucket's inputs, once the jobs have ended. All share one BullMQ queue, so a job
// interrupted on one worker is run by the other: at once when the worker stopped, through BullMQ's
// stalled-job check when it was killed; the killed one's tools die with it, and the other reclaims its
// work area though it works on another data folder (the workers share a temp folder, as processes of
// one machine do). Skips without PostgreSQL or Redis.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MergeResult, SplitResult } from '@pdn/api-types';
import { embeddedFontPdf, labelledPdf } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './contract/checked-fetch.js';
import { pageCount } from './harness/download.js';
import { field, file, form } from './harness/form.js';
import { type Caller, FINAL, getJob, submitJob, waitForJob } from './harness/jobs.js';
import { filesLeftSince, listFiles } from './harness/leftovers.js';
import { processesUnder, toolsAtWork } from './harness/processes.js';
import { startServer, type TestServer } from './harness/server.js';
import {
  type SharedServices,
  sharedServicesMissing,
  startSharedServices,
} from './harness/shared-services.js';
import { missing as missingTool } from './harness/tools.js';

const missing = await sharedServicesMissing();

describe.skipIf(missing !== undefined)(
  'an API process and two workers, each on a data folder of its own',
  () => {
    let services: SharedServices;
    let api: TestServer;
    let workers: TestServer[] = [];
    let key = '';
    /** The workers' TMPDIR, where each process registers its work area. */
    let sharedTemp = '';
    /** Each process's files once started: what must be all that is left once the jobs have ended. */
    const before = new Map<TestServer, Set<string>>();

    beforeAll(async () => {
      services = await startSharedServices();
      const env = {
        ...services.env,
        PDN_SIGNING_SECRET: randomBytes(32).toString('hex'),
        // A killed worker's job moves on in about 13 s rather than 25 (still renewed every 4 s).
        PDN_JOB_LOCK_MS: '8000',
      };
      api = await startServer({ env, role: 'api' });
      sharedTemp = await mkdtemp(join(tmpdir(), 'pdn-e2e-workers-tmp-'));
      // A stopping worker interrupts its running jobs at once, for the other one (no grace to finish).
      const workerEnv = { ...env, PDN_SHUTDOWN_GRACE_MS: '0', TMPDIR: sharedTemp };
      workers = [
        await startServer({ env: workerEnv, role: 'worker' }),
        await startServer({ env: workerEnv, role: 'worker' }),
      ];
      for (const server of [api, ...workers]) before.set(server, await listFiles(server));
      key = await api.createKey({ user: 'folders', plan: 'premium' });
    }, 120_000);

    afterAll(async () => {
      for (const server of [...workers, api].reverse()) await server?.stop();
      await services?.stop();
      if (sharedTemp !== '') await rm(sharedTemp, { recursive: true, force: true });
    });

    const caller: Caller = { call: (path, options) => call(api.baseUrl, path, options) };
    const [w1, w2] = [() => workers[0] as TestServer, () => workers[1] as TestServer];

    /** A merge of a 2-page and a 3-page PDF, submitted as a job through the API and downloaded: 5 pages. */
    async function mergeJob(): Promise<void> {
      const body = form(
        file('files[]', await labelledPdf('a', 2), 'a.pdf'),
        file('files[]', await labelledPdf('b', 3), 'b.pdf'),
      );
      const job = await submitJob(caller, key, '/api/v1/merge', body);
      const done = await waitForJob(caller, key, job.id);
      expect(done).toMatchObject({ status: 'succeeded', attempts: 1 });
      const downloaded = await call(api.baseUrl, (done.result as MergeResult).download.url);
      expect(await pageCount(downloaded.bytes)).toBe(5);
    }

    it('does not share a data folder between any two processes', () => {
      const folders = new Set([api, ...workers].map((server) => server.dataDir));
      expect(folders.size).toBe(3);
    });

    it('answers a synchronous split taken by the API process and run by a worker', async () => {
      const split = await call<{ data: SplitResult }>(api.baseUrl, '/api/v1/split', {
        key,
        body: form(file('file', await labelledPdf('p', 3)), field('ranges', '1,3')),
      });
      expect(split.status).toBe(200);
      expect(split.json.data.parts).toHaveLength(2);
    });

    it('runs jobs submitted while both workers run', async () => {
      await Promise.all([1, 2, 3, 4].map(() => mergeJob()));
    });

    it('runs each job on whichever worker is left: the first alone, then the second alone', async () => {
      await w1().kill();
      await mergeJob();
      await w1().restart();
      await w2().kill();
      await mergeJob();
      await w2().restart();
    });

    describe.skipIf(missingTool('ghostscript', 'a job interrupted on one worker, run by another'))(
      'a job interrupted on a worker',
      () => {
        /**
         * A compress that keeps a worker busy for seconds, submitted while only `w1` runs, and seen in
         * its hands: a tool working in w1's folders. The store says `running` from the moment the job is
         * handed to BullMQ, before any worker takes it: a worker stopped then never started it, and the
         * other one ran it once (attempts 1).
         */
        async function runningOnW1(): Promise<string> {
          await w2().kill();
          const body = form(file('file', await embeddedFontPdf({ pages: 60 }), 'fonts.pdf'));
          const job = await submitJob(caller, key, '/api/v1/compress', body);
          while ((await toolsAtWork(w1().dataDir)).length === 0) {
            const seen = await getJob(caller, key, job.id);
            if (FINAL.includes(seen.status))
              throw new Error(`job ${job.id} ended ${seen.status} before w1 was seen running it`);
            await sleep(50);
          }
          return job.id;
        }

        it('is run by the other worker when the first stops in the middle of it', async () => {
          const id = await runningOnW1();
          await w1().kill();
          await w2().restart();
          // Started twice, each start counted: on the first worker, then on the second.
          expect(await waitForJob(caller, key, id)).toMatchObject({ status: 'succeeded', attempts: 2 });
          await w1().restart();
        });

        it('is run by the other worker when the first is killed (kill -9), which takes its tools and folder', async () => {
          const id = await runningOnW1();
          await w1().signal('SIGKILL');
          await w2().restart();
          // w1's tools died with it; w2's start reclaimed w1's work area, on another data folder.
          let left = await processesUnder(w1().dataDir);
          for (let tries = 0; left.length > 0 && tries < 100; tries += 1) {
            await sleep(50);
            left = await processesUnder(w1().dataDir);
          }
          expect(left).toEqual([]);
          expect(await readdir(join(w1().dataDir, 'tmp-processes'))).toEqual([]);
          expect(await waitForJob(caller, key, id)).toMatchObject({ status: 'succeeded', attempts: 2 });
          await w1().restart();
        });
      },
    );

    it('leaves nothing in any data folder, nor any input in the bucket, once the jobs have ended', async () => {
      for (const server of [api, ...workers]) {
        const started = before.get(server) ?? new Set();
        expect(await filesLeftSince(server, started), server.dataDir).toEqual([]);
      }
      const inputs = await readdir(join(services.bucketDir, 'inputs')).catch(() => []);
      expect(inputs).toEqual([]);
    });
  },
);
