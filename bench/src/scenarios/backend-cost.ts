// What one API call costs the shared backends, counted by the backends themselves on a Redis and a
// PostgreSQL of the scenario's own, pdn as deployed: one `--role api` and one `--role worker` process,
// each connecting to PostgreSQL as a role of its own. Per call of each kind, N in a row: a small
// synchronous merge (200), a Free user's merge over its hourly limit (429), a merge with an unknown key
// (401), an asynchronous merge (202; its job run to its end by the worker, so its figures hold the
// whole job) and a poll of a finished job (200).
// - Redis commands from `INFO commandstats` (a script's own commands included: Redis 7 counts them),
//   and Redis's CPU (used_cpu_user + used_cpu_sys), from which the calls one Redis core would carry;
// - PostgreSQL statements and their execution time from pg_stat_statements (track = all), pdn's
//   database, by role, the bench's own role left out (backend-counters.ts);
// - over N more calls, every command through MONITOR (redis-command-log.ts): those pdn's processes
//   sent apart from those their scripts ran, by process; over N more, Redis's time for each (SLOWLOG).
// Each phase less the idle deployment's background at its measured rate (measured with MONITOR on,
// which costs an idle Redis next to nothing). Beside them: the bare BullMQ cycle (a job added, run by
// a worker at concurrency 1, its end told to one waiter through QueueEvents) on the same Redis, idle
// between jobs as between pdn's calls, back to back, and with pdn's workers; and what each idle
// process sends a second. Targets (backend-cost-report.ts): a small synchronous call
// at most the bare cycle + 10 Redis commands and 5 statements; a refused call (429, 401) at most 3 of
// each. With BENCH_BACKEND_TRACE=<file>, every command of one call of each kind (in order, with its
// arguments), every statement and the idle processes' traffic are written there.
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import { type OwnService, ownPostgres, ownRedis, ownServicesMissing } from '@pdn/e2e/own-services';
import { startSharedServices } from '@pdn/e2e/shared-services';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { detailsOf, type Idle, type Measured, rowsOf, SCENARIO, traceText } from '../backend-cost-report.js';
import { BackendCounters, perCall, StatementCounter, type Work, without } from '../backend-counters.js';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import {
  bullmqScripts,
  type CommandLine,
  CommandTimes,
  commandNamer,
  commandsOf,
  linesIn,
  meanTimes,
  monitorRedis,
  seenIn,
  seenPerCall,
  type Window,
} from '../redis-command-log.js';
import { skippedRow } from '../report.js';
import { smallMergeForm } from '../small-merge.js';

/** After a phase's last call: the API process's follow-ups (the feeder woken by a job's end). */
const SETTLE_MS = 500;
/** The bench's PostgreSQL role: its own statements (reading the counters, the jobs' states) are not counted. */
const OBSERVER = 'bench_observer';

interface Kind {
  name: string;
  /** What the rows call it. */
  title: string;
  call(): Promise<void>;
  /** Once the calls are sent: waits for what they set going (the jobs of asynchronous calls). */
  drain?(): Promise<void>;
}

/** How a kind was watched: the counters over N calls, MONITOR and SLOWLOG over N more. */
interface Watched {
  work: Work;
  window: Window;
  lines: CommandLine[];
  timed: CommandLine[];
}

async function expectStatus(response: Response, status: number, what: string): Promise<void> {
  const text = await response.text();
  if (response.status !== status)
    throw new Error(`${what} answered ${response.status}: ${text.slice(0, 200)}`);
}

