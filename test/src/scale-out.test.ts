// Scaled out over BullMQ: two API processes and two workers on the shared backends and one data
// folder. A Free user's burst over both is exactly its hour. A cancel through one API process stops
// the job a worker runs for the other; one Idempotency-Key sent to both at once does the work once; a user with many jobs does not starve
// another; a worker killed mid-job (kill -9) leaves its job to the other, and the synchronous caller
// still gets its 200, the job's two starts counted. A worker stopped by SIGTERM finishes its job
// within its grace while the other takes the next; past a short grace, the other runs it again; a job
// lost that way after a kill -9 has had its two starts and fails. An API process stopped by SIGTERM
// answers the synchronous call it holds once a worker ran it, then exits. Skips, saying why, without
// PostgreSQL or Redis (.ci/run installs and starts both).
import { randomBytes, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import type { CompressResult, Job, JobResponse, MergeResult } from '@pdn/api-types';
import { embeddedFontPdf, labelledPdf } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './contract/checked-fetch.js';
import { file, form } from './harness/form.js';
import { type Caller, getJob, submitJob, waitForJob } from './harness/jobs.js';
import { waitingGhostscripts } from './harness/processes.js';
import { startServer, type TestServer } from './harness/server.js';
import {
  type SharedServices,
  sharedServicesMissing,
  startSharedServices,
} from './harness/shared-services.js';
import { missing as toolMissing } from './harness/tools.js';
import { until } from './harness/until.js';

const skip =
  (await sharedServicesMissing()) !== undefined || toolMissing('ghostscript', 'the scale-out suite');

/** A compress that keeps a worker busy for seconds (Ghostscript on 60 pages of embedded fonts). */
async function slowForm(): Promise<FormData> {
  return form(file('file', await embeddedFontPdf({ pages: 60 }), 'fonts.pdf'));
}

async function mergeForm(label: string): Promise<FormData> {
  return form(
    file('files[]', await labelledPdf(`${label}a`, 1), 'a.pdf'),
    file('files[]', await labelledPdf(`${label}b`, 1), 'b.pdf'),
  );
}

/** Field 4 of /proc/<pid>/stat, after the command's closing parenthesis and the state: its parent. */
async function parentOf(pid: number | string): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/**
 * The process that started each tool working in `dataDir`'s job folders (a worker's pid): the tool's
 * parent is that process's tool launcher, a small process of its own.
 */
async function toolParents(dataDir: string): Promise<number[]> {
  const parents: number[] = [];
  // A Ghostscript waiting for the next compress is kept on purpose, and at work on nothing.
  const waiting = new Set((await waitingGhostscripts(dataDir)).map(({ pid }) => pid));
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid) || waiting.has(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.includes(dataDir)) continue;
    const launcher = await parentOf(pid);
    const starter = await parentOf(launcher);
    if (starter > 1) parents.push(starter);
  }
  return parents;
}

