// What scaling out buys, and what it costs the shared services. One API process and worker
// processes on the shared backends (jobs over BullMQ): a mixed workload of synchronous calls (a
// Ghostscript compress, a merge, a split per round, from 4 clients at once) is run by 1 worker and by
// 2, each at PDN_JOB_CONCURRENCY 1 (target: 2 workers >= 1.7x the throughput of 1), then each at
// concurrency 2 (the scaling efficiency is reported: the machine has 2 cores). From the 2-worker run
// at concurrency 1, per request: Redis commands and bytes (a redis-server of the bench's own, so its
// counters are ours alone), PostgreSQL round trips (counted on the wire through the harness's proxy:
// postgres-round-trips.ts) and transactions (the run's own database in pg_stat_database) and bytes written into the bucket (s3rver's event notifications: the inputs the API process stores, read
// back once by the worker, and the outputs); then what 20 workers would need from each.
// Each pass also says what bounded it: the share of the pass the workers' slots held a job (from
// BullMQ's own event stream: each job's `active` to its `completed`), which falls short of 100% only
// where the dispatch leaves a worker waiting, and the cores each process kept busy (CPU seconds over
// the pass's seconds), which on this shared 2-core machine is what the other work left us. The quick
// profile's passes (one round, 4-page documents) are a smoke run: its ratio is shown, not judged.
// Skipped, with the reason in the row, without PostgreSQL, redis-server or Ghostscript.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import {
  answers,
  type SharedServices,
  sharedServicesMissing,
  startSharedServices,
} from '@pdn/e2e/shared-services';
import { embeddedFontPdf, labelledPdf } from '@pdn/fixtures';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ADMIT_ALL } from '../admit-all.js';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { postgresRoundTrips } from '../postgres-round-trips.js';
import { treeCpuSeconds } from '../process-cpu.js';
import { formatBytes, type Row, skippedRow } from '../report.js';

const SCENARIO = '11. Scaling out';
const CLIENTS = 4;
/** PostgreSQL flushes a backend's statistics within 10 s of it going idle (PGSTAT_IDLE_INTERVAL). */
const PG_STATS_FLUSH_MS = 11_000;
const PROJECTED_WORKERS = 20;

interface Setup {
  workers: number;
  concurrency: number;
}

/** What kept a pass busy, on average: the workers' slots holding a job, and the cores each part used. */
interface Cores {
  /** The share of the pass's slot-seconds (workers x concurrency) during which a slot held a job. */
  slots: number;
  workers: number;
  api: number;
  /** This process: the clients and s3rver. */
  bench: number;
  redis: number;
}