/** The calls of each kind, on keys made for them; spends the Free user's hour on the way. */
async function kinds(api: TestServer, observer: pg.Client): Promise<Kind[]> {
  const enterprise = await api.createKey({ user: 'bench', plan: 'enterprise' });
  const free = await api.createKey({ user: 'free', plan: 'free' });
  // Well formed, so it is looked up: what a mistyped or revoked key costs.
  const unknown = `pdn_live_${randomBytes(16).toString('hex')}`;
  const form = await smallMergeForm();
  const merge = (key: string, body: FormData = form, headers: Record<string, string> = {}) =>
    fetch(api.url('/api/v1/merge'), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...headers },
      body,
    });
  // Free's 10 calls an hour, each an empty merge: counted, then refused with 400 (openapi.yaml, "Rate limits").
  const empty = new FormData();
  empty.append('note', 'no files');
  for (let i = 0; i < 10; i += 1) await expectStatus(await merge(free, empty), 400, 'an empty merge');
  const jobs: string[] = [];
  let polled = 0;
  return [
    {
      name: 'sync',
      title: 'a small synchronous merge (200)',
      call: async () => expectStatus(await merge(enterprise), 200, 'a merge'),
    },
    {
      name: '429',
      title: "a Free user's merge over its hourly limit (429)",
      call: async () => expectStatus(await merge(free), 429, 'a merge over the hourly limit'),
    },
    {
      name: '401',
      title: 'a merge with an unknown key (401)',
      call: async () => expectStatus(await merge(unknown), 401, 'a merge with an unknown key'),
    },
    {
      name: 'async',
      title: 'an asynchronous merge (202), its job run to its end',
      call: async () => {
        const response = await merge(enterprise, form, { Prefer: 'respond-async' });
        await expectStatus(response, 202, 'an asynchronous merge');
        jobs.push(response.headers.get('location') ?? '');
      },
      drain: async () => {
        for (;;) {
          const { rows } = await observer.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM jobs WHERE status IN ('queued', 'running')",
          );
          if (rows[0]?.n === 0) return;
          await sleep(20);
        }
      },
    },
    {
      name: 'poll',
      title: 'a poll of a finished job (GET /api/v1/jobs/{id}, 200)',
      call: async () => {
        const location = jobs[polled++ % jobs.length] ?? '';
        const response = await fetch(api.url(location), {
          headers: { authorization: `Bearer ${enterprise}` },
        });
        await expectStatus(response, 200, 'a poll');
      },
    },
  ];
}

/** `calls` calls one after another, what they set going drained and its follow-ups settled. */
async function callsOf(kind: Kind, calls: number): Promise<void> {
  for (let i = 0; i < calls; i += 1) await kind.call();
  await kind.drain?.();
  await sleep(SETTLE_MS);
}

async function counted(counters: BackendCounters, work: () => Promise<unknown>): Promise<Work> {
  const stop = await counters.start();
  await work();
  return stop();
}

async function timed(work: () => Promise<unknown>): Promise<Window> {
  const from = Date.now();
  await work();
  return { from, to: Date.now() };
}

/**
 * N calls counted; one alone through MONITOR for the trace (`first`), N more through MONITOR, N more
 * timed by SLOWLOG (apart: MONITOR's own work would be timed with the commands).
 */
async function watch(
  kind: Kind,
  calls: number,
  counters: BackendCounters,
  times: CommandTimes,
  redisUrl: string,
): Promise<Watched & { first: CommandLine[] }> {
  const work = await counted(counters, () => callsOf(kind, calls));
  const monitor = await monitorRedis(redisUrl);
  let first: Window;
  let window: Window;
  try {
    first = await timed(() => callsOf(kind, 1));
    window = await timed(() => callsOf(kind, calls));
  } finally {
    monitor.stop();
  }
  await times.on();
  try {
    await callsOf(kind, calls);
    return {
      work,
      window,
      lines: monitor.lines,
      timed: await times.take(),
      first: monitor.lines.filter((line) => line.at >= first.from && line.at < first.to),
    };
  } finally {
    await times.off();
  }
}

/** How the bare cycle is driven: its workers (each at concurrency 1), and its jobs back to back or not. */
interface CycleShape {
  workers: number;
  /**
   * Whether each job is added only once the workers wait again, as between two of pdn's calls (each
   * an HTTP round trip apart), or as soon as the last one's end is heard. A worker that takes a job
   * leaves a wake-up for the others behind; a job added back to back finds it and is taken at once,
   * while after a pause the worker spends it on an empty ask first.
   */
  idleBetween: boolean;
}

/**
 * Longer than a worker's way from a job's end back to its blocking read (2 to 3 ms here): the pause
 * between jobs of a cycle that leaves its workers idle between jobs.
 */
const IDLE_GAP_MS = 25;

/**
 * The bare BullMQ cycle on `redisUrl`, before pdn starts: one queue, `shape.workers` workers at
 * concurrency 1 (as pdn runs one per slot), one waiter on QueueEvents, `cycles` jobs one at a time
 * (removeOnComplete), less the idle loop's rate.
 */