describe.skipIf(skip)('two API processes and two workers over BullMQ', () => {
  let services: SharedServices;
  let env: Record<string, string>;
  let apis: TestServer[] = [];
  let workers: TestServer[] = [];

  beforeAll(async () => {
    services = await startSharedServices();
    env = {
      ...services.env,
      PDN_SIGNING_SECRET: randomBytes(32).toString('hex'),
      PDN_JOB_CONCURRENCY: '1',
      // A killed worker's job moves on in about 13 s rather than 25 (still renewed every 4 s).
      PDN_JOB_LOCK_MS: '8000',
    };
    const first = await startServer({ env, role: 'api' });
    apis = [first, await startServer({ env, role: 'api', dataDir: first.dataDir })];
    workers = await Promise.all([
      startServer({ env, role: 'worker', dataDir: first.dataDir }),
      startServer({ env, role: 'worker', dataDir: first.dataDir }),
    ]);
  }, 120_000);

  afterAll(async () => {
    for (const process of [...workers, ...apis].reverse()) await process.stop();
    await services?.stop();
  }, 60_000);

  const api = (index: number) => apis[index] as TestServer;
  const caller = (server: TestServer): Caller => ({
    call: (path, options) => call(server.baseUrl, path, options),
  });
  const cancel = (server: TestServer, key: string, id: string) =>
    call<JobResponse>(server.baseUrl, `/api/v1/jobs/${id}`, { key, method: 'DELETE' });

  /**
   * Whether no worker runs a job (each one's pdn_jobs_running, which drops once the job's tools have
   * exited) and no tool works in the data folder. No tool alone is no proof: a look can fall between
   * a compress's short qpdf and its Ghostscript.
   */
  async function workersIdle(): Promise<boolean> {
    for (const worker of workers) {
      const metrics = await call(worker.baseUrl, '/metrics');
      if (/^pdn_jobs_running\{[^}]*\} [1-9]/m.test(metrics.bytes.toString('utf8'))) return false;
    }
    return (await toolParents(api(0).dataDir)).length === 0;
  }

  /**
   * The parents of the tools working in the data folder, as the look that first found any saw them: a
   * compress runs a short qpdf before Ghostscript, and a second look could fall between the two.
   */
  async function toolsRunning(what: string): Promise<number[]> {
    let parents: number[] = [];
    await until(what, async () => {
      parents = await toolParents(api(0).dataDir);
      return parents.length > 0;
    });
    return parents;
  }

  it("answers a Free user's 50 simultaneous calls over both API processes with exactly its hour: 10 x 200, 40 x 429", async () => {
    const key = await api(0).createKey({ user: 'burst', plan: 'free' });
    const onePage = await labelledPdf('p', 1);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(api(i % 2).baseUrl, '/api/v1/merge', {
          key,
          body: form(file('files[]', onePage, 'a.pdf'), file('files[]', onePage, 'b.pdf')),
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40);
  });

  it('stops, through API A, the job a worker runs for API B', async () => {
    const key = await api(0).createKey({ user: 'canceler', plan: 'premium' });
    const job = await submitJob(caller(api(1)), key, '/api/v1/compress', await slowForm());
    await waitForJob(caller(api(0)), key, job.id, ['running']);
    const [parent] = await toolsRunning('a worker runs its tool');
    expect(workers.map((worker) => worker.pid)).toContain(parent);

    const canceled = await cancel(api(0), key, job.id);
    expect(canceled.status).toBe(200);
    expect(canceled.json.data.status).toBe('canceled');
    await until('the job and its tool are stopped', workersIdle, 60_000);
    expect((await getJob(caller(api(1)), key, job.id)).status).toBe('canceled');
  }, 180_000);

  it('does the work of one Idempotency-Key sent to both API processes at once once', async () => {
    const key = await api(0).createKey({ user: 'idempotent', plan: 'premium' });
    const idem = randomUUID();
    const body = await mergeForm('I');
    const answers = await Promise.all(
      [api(0), api(1), api(0), api(1)].map((server) =>
        call<{ data: MergeResult }>(server.baseUrl, '/api/v1/merge', {
          key,
          body,
          headers: { 'Idempotency-Key': idem },
        }),
      ),
    );
    // 409 is the documented answer to a duplicate past its wait; a small merge ends well within it.
    expect(answers.filter((answer) => answer.status !== 200 && answer.status !== 409)).toEqual([]);
    const ok = answers.filter((answer) => answer.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    // One output, whatever process answered: each answer signs its URL afresh, to the same file.
    const outputs = new Set(
      ok.map((answer) => new URL(answer.json.data.download.url, api(0).baseUrl).pathname),
    );
    expect(outputs.size).toBe(1);
    const listed = await call<{ data: { jobs: Job[] } }>(api(1).baseUrl, '/api/v1/jobs?limit=100', { key });
    expect(listed.json.data.jobs).toHaveLength(1);
  }, 180_000);

  it('starts the job of a user with one before the backlog of a user with many', async () => {
    const heavy = await api(0).createKey({ user: 'heavy', plan: 'premium' });
    const light = await api(0).createKey({ user: 'light', plan: 'premium' });
    // The forms are made before anything is sent, and the backlog sent at once: made one per job in
    // turn (a second or more of CPU each), the workers ran the first jobs meanwhile, and a machine
    // that runs Ghostscript faster than it makes forms had started all 8 before the light job came.
    const [slow, quick] = [await slowForm(), await mergeForm('L')];
    const backlog = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        submitJob(caller(api(index % 2)), heavy, '/api/v1/compress', slow),
      ),
    );
    const single = await submitJob(caller(api(1)), light, '/api/v1/merge', quick);
    // Stored by the time its 202 is here (as in cases/jobs.ts): same machine, same clock.
    const stored = new Date().toISOString();
    const done = await waitForJob(caller(api(0)), light, single.id);
    expect(done.status).toBe('succeeded');
    const heavyJobs = await Promise.all(backlog.map((job) => getJob(caller(api(0)), heavy, job.id)));
    // Both workers and the short waiting list held at most 4 of the backlog when the light job came;
    // those not started by then all started after it.
    const waiting = heavyJobs.filter((job) => job.started_at === null || job.started_at > stored);
    expect(waiting.length).toBeGreaterThanOrEqual(1);
    const startedBefore = waiting.filter(
      (job) => job.started_at !== null && job.started_at < (done.started_at ?? ''),
    );
    expect(startedBefore.map((job) => job.id)).toEqual([]);
    for (const job of backlog) await cancel(api(0), heavy, job.id);
    await until('the workers are idle', workersIdle, 60_000);
  }, 300_000);

  it('answers a synchronous call 200 although the worker running it is killed (kill -9)', async () => {
    const key = await api(0).createKey({ user: 'survivor', plan: 'premium' });
    const answer = call<{ data: CompressResult }>(api(0).baseUrl, '/api/v1/compress', {
      key,
      body: await slowForm(),
    });
    const [parent] = await toolsRunning('a worker runs the call');
    expect(workers.map((worker) => worker.pid)).toContain(parent);
    const victim = workers.find((worker) => worker.pid === parent) as TestServer;
    expect((await victim.signal('SIGKILL')).signal).toBe('SIGKILL');
    const answered = await answer;
    expect(answered.status).toBe(200);
    expect(answered.json.data.download.url).toBeTruthy();
    // Started twice: on the killed worker, then on the other one.
    const [job] = (await call<{ data: { jobs: Job[] } }>(api(1).baseUrl, '/api/v1/jobs', { key })).json.data
      .jobs;
    expect(await getJob(caller(api(0)), key, job?.id ?? '')).toMatchObject({
      status: 'succeeded',
      attempts: 2,
    });
    workers = workers.filter((worker) => worker !== victim);
    await victim.stop();
  }, 300_000);

  /** Replaces the workers with two whose SIGTERM gives their running jobs `graceMs` to finish. */
  async function freshWorkers(graceMs: number): Promise<void> {
    for (const worker of workers) await worker.stop();
    const workerEnv = { ...env, PDN_SHUTDOWN_GRACE_MS: String(graceMs) };
    workers = await Promise.all([
      startServer({ env: workerEnv, role: 'worker', dataDir: api(0).dataDir }),
      startServer({ env: workerEnv, role: 'worker', dataDir: api(0).dataDir }),
    ]);
  }

  /**
   * The worker whose tools work on a job now (waits until one does). A killed worker's tool may work on
   * for a while, orphaned: only the running workers' count.
   */
  async function busyWorker(): Promise<TestServer> {
    let busy: TestServer | undefined;
    await until('a worker runs a job', async () => {
      const parents = await toolParents(api(0).dataDir);
      busy = workers.find((worker) => parents.includes(worker.pid));
      return busy !== undefined;
    });
    return busy as TestServer;
  }

  it('lets a worker stopped by SIGTERM finish its job within the grace, while the other takes the next', async () => {
    await freshWorkers(600_000);
    const key = await api(0).createKey({ user: 'terminated', plan: 'premium' });
    const first = await submitJob(caller(api(0)), key, '/api/v1/compress', await slowForm());
    const stopping = await busyWorker();
    const stoppingPid = stopping.pid;
    const stopped = stopping.signal('SIGTERM');
    const next = await submitJob(caller(api(1)), key, '/api/v1/compress', await slowForm());
    // The next job runs on the other worker while the stopping one still finishes the first.
    await until('the other worker runs the next job', async () =>
      (await toolParents(api(0).dataDir)).some((parent) => parent !== stoppingPid),
    );
    expect(await stopped).toEqual({ code: 0, signal: null });
    expect(await waitForJob(caller(api(0)), key, first.id)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    });
    expect(await waitForJob(caller(api(1)), key, next.id)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    });
    workers = workers.filter((worker) => worker !== stopping);
    await stopping.stop();
  }, 300_000);

  it('answers a synchronous call whose worker was stopped past its grace: the other worker ran it', async () => {
    await freshWorkers(0);
    const key = await api(0).createKey({ user: 'graceless', plan: 'premium' });
    const answer = call<{ data: CompressResult }>(api(1).baseUrl, '/api/v1/compress', {
      key,
      body: await slowForm(),
    });
    const stopping = await busyWorker();
    expect(await stopping.signal('SIGTERM')).toEqual({ code: 0, signal: null });
    const answered = await answer;
    expect(answered.status).toBe(200);
    const [job] = (await call<{ data: { jobs: Job[] } }>(api(0).baseUrl, '/api/v1/jobs', { key })).json.data
      .jobs;
    expect(job).toMatchObject({ status: 'succeeded', attempts: 2 });
    workers = workers.filter((worker) => worker !== stopping);
    await stopping.stop();
  }, 300_000);

  it('lets an API process stopped by SIGTERM answer the synchronous call a worker runs for it, then exit', async () => {
    // A third API process, to stop; its grace outlasts the job on a loaded machine.
    const stopping = await startServer({
      env: { ...env, PDN_SHUTDOWN_GRACE_MS: '600000' },
      role: 'api',
      dataDir: api(0).dataDir,
    });
    const key = await api(0).createKey({ user: 'drained', plan: 'premium' });
    const answer = call<{ data: CompressResult }>(stopping.baseUrl, '/api/v1/compress', {
      key,
      body: await slowForm(),
    });
    await busyWorker();
    const stopped = stopping.signal('SIGTERM');
    const answered = await answer;
    expect(answered.status).toBe(200);
    expect(answered.json.data.download.url).toBeTruthy();
    expect(await stopped).toEqual({ code: 0, signal: null });
    await stopping.stop();
  }, 300_000);

  it('fails, rather than starts a third time, a job whose worker was killed and whose next one stopped past its grace', async () => {
    await freshWorkers(0);
    const key = await api(0).createKey({ user: 'twice-lost', plan: 'premium' });
    const job = await submitJob(caller(api(1)), key, '/api/v1/compress', await slowForm());
    const killed = await busyWorker();
    expect((await killed.signal('SIGKILL')).signal).toBe('SIGKILL');
    workers = workers.filter((worker) => worker !== killed);
    await killed.stop();
    // A third worker, to take the job back from the second one's SIGTERM, if anything would. Started
    // before the second start is looked for, so the SIGTERM follows that start at once: started
    // after it, the second attempt ran on while this process came up, and could end first.
    workers.push(
      await startServer({
        env: { ...env, PDN_SHUTDOWN_GRACE_MS: '0' },
        role: 'worker',
        dataDir: api(0).dataDir,
      }),
    );
    // BullMQ's stalled-job check hands it to one of the other two workers: its second start.
    const second = await busyWorker();
    expect(await second.signal('SIGTERM')).toEqual({ code: 0, signal: null });
    workers = workers.filter((worker) => worker !== second);
    await second.stop();
    expect(await waitForJob(caller(api(0)), key, job.id)).toMatchObject({
      status: 'failed',
      attempts: 2,
      error: { code: 'internal_error' },
    });
  }, 300_000);
});
