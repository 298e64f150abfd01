// Issue #15: what the shared backends cost. (a) One rate-limit decision (count the rolling hour and
// record the request) in Redis against SQLite, p99 with 50 clients deciding at once, each for a user
// of its own: target < 2 ms. (b) A small merge (two 2-page PDFs) through a server on PostgreSQL, Redis
// and S3 (s3rver) against the embedded server, p50 of the whole request: target at most +30 ms.
// Skipped, with the reason in the row, when PostgreSQL or Redis is absent.
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { startServer } from '@pdn/e2e/harness';
import { type LimiterUnderTest, redisLimiter, sqliteLimiter } from '@pdn/e2e/rate-limiters';
import { sharedServicesMissing, startSharedServices } from '@pdn/e2e/shared-services';
import { labelledPdf } from '@pdn/fixtures';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import type { Row } from '../report.js';
import { percentile } from '../stats.js';

const CLIENTS = 50;
const SCENARIO = '7. Shared backends';
const REDIS_URL = process.env.PDN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Every decision's latency, 50 clients at once, each deciding `perClient` times for its own user. */
async function decisionLatencies(under: LimiterUnderTest, perClient: number): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    under.userIds.map(async (userId) => {
      for (let i = 0; i < perClient; i += 1) {
        const start = performance.now();
        await under.limiter.consume(userId, 1000);
        latencies.push(performance.now() - start);
      }
    }),
  );
  return latencies;
}

async function decisions(context: BenchContext): Promise<Row[]> {
  const perClient = context.profile.shared.decisionsPerClient;
  const measured: Record<string, number[]> = {};
  let insideRedis = Number.NaN;
  for (const open of [() => sqliteLimiter(CLIENTS), () => redisLimiter(CLIENTS, REDIS_URL)]) {
    const under = await open();
    try {
      await decisionLatencies(under, 2);
      const before = await under.scriptTime?.();
      measured[under.name] = await decisionLatencies(under, perClient);
      const after = await under.scriptTime?.();
      // Other clients of the machine's Redis may run scripts too: an upper bound, close when alone.
      if (before && after) insideRedis = (after.usec - before.usec) / Math.max(1, after.calls - before.calls);
    } finally {
      await under.close();
    }
  }
  const at = (name: string, p: number) => percentile(measured[name] ?? [Number.NaN], p);
  const [redis, sqlite] = [at('Redis', 99), at('SQLite', 99)];
  // One process runs the 50 clients, so a decision's latency includes waiting for the event loop:
  // on a busy machine that wait, not Redis, is most of the figure. The load says how busy it was.
  const load = `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`;
  return [
    {
      scenario: SCENARIO,
      case: `p99 of one rate-limit decision, ${CLIENTS} concurrent clients: Redis (Lua script) vs SQLite`,
      pdn: ms(redis),
      baseline: `SQLite ${ms(sqlite)}`,
      ratio: redis / sqlite,
      target: '< 2 ms',
      met: redis < 2,
      note: `p50 Redis ${ms(at('Redis', 50))}, SQLite ${ms(at('SQLite', 50))}; inside Redis ${insideRedis.toFixed(0)} µs per decision (its commandstats); ${CLIENTS * perClient} decisions each, the 50 clients in one process; ${load}`,
    },
  ];
}

/** One merge's wall time, request sent to answer read. */
async function timedMerge(baseUrl: string, key: string, body: FormData): Promise<number> {
  const start = performance.now();
  const response = await fetch(`${baseUrl}/api/v1/merge`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body,
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`merge answered ${response.status}`);
  return performance.now() - start;
}

async function mergeLatency(context: BenchContext): Promise<Row[]> {
  const [a, b] = [await labelledPdf('a', 2), await labelledPdf('b', 2)];
  const body = () => {
    const form = new FormData();
    form.append('files[]', new Blob([a], { type: 'application/pdf' }), 'a.pdf');
    form.append('files[]', new Blob([b], { type: 'application/pdf' }), 'b.pdf');
    return form;
  };
  const runs = context.profile.shared.merges;
  const services = await startSharedServices();
  const shared = await startServer({
    env: { ...services.env, PDN_SIGNING_SECRET: randomBytes(32).toString('hex') },
  });
  try {
    const key = await shared.createKey({ user: 'bench', plan: 'enterprise' });
    const embeddedMerge = () => timedMerge(context.server.baseUrl, context.apiKey, body());
    const sharedMerge = () => timedMerge(shared.baseUrl, key, body());
    // Two unmeasured rounds warm both servers and their connections up.
    for (let i = 0; i < 2; i += 1) await Promise.all([embeddedMerge(), sharedMerge()]);
    // Interleaved, so both see the same machine load.
    const embeddedTimes: number[] = [];
    const sharedTimes: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      embeddedTimes.push(await embeddedMerge());
      sharedTimes.push(await sharedMerge());
    }
    const [embedded, onShared] = [percentile(embeddedTimes, 50), percentile(sharedTimes, 50)];
    return [
      {
        scenario: SCENARIO,
        case: 'p50 of a small merge (2 + 2 pages): shared backends (PostgreSQL, Redis, S3 on s3rver) vs embedded',
        pdn: ms(onShared),
        baseline: `embedded ${ms(embedded)}`,
        ratio: onShared / embedded,
        target: '<= +30 ms',
        met: onShared - embedded <= 30,
        note: `added ${ms(onShared - embedded)}; ${runs} merges each, interleaved`,
      },
    ];
  } finally {
    await shared.stop();
    await services.stop();
  }
}

async function sharedBackends(context: BenchContext): Promise<ScenarioResult> {
  const missing = await sharedServicesMissing();
  if (missing !== undefined) {
    return {
      rows: [
        {
          scenario: SCENARIO,
          case: 'rate-limit decisions and merge latency on shared backends',
          pdn: 'skipped',
          baseline: '',
          ratio: null,
          target: '',
          met: null,
          note: missing,
        },
      ],
    };
  }
  return { rows: [...(await decisions(context)), ...(await mergeLatency(context))] };
}

export const sharedBackendsScenario: Scenario = { name: 'shared-backends', run: sharedBackends };