async function bareCycle(
  redisUrl: string,
  redis: Redis,
  cycles: number,
  own: Set<string>,
  shape: CycleShape,
): Promise<Measured> {
  const connections = Array.from({ length: 3 }, () => new Redis(redisUrl, { maxRetriesPerRequest: null }));
  const [forQueue, forWorker, forEvents] = connections as [Redis, Redis, Redis];
  const prefix = `bench-bare-${shape.workers}-${shape.idleBetween ? 'idle' : 'busy'}`;
  const queue = new Queue('cycle', {
    connection: forQueue,
    prefix,
    defaultJobOptions: { removeOnComplete: true, removeOnFail: true },
  });
  const workers = Array.from(
    { length: shape.workers },
    () => new Worker('cycle', async () => 'done', { connection: forWorker, prefix, concurrency: 1 }),
  );
  const events = new QueueEvents('cycle', { connection: forEvents, prefix });
  const workersTitle = shape.workers === 1 ? 'one worker' : `${shape.workers} workers`;
  try {
    await Promise.all([
      queue.waitUntilReady(),
      ...workers.map((worker) => worker.waitUntilReady()),
      events.waitUntilReady(),
    ]);
    const kind: Kind = {
      name: 'BullMQ cycle',
      title: `the bare BullMQ cycle, ${workersTitle} at concurrency 1, ${shape.idleBetween ? 'idle between jobs as between calls' : 'jobs back to back'}`,
      // The waiter hears the end from QueueEvents, as pdn's API process does. Not waitUntilFinished:
      // its look at the job after subscribing finds a job already removed (removeOnComplete) missing.
      call: async () => {
        const jobId = randomUUID();
        const completed = new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`job ${jobId} did not complete`)), 10_000);
          const heard = ({ jobId: id }: { jobId: string }) => {
            if (id !== jobId) return;
            clearTimeout(timer);
            events.off('completed', heard);
            resolve();
          };
          events.on('completed', heard);
        });
        await queue.add('job', {}, { jobId });
        await completed;
        if (shape.idleBetween) await sleep(IDLE_GAP_MS);
      },
    };
    await callsOf(kind, 3);
    const counters = new BackendCounters(redis);
    const monitor = await monitorRedis(redisUrl);
    let idle: Work | undefined;
    const idleWindow = await timed(async () => {
      idle = await counted(counters, () => sleep(2000));
    });
    monitor.stop();
    const watched = await watch(kind, cycles, counters, new CommandTimes(redis), redisUrl);
    const names = commandNamer(bullmqScripts(), prefix);
    const seen = (lines: CommandLine[], window: Window) =>
      seenIn(linesIn(lines, window, own), names, () => 'BullMQ');
    return {
      name: kind.name,
      title: kind.title,
      calls: cycles,
      each: perCall(watched.work, idle, cycles),
      seen: seenPerCall(
        seen(watched.lines, watched.window),
        watched.window,
        seen(monitor.lines, idleWindow),
        idleWindow,
        cycles,
      ),
      usecEach: meanTimes(watched.timed, names, own),
    };
  } finally {
    for (const worker of workers) await worker.close();
    await events.close();
    await queue.close();
    for (const connection of connections) connection.disconnect();
  }
}

/** The `ip:port` of every client of `redis` now. */
async function clientAddresses(redis: Redis): Promise<Set<string>> {
  const list = String(await redis.call('CLIENT', 'LIST'));
  return new Set([...list.matchAll(/\baddr=(\S+)/g)].map((match) => match[1] as string));
}

/** `url` with another role. */
function withRole(role: string, url: string): string {
  const parsed = new URL(url);
  parsed.username = role;
  return parsed.toString();
}

