// Upgrades lose nothing: jobs the server before the job core's split left queued, or cut off while
// running, finish with their outputs under today's server started on its database, after the
// migrations. On the shared backends the deployment rolls as the README's "Upgrades" says: today's
// worker first runs what the old API processes handed BullMQ (one waiting, one an old worker died
// running), then today's API process feeds the job still queued in the store. Skips the shared half,
// saying why, without PostgreSQL or Redis.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, MergeResult, SplitResult } from '@pdn/api-types';
import { labelledPdf } from '@pdn/fixtures';
import { postgresSchemaAt, sqliteSchemaAt } from '@pdn/server';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from './contract/checked-fetch.js';
import { pageCount } from './harness/download.js';
import { type Caller, waitForJob } from './harness/jobs.js';
import {
  enqueueAsOldDispatch,
  OLD_POSTGRES_VERSION,
  OLD_SQLITE_VERSION,
  type OldJob,
  oldBullmqQueue,
  oldJobId,
  PREMIUM_BUDGET,
  takenByAWorkerThatDied,
  writePostgresJobs,
  writeSqliteJobs,
} from './harness/old-server-jobs.js';
import { startServer, type TestServer } from './harness/server.js';
import { sharedServicesMissing, startSharedServices } from './harness/shared-services.js';

const missingShared = await sharedServicesMissing();

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(options: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer(options);
  cleanups.push(() => server.stop());
  return server;
}

const caller = (server: TestServer): Caller => ({
  call: (path, options) => call(server.baseUrl, path, options),
});

/** A merge of two labelled one-page PDFs and a split of a three-page one, each as the old routes stored it. */
async function oldJobs(claimed: readonly boolean[]): Promise<OldJob[]> {
  const [a, b, three] = await Promise.all([labelledPdf('a', 1), labelledPdf('b', 1), labelledPdf('s', 3)]);
  return claimed.map((isClaimed, index) =>
    index % 2 === 0
      ? {
          id: oldJobId(),
          operation: 'merge',
          params: { budget: PREMIUM_BUDGET },
          files: [a, b],
          claimed: isClaimed,
        }
      : {
          id: oldJobId(),
          operation: 'split',
          params: { ranges: '1,2-3', budget: PREMIUM_BUDGET },
          files: [three],
          claimed: isClaimed,
        },
  );
}

/**
 * The job ended succeeded after `attempts` starts (a start cut off by a dead process counts), and each
 * output it names downloads as the PDF it should be.
 */
async function expectFinished(server: TestServer, key: string, job: OldJob, attempts: number): Promise<void> {
  const ended: Job = await waitForJob(caller(server), key, job.id);
  expect(ended, job.id).toMatchObject({ status: 'succeeded', operation: job.operation, attempts });
  const outputs =
    job.operation === 'merge'
      ? [{ url: (ended.result as MergeResult).download.url, pages: 2 }]
      : (ended.result as SplitResult).parts.map((part) => ({
          url: part.download.url,
          pages: part.page_count,
        }));
  expect(outputs.map((output) => output.pages)).toEqual(job.operation === 'merge' ? [2] : [1, 2]);
  for (const output of outputs) {
    const res = await call(server.baseUrl, output.url);
    expect(res.status).toBe(200);
    expect(await pageCount(res.bytes)).toBe(output.pages);
  }
}

describe('the embedded server', () => {
  it('finishes the jobs an older server left queued and running in its data folder', async () => {
    const root = await mkdtemp(join(tmpdir(), 'pdn-e2e-upgrade-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const dataDir = join(root, 'data');
    sqliteSchemaAt(dataDir, OLD_SQLITE_VERSION);
    // A queued job and one the old server was running when it was killed.
    const jobs = await oldJobs([false, true]);
    await writeSqliteJobs(dataDir, 'ada', jobs);

    const server = await started({ dataDir });
    const key = await server.createKey({ user: 'ada' });
    await expectFinished(server, key, jobs[0] as OldJob, 1);
    await expectFinished(server, key, jobs[1] as OldJob, 2);
  });
});

describe.skipIf(missingShared !== undefined)('the shared backends, rolled workers first', () => {
  it('runs what old API processes left in BullMQ and in the store, on today’s worker then API', async () => {
    const services = await startSharedServices();
    cleanups.push(() => services.stop());
    // startSharedServices sets every one of these.
    const [databaseUrl, redisUrl, prefix] = [
      services.directEnv.PDN_DATABASE_URL,
      services.directEnv.PDN_REDIS_URL,
      services.directEnv.PDN_REDIS_KEY_PREFIX,
    ] as [string, string, string];
    const target = {
      databaseUrl,
      s3Endpoint: services.env.PDN_S3_ENDPOINT as string,
      bucket: services.env.PDN_S3_BUCKET as string,
    };
    await postgresSchemaAt(target.databaseUrl, OLD_POSTGRES_VERSION);
    // Queued in the store; handed to BullMQ and waiting there; handed over and taken by a worker that died.
    const [queued, waiting, died] = (await oldJobs([false, true, true])) as [OldJob, OldJob, OldJob];
    await writePostgresJobs(target, 'ada', [queued, waiting, died]);
    const old = oldBullmqQueue(redisUrl, prefix);
    try {
      await enqueueAsOldDispatch(old.queue, died);
      await takenByAWorkerThatDied(redisUrl, prefix, died.id, 1_000);
      await enqueueAsOldDispatch(old.queue, waiting);
    } finally {
      await old.close();
    }

    const env = { ...services.env, PDN_SIGNING_SECRET: 'a'.repeat(64) };
    await started({ env, role: 'worker' });
    // No API process of today's version yet: the worker alone runs what BullMQ holds (the dead
    // worker's job once BullMQ's stalled-job check hands it on), and nobody feeds the store's queue.
    await untilStatus(target.databaseUrl, {
      [waiting.id]: 'succeeded',
      [died.id]: 'succeeded',
      [queued.id]: 'queued',
    });

    const api = await started({ env, role: 'api' });
    const key = await api.createKey({ user: 'ada' });
    await expectFinished(api, key, waiting, 1);
    await expectFinished(api, key, died, 2);
    await expectFinished(api, key, queued, 1);
  }, 90_000);
});

/** Polls the jobs table until each job named has the status given. */
async function untilStatus(databaseUrl: string, want: Record<string, string>): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (let tries = 0; tries < 600; tries += 1) {
      const { rows } = await client.query<{ id: string; status: string }>(
        'SELECT id, status FROM jobs WHERE id = ANY($1::text[])',
        [Object.keys(want)],
      );
      const now = Object.fromEntries(rows.map((row) => [row.id, row.status]));
      if (Object.entries(want).every(([id, status]) => now[id] === status)) return;
      await sleep(100);
    }
    throw new Error(`jobs never reached ${JSON.stringify(want)}`);
  } finally {
    await client.end();
  }
}