interface Counters {
  redisCommands: number;
  redisBytes: number;
  pgRoundTrips: number;
  pgTransactions: number;
  bucketBytes: number;
  bucketInputBytes: number;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A redis-server of the bench's own, without persistence; stopped by the returned function. */
async function privateRedis(): Promise<{
  url: string;
  pid: number;
  client: Redis;
  stop: () => Promise<void>;
}> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let attempt = 0; !(await answers(url, port)); attempt += 1) {
    if (attempt === 50 || child.exitCode !== null) throw new Error('redis-server did not start');
    await sleep(100);
  }
  const client = new Redis(url);
  return {
    url,
    pid: child.pid as number,
    client,
    stop: async () => {
      client.disconnect();
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** One synchronous call; throws unless it answers 200. */
async function call(baseUrl: string, key: string, path: string, body: FormData): Promise<void> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body,
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
}

async function scaleOut(context: BenchContext): Promise<ScenarioResult> {
  const skipped = (note: string): ScenarioResult => ({
    rows: [skippedRow(SCENARIO, 'throughput with 1 and 2 worker processes', note)],
  });
  const missing = await sharedServicesMissing();
  if (missing !== undefined) return skipped(missing);
  let redis: Awaited<ReturnType<typeof privateRedis>>;
  try {
    redis = await privateRedis();
  } catch (error) {
    return skipped(`no redis-server to start: ${(error as Error).message}`);
  }
  const services: SharedServices = await startSharedServices();
  // PostgreSQL through the harness's proxy, which counts its round trips (a few bytes piped per
  // statement in this process: nothing beside the jobs' CPU).
  const pgRoundTrips = postgresRoundTrips();
  services.postgres.tapReplies(pgRoundTrips.listenerOf);
  const env = {
    ...services.env,
    PDN_REDIS_URL: redis.url,
    PDN_SIGNING_SECRET: randomBytes(32).toString('hex'),
    PDN_LOG_LEVEL: 'warn',
  };
  const database = new URL(services.env.PDN_DATABASE_URL as string).pathname.slice(1);
  const pgClient = new pg.Client({
    connectionString: process.env.PDN_TEST_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test',
  });
  await pgClient.connect();
  // Every client's call waits its turn in the queue (it runs none itself), so the workers'
  // throughput is what the rows measure.
  const api = await startServer({ env: { ...env, ...ADMIT_ALL }, role: 'api' });
  let workers: TestServer[] = [];
  try {
    const key = await api.createKey({ user: 'bench', plan: 'enterprise' });
    const pages = context.profile.name === 'full' ? 30 : 4;
    const [fonts, a, b, long] = [
      await embeddedFontPdf({ pages }),
      await labelledPdf('a', pages),
      await labelledPdf('b', pages),
      await labelledPdf('s', pages),
    ];
    const pdf = (bytes: Uint8Array) => new Blob([bytes], { type: 'application/pdf' });
    const work: (() => Promise<void>)[] = [];
    for (let round = 0; round < context.profile.scaleOutRounds; round += 1)
      work.push(
        () => {
          const form = new FormData();
          form.append('file', pdf(fonts), 'fonts.pdf');
          return call(api.baseUrl, key, '/api/v1/compress', form);
        },
        () => {
          const form = new FormData();
          form.append('files[]', pdf(a), 'a.pdf');
          form.append('files[]', pdf(b), 'b.pdf');
          return call(api.baseUrl, key, '/api/v1/merge', form);
        },
        () => {
          const form = new FormData();
          form.append('file', pdf(long), 's.pdf');
          form.append('ranges', `1-${Math.ceil(pages / 2)},${Math.ceil(pages / 2) + 1}-${pages}`);
          return call(api.baseUrl, key, '/api/v1/split', form);
        },
      );
    /**
     * CPU seconds so far of the workers and the API process (each with its tool launcher and the tools
     * that ended under it), this process and Redis.
     */
    const cpuNow = async () => {
      const seconds = async (pids: number[]) => {
        let total = 0;
        for (const pid of pids) total += await treeCpuSeconds(pid);
        return total;
      };
      const own = process.cpuUsage();
      return {
        workers: await seconds(workers.map((worker) => worker.pid)),
        api: await seconds([api.pid]),
        bench: (own.user + own.system) / 1e6,
        redis: await seconds([redis.pid]),
      };
    };
    /**
     * Milliseconds during which jobs were active between `from` and `to` (Unix ms), summed over jobs:
     * BullMQ's event stream, whose entry ids are the Redis server's clock (this machine's).
     */
    const eventStream = `${services.env.PDN_REDIS_KEY_PREFIX}bull:jobs:events`;
    const activeMs = async (from: number, to: number): Promise<number> => {
      const started = new Map<string, number>();
      let total = 0;
      for (const [id, fields] of await redis.client.xrange(eventStream, from, to)) {
        const at = Number(id.split('-')[0]);
        const field = (name: string) => fields[fields.indexOf(name) + 1];
        const jobId = field('jobId') ?? '';
        if (field('event') === 'active') started.set(jobId, at);
        else if (['completed', 'failed'].includes(field('event') ?? '') && started.has(jobId))
          total += at - (started.get(jobId) as number);
      }
      return total;
    };
    /** The workload's requests per second, CLIENTS calls in flight at once, and what kept it busy. */
    const throughput = async (slots: number): Promise<{ perSecond: number; cores: Cores }> => {
      const queue = [...work];
      const cpuBefore = await cpuNow();
      const startedAt = Date.now();
      const start = performance.now();
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          for (let next = queue.shift(); next; next = queue.shift()) await next();
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      const cpuAfter = await cpuNow();
      const cores = (part: keyof typeof cpuAfter) => (cpuAfter[part] - cpuBefore[part]) / seconds;
      return {
        perSecond: work.length / seconds,
        cores: {
          slots: (await activeMs(startedAt, Date.now())) / 1000 / seconds / slots,
          workers: cores('workers'),
          api: cores('api'),
          bench: cores('bench'),
          redis: cores('redis'),
        },
      };
    };
    const counters = async (): Promise<Counters> => {
      const info = await redis.client.info('stats');
      const field = (name: string) => Number(new RegExp(`${name}:(\\d+)`).exec(info)?.[1] ?? Number.NaN);
      await pgClient.query('SELECT pg_stat_clear_snapshot()');
      const [row] = (
        await pgClient.query(
          'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
          [database],
        )
      ).rows;
      return {
        redisCommands: field('total_commands_processed'),
        redisBytes: field('total_net_input_bytes') + field('total_net_output_bytes'),
        pgRoundTrips: pgRoundTrips.count(),
        pgTransactions: Number(row?.n ?? Number.NaN),
        bucketBytes: services.bucketWritten(),
        bucketInputBytes: services.bucketWritten('inputs/'),
      };
    };
    const run = async ({ workers: count, concurrency }: Setup, measureCosts = false) => {
      for (const worker of workers) await worker.stop();
      workers = await Promise.all(
        Array.from({ length: count }, () =>
          startServer({
            env: { ...env, PDN_JOB_CONCURRENCY: String(concurrency) },
            role: 'worker',
            dataDir: api.dataDir,
          }),
        ),
      );
      // Warms the processes and their connections up: a merge per worker, at once, so the second worker
      // does not meet its first job (its first S3 and PostgreSQL connections, its first tools) in the pass.
      await Promise.all(workers.map(() => work[1]?.()));
      if (measureCosts) await sleep(PG_STATS_FLUSH_MS);
      const before = measureCosts ? await counters() : undefined;
      const { perSecond, cores } = await throughput(count * concurrency);
      if (!before) return { perSecond, cores, costs: undefined };
      await sleep(PG_STATS_FLUSH_MS);
      const after = await counters();
      const per = (name: keyof Counters) => (after[name] - before[name]) / work.length;
      return {
        perSecond,
        cores,
        costs: {
          redisCommands: per('redisCommands'),
          redisBytes: per('redisBytes'),
          pgRoundTrips: per('pgRoundTrips'),
          pgTransactions: per('pgTransactions'),
          bucketBytes: per('bucketBytes'),
          bucketInputBytes: per('bucketInputBytes'),
        },
      };
    };
    // 1 then 2 workers, twice, so both see the same machine; the figures are the sums of both passes.
    const singles = [await run({ workers: 1, concurrency: 1 })];
    const doubleRun = await run({ workers: 2, concurrency: 1 }, true);
    const doubles = [doubleRun];
    singles.push(await run({ workers: 1, concurrency: 1 }));
    doubles.push(await run({ workers: 2, concurrency: 1 }));
    const single2 = await run({ workers: 1, concurrency: 2 });
    const double2 = await run({ workers: 2, concurrency: 2 });
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    const single = singles.map((pass) => pass.perSecond);
    const double = doubles.map((pass) => pass.perSecond);
    const ratio = sum(double) / sum(single);
    const costs = doubleRun.costs as Counters;
    const rate = (value: number) => `${value.toFixed(2)} req/s`;
    /** The cores each part kept busy, averaged over `passes`. */
    const busy = (passes: { cores: Cores }[]) => {
      const mean = (part: keyof Cores) => sum(passes.map((pass) => pass.cores[part])) / passes.length;
      return `slots holding a job ${(mean('slots') * 100).toFixed(0)}%, cores busy: workers ${mean('workers').toFixed(2)}, API ${mean('api').toFixed(2)}, clients and s3rver ${mean('bench').toFixed(2)}, Redis ${mean('redis').toFixed(2)}`;
    };
    const judged = context.profile.name === 'full';
    const rows: Row[] = [
      {
        scenario: SCENARIO,
        case: `mixed workload (compress, merge, split; ${CLIENTS} clients) through 1 API process: 2 worker processes vs 1, each at concurrency 1`,
        pdn: rate(sum(double) / 2),
        baseline: `1 worker ${rate(sum(single) / 2)}`,
        ratio,
        target: judged ? '>= 1.7' : '>= 1.7 (full profile)',
        met: judged ? ratio >= 1.7 : null,
        note: `${work.length} calls per pass, 2 passes each, interleaved; 2 cores shared with the API process, PostgreSQL, Redis and s3rver. 1 worker: ${busy(singles)}; 2 workers: ${busy(doubles)}${judged ? '' : `. Quick profile, not judged: ${work.length} calls of ${pages}-page documents per pass, all at once, so the 2-worker pass lasts at least the compress alone and the ratio stays near (compress + merge + split) / compress`}`,
      },
      {
        scenario: SCENARIO,
        case: 'the same, each worker at concurrency 2: scaling efficiency (2-worker throughput / twice the 1-worker one)',
        pdn: rate(double2.perSecond),
        baseline: `1 worker ${rate(single2.perSecond)}`,
        ratio: double2.perSecond / single2.perSecond,
        target: '',
        met: null,
        note: `efficiency ${((double2.perSecond / single2.perSecond / 2) * 100).toFixed(0)}%; 4 jobs at once on 2 cores: the CPU, not the workers, is the bound. 1 worker: ${busy([single2])}; 2 workers: ${busy([double2])}`,
      },
      {
        scenario: SCENARIO,
        case: 'per request, 2 workers at concurrency 1: Redis commands, PostgreSQL round trips, bytes into the bucket',
        pdn: `${costs.redisCommands.toFixed(1)} Redis, ${costs.pgRoundTrips.toFixed(1)} PostgreSQL, ${formatBytes(costs.bucketBytes)}`,
        baseline: '',
        ratio: null,
        target: '',
        met: null,
        note: `bucket: ${formatBytes(costs.bucketInputBytes)} of it inputs, read back once by a worker, so ${formatBytes(costs.bucketBytes + costs.bucketInputBytes)} moved; Redis ${formatBytes(costs.redisBytes)} in and out per request, BullMQ's background commands (lock renewals, stalled checks, event reads) included, a command a round trip (but those of one MULTI); PostgreSQL: ${costs.pgTransactions.toFixed(1)} transactions in those round trips`,
      },
    ];
    // 20 workers at concurrency 1 doing this workload at the 2-worker rate each.
    const requestsPerSecond = (sum(double) / 2 / 2) * PROJECTED_WORKERS;
    const markdown = [
      `Measured per request with 2 workers, projected for ${PROJECTED_WORKERS} workers at concurrency 1 each running this mix at the measured per-worker rate (${requestsPerSecond.toFixed(1)} requests/s in all):`,
      '',
      '| Service | Per request | At 20 workers |',
      '| --- | --- | --- |',
      `| Redis | ${costs.redisCommands.toFixed(1)} commands, ${formatBytes(costs.redisBytes)} | ${(costs.redisCommands * requestsPerSecond).toFixed(0)} commands/s, ${formatBytes(costs.redisBytes * requestsPerSecond)}/s |`,
      `| PostgreSQL | ${costs.pgRoundTrips.toFixed(1)} round trips, ${costs.pgTransactions.toFixed(1)} transactions | ${(costs.pgRoundTrips * requestsPerSecond).toFixed(0)} round trips/s, ${(costs.pgTransactions * requestsPerSecond).toFixed(0)} transactions/s |`,
      `| Bucket | ${formatBytes(costs.bucketBytes)} written (${formatBytes(costs.bucketInputBytes)} inputs, the rest outputs), ${formatBytes(costs.bucketInputBytes)} read | ${formatBytes(costs.bucketBytes * requestsPerSecond)}/s written, ${formatBytes(costs.bucketInputBytes * requestsPerSecond)}/s read |`,
      '',
      "BullMQ adds per worker, idle or not, a lock renewal per running job every 7.5 s and a stalled-job check every 10 s: negligible beside the per-request figures. Connections: each process holds about 5 Redis connections (requests, queue, the BullMQ worker or events and its blocking reads, the cancel channel) and up to 10 PostgreSQL ones (the pool's max): 20 workers and a few API processes would pass a default PostgreSQL `max_connections` of 100, so lower the pool or put a pooler (PgBouncer) in front. Inputs go through the bucket (written by the API process, read by the worker, removed when the job ends): the figures count every object written, inputs and outputs, and the inputs read back; downloads of the outputs by clients come on top (one per output when each is fetched once).",
    ].join('\n');
    return { rows, details: [{ title: `Scaling out: the cost at ${PROJECTED_WORKERS} workers`, markdown }] };
  } finally {
    for (const worker of workers) await worker.stop();
    await api.stop();
    await pgClient.end();
    await services.stop();
    await redis.stop();
  }
}

export const scaleOutScenario: Scenario = { name: 'scale-out', fullOnly: true, run: scaleOut };