async function backendCost(context: BenchContext): Promise<ScenarioResult> {
  const missing = ownServicesMissing();
  if (missing !== undefined)
    return {
      rows: [skippedRow(SCENARIO, 'Redis commands and PostgreSQL statements per API call', missing)],
    };
  const { calls, idleSeconds } = context.profile.backendCost;
  const owned: OwnService[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  try {
    const [redisService, postgres] = await Promise.all([
      ownRedis(),
      ownPostgres({ shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' }),
    ]);
    owned.push(redisService, postgres);
    const redisUrl = redisService.url;
    const redis = new Redis(redisUrl);
    closers.push(async () => redis.disconnect());
    const own = await clientAddresses(redis);
    // pdn's calls come an HTTP round trip apart, each job's worker idle before it: the floor measured
    // the same way. Beside it the cycle back to back, and with as many workers as pdn's worker process
    // runs (one per slot, PDN_JOB_CONCURRENCY: the machine's cores).
    const cycle = await bareCycle(redisUrl, redis, calls, own, { workers: 1, idleBetween: true });
    const backToBack = await bareCycle(redisUrl, redis, calls, own, { workers: 1, idleBetween: false });
    const matched = await bareCycle(redisUrl, redis, calls, own, {
      workers: availableParallelism(),
      idleBetween: true,
    });

    // Each process connects as a role of its own, so pg_stat_statements tells their statements apart.
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    for (const role of [OBSERVER, 'api', 'worker']) await admin.query(`CREATE ROLE ${role} LOGIN SUPERUSER`);
    await admin.end();
    const services = await startSharedServices({ databaseUrl: postgres.url, redisUrl });
    closers.push(() => services.stop());
    const databaseUrl = services.directEnv.PDN_DATABASE_URL ?? '';
    const observer = new pg.Client({ connectionString: withRole(OBSERVER, databaseUrl) });
    await observer.connect();
    closers.push(() => observer.end());
    await observer.query('CREATE EXTENSION pg_stat_statements');
    const counters = new BackendCounters(redis, await StatementCounter.open(observer));
    const names = commandNamer(bullmqScripts(), services.directEnv.PDN_REDIS_KEY_PREFIX ?? '');

    // As deployed, the processes reaching PostgreSQL and Redis directly. Redis with no pdn process
    // first, for its own CPU; then both processes idle, told apart by their connections (Redis) and
    // roles (PostgreSQL).
    const env = { ...services.directEnv, PDN_SIGNING_SECRET: randomBytes(32).toString('hex') };
    const empty = await counted(counters, () => sleep((idleSeconds / 2) * 1000));
    const worker = await startServer({
      env: { ...env, PDN_DATABASE_URL: withRole('worker', databaseUrl) },
      role: 'worker',
    });
    closers.push(() => worker.stop());
    const workerAddresses = await clientAddresses(redis);
    const api = await startServer({
      env: { ...env, PDN_DATABASE_URL: withRole('api', databaseUrl) },
      role: 'api',
      dataDir: worker.dataDir,
    });
    closers.push(() => api.stop());
    const all = await kinds(api, observer);
    await sleep(1000);
    const apiAddresses = await clientAddresses(redis);
    const who = (source: string) => {
      if (source === 'lua') return '  lua';
      if (workerAddresses.has(source)) return 'worker';
      return apiAddresses.has(source) ? 'api' : 'other';
    };
    const monitor = await monitorRedis(redisUrl);
    closers.push(async () => monitor.stop());
    let background: Work | undefined;
    const idleWindow = await timed(async () => {
      background = await counted(counters, () => sleep(idleSeconds * 1000));
    });
    monitor.stop();
    const both = background as Work;
    const idleLines = linesIn(monitor.lines, idleWindow, own);
    const idleSeen = seenIn(idleLines, names, who);
    const idleOf = (process: string): Work => {
      const perSecond = perCall(both, undefined, both.seconds);
      const mine = (counts: Map<string, number>) =>
        new Map([...counts].filter(([key]) => key.startsWith(`[${process}] `)));
      return {
        ...perSecond,
        redis: new Map([...commandsOf(idleLines, who, process)].map(([name, n]) => [name, n / both.seconds])),
        redisUsec: new Map(),
        pg: mine(perSecond.pg),
        pgByRole: new Map([[process, perSecond.pgByRole.get(process) ?? 0]]),
      };
    };
    const idle: Idle = {
      api: idleOf('api'),
      worker: idleOf('worker'),
      redisCpuSeconds: without(both, empty).redisCpuSeconds,
      seconds: idleSeconds,
    };

    // Warm-up: each kind's statements prepared and scripts loaded on the connections it uses.
    for (const kind of all) await callsOf(kind, 3);
    const times = new CommandTimes(redis);
    closers.push(() => times.off());
    const firstCalls: { title: string; lines: CommandLine[] }[] = [];
    const measured: Measured[] = [];
    for (const kind of all) {
      const watched = await watch(kind, calls, counters, times, redisUrl);
      firstCalls.push({ title: kind.title, lines: linesIn(watched.first, { from: 0, to: Infinity }, own) });
      measured.push({
        name: kind.name,
        title: kind.title,
        calls,
        each: perCall(watched.work, background, calls),
        seen: seenPerCall(
          seenIn(linesIn(watched.lines, watched.window, own), names, who),
          watched.window,
          idleSeen,
          idleWindow,
          calls,
        ),
        usecEach: meanTimes(watched.timed, names, own),
      });
    }
    const trace = process.env.BENCH_BACKEND_TRACE;
    if (trace) await writeFile(trace, traceText(firstCalls, idleLines, measured, idle, who));
    return {
      rows: rowsOf(measured, { floor: cycle, backToBack, matched }, idle),
      details: detailsOf(measured, cycle, idle),
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    for (const service of owned) await service.remove();
  }
}

export const backendCostScenario: Scenario = { name: 'backend-cost', fullOnly: true, run: backendCost };
