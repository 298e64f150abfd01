// Issue #18, under overload and at rest, on servers of this scenario's own (known configuration):
// - Back-pressure: the server's capacity is measured first, in small merges per second with as many
//   clients as it has places for synchronous calls (read from its /metrics); then small merges arrive
//   at four times that rate, each on its own (an open loop: a refused client does not slow the
//   arrivals), for `loadSeconds`, while a probe asks /healthz every 20 ms. The excess must be answered
//   503 within 50 ms, the accepted merges' p99 stay within 2x of the same merge's p99 unloaded (one at
//   a time, same server), and /healthz's p99 stay under 50 ms. The client shares the machine's cores
//   with the server, so what it spent, and how late its own event loop ran, are reported beside.
// - The cost of logging and metrics: a small merge's p50 on a server logging at info and counting
//   requests for /metrics (the defaults) against one with both off (PDN_LOG_LEVEL=quiet,
//   PDN_HTTP_METRICS=off), runs alternating so both see the same noise.
import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { type EncodedForm, encodeForm, LoadClient } from '../load-client.js';
import { cpuSeconds } from '../process-cpu.js';
import { formatMs, type Row } from '../report.js';
import { smallMergeForm } from '../small-merge.js';
import { percentile } from '../stats.js';

const SCENARIO = '12. Back-pressure';
const OVERLOAD = 4;
const REFUSAL_TARGET_MS = 50;
const ACCEPTED_TARGET = 2;
const HEALTH_TARGET_MS = 50;
const PROBE_EVERY_MS = 20;

interface Answer {
  /** 0: no answer (the connection failed). */
  status: number;
  ms: number;
}

/** One server, the key and body its merges are sent with, and the client that sends them. */
interface Merging {
  server: TestServer;
  client: LoadClient;
  key: string;
  body: EncodedForm;
}

async function merge({ server, client, key, body }: Merging): Promise<Answer> {
  const start = performance.now();
  // A connection failure is counted, not thrown: under overload it is an outcome to report.
  const status = await client
    .post(server.url('/api/v1/merge'), { authorization: `Bearer ${key}` }, body)
    .catch(() => 0);
  if (status !== 200 && status !== 503 && status !== 0) throw new Error(`small merge answered ${status}`);
  return { status, ms: performance.now() - start };
}

/** The time of a merge sent with nothing else going on, which must succeed. */
async function aloneMerge(target: Merging): Promise<number> {
  const { status, ms } = await merge(target);
  if (status !== 200) throw new Error(`a small merge alone answered ${status || 'nothing'}`);
  return ms;
}

async function sequentialMerges(target: Merging, runs: number): Promise<number[]> {
  const times: number[] = [];
  await aloneMerge(target);
  for (let i = 0; i < runs; i++) times.push(await aloneMerge(target));
  return times;
}

/** Small merges per second with `clients` sending back to back for `seconds`. */
async function throughput(target: Merging, clients: number, seconds: number): Promise<number> {
  const start = performance.now();
  const until = start + seconds * 1000;
  let merged = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) if ((await merge(target)).status === 200) merged++;
    }),
  );
  return merged / ((performance.now() - start) / 1000);
}

/** CPU milliseconds the server and its finished tools have used. */
async function serverCpuMs(server: TestServer): Promise<number> {
  const seconds = await cpuSeconds(server.pid);
  if (seconds === undefined) throw new Error('the server is gone');
  return seconds * 1000;
}

/** The server's places for synchronous calls, as its /metrics gives them. */
async function placesOf(target: Merging): Promise<number> {
  const response = await fetch(target.server.url('/metrics'));
  const match = /^pdn_sync_call_places (\d+)$/m.exec(await response.text());
  if (match === null) throw new Error('no pdn_sync_call_places on /metrics');
  return Number(match[1]);
}

/** Small merges arriving every `gapMs` until `until`, and /healthz every PROBE_EVERY_MS meanwhile. */
async function openLoop(target: Merging, gapMs: number, until: number) {
  const answers: Answer[] = [];
  const arrivals: Promise<void>[] = [];
  const health: number[] = [];
  const clients = (async () => {
    // A late wake sends every arrival that fell due meanwhile: the rate is kept, not the spacing.
    for (let next = performance.now(); next < until; next += gapMs) {
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      arrivals.push(merge(target).then((answer) => void answers.push(answer)));
    }
  })();
  const probe = (async () => {
    while (performance.now() < until) {
      const start = performance.now();
      const status = await target.client.get(target.server.url('/healthz'));
      if (status !== 200) throw new Error(`/healthz answered ${status} under load`);
      health.push(performance.now() - start);
      await sleep(PROBE_EVERY_MS);
    }
  })();
  await Promise.all([clients, probe]);
  await Promise.all(arrivals);
  return { answers, health };
}

async function overload(context: BenchContext): Promise<Row[]> {
  // The defaults: PDN_JOB_CONCURRENCY the CPU count, PDN_MAX_QUEUE none (middleware/back-pressure.ts).
  const server = await startServer();
  const client = new LoadClient();
  try {
    const key = await server.createKey({ user: 'overload', plan: 'enterprise' });
    const target = { server, client, key, body: await encodeForm(await smallMergeForm()) };
    const places = await placesOf(target);
    const unloaded = percentile(await sequentialMerges(target, context.profile.jobRuns), 99);
    const capacity = await throughput(target, places, context.profile.loadSeconds / 3);

    // What the overload cost each side, beside the answers: the client shares the cores, and its
    // event loop's delay is how late it may have read an answer.
    const clientLoop = monitorEventLoopDelay({ resolution: 1 });
    const clientBefore = process.cpuUsage();
    const serverBefore = await serverCpuMs(server);
    const start = performance.now();
    clientLoop.enable();
    const { answers, health } = await openLoop(
      target,
      1000 / (OVERLOAD * capacity),
      start + context.profile.loadSeconds * 1000,
    );
    clientLoop.disable();
    const seconds = (performance.now() - start) / 1000;
    const clientCpu = process.cpuUsage(clientBefore);
    const clientSpentMs = (clientCpu.user + clientCpu.system) / 1000;
    const serverSpentMs = (await serverCpuMs(server)) - serverBefore;

    const refused = answers.filter((answer) => answer.status === 503).map((answer) => answer.ms);
    const accepted = answers.filter((answer) => answer.status === 200).map((answer) => answer.ms);
    const unanswered = answers.filter((answer) => answer.status === 0).length;
    const cores = availableParallelism();
    const share = (ms: number) => `${((ms / 1000 / seconds / cores) * 100).toFixed(0)}%`;
    const load =
      `${(OVERLOAD * capacity).toFixed(1)} merges/s offered for ${context.profile.loadSeconds} s ` +
      `(capacity ${capacity.toFixed(1)}/s with ${places} places): ${accepted.length} merged, ${refused.length} refused, ` +
      `${unanswered} without an answer (connection failed); ` +
      `of the ${cores} cores the server used ${share(serverSpentMs)}, the client ${share(clientSpentMs)} ` +
      `(its event loop's p99 delay ${formatMs(clientLoop.percentile(99) / 1e6)}); load average ${loadavg()[0]?.toFixed(1)}`;
    const refusedP99 = refused.length > 0 ? percentile(refused, 99) : Number.NaN;
    const acceptedP99 = percentile(accepted, 99);
    const healthP99 = percentile(health, 99);
    return [
      {
        scenario: SCENARIO,
        case: `small merges offered at ${OVERLOAD}x capacity: p99 of a 503 server_busy`,
        pdn: formatMs(refusedP99),
        baseline: '',
        ratio: null,
        target: `< ${REFUSAL_TARGET_MS} ms`,
        met: refusedP99 < REFUSAL_TARGET_MS,
        note: load,
      },
      {
        scenario: SCENARIO,
        case: `small merges offered at ${OVERLOAD}x capacity: p99 of the accepted / p99 unloaded`,
        pdn: formatMs(acceptedP99),
        baseline: formatMs(unloaded),
        ratio: acceptedP99 / unloaded,
        target: `<= ${ACCEPTED_TARGET.toFixed(2)}`,
        met: acceptedP99 / unloaded <= ACCEPTED_TARGET,
        note: `unloaded: ${context.profile.jobRuns} merges one at a time, same server; accepted p50 ${formatMs(percentile(accepted, 50))}`,
      },
      {
        scenario: SCENARIO,
        case: `GET /healthz p99 during the overload`,
        pdn: formatMs(healthP99),
        baseline: '',
        ratio: null,
        target: `< ${HEALTH_TARGET_MS} ms`,
        met: healthP99 < HEALTH_TARGET_MS,
        note: `${health.length} probes, one every ${PROBE_EVERY_MS} ms`,
      },
    ];
  } finally {
    client.close();
    await server.stop();
  }
}

async function observabilityCost(context: BenchContext): Promise<Row> {
  const observed = await startServer({ env: { PDN_LOG_LEVEL: 'info' } });
  const bare = await startServer({ env: { PDN_LOG_LEVEL: 'quiet', PDN_HTTP_METRICS: 'off' } });
  const client = new LoadClient();
  try {
    const body = await encodeForm(await smallMergeForm());
    const targets = {
      observed: {
        server: observed,
        client,
        body,
        key: await observed.createKey({ user: 'observed', plan: 'enterprise' }),
      },
      bare: { server: bare, client, body, key: await bare.createKey({ user: 'bare', plan: 'enterprise' }) },
    };
    const times = { observed: [] as number[], bare: [] as number[] };
    await aloneMerge(targets.observed);
    await aloneMerge(targets.bare);
    // CPU time too: a difference of a few percent drowns in a shared machine's wall-clock noise.
    const cpuBefore = { observed: await serverCpuMs(observed), bare: await serverCpuMs(bare) };
    for (let i = 0; i < context.profile.jobRuns; i++) {
      times.observed.push(await aloneMerge(targets.observed));
      times.bare.push(await aloneMerge(targets.bare));
    }
    const perMerge = async (server: TestServer, before: number) =>
      ((await serverCpuMs(server)) - before) / context.profile.jobRuns;
    const cpu = {
      observed: await perMerge(observed, cpuBefore.observed),
      bare: await perMerge(bare, cpuBefore.bare),
    };
    const withThem = percentile(times.observed, 50);
    const without = percentile(times.bare, 50);
    return {
      scenario: SCENARIO,
      case: `small merge p50, logs at info and /metrics counting / both off (${context.profile.jobRuns} runs each)`,
      pdn: formatMs(withThem),
      baseline: formatMs(without),
      ratio: withThem / without,
      target: '',
      met: null,
      note:
        `cost ${withThem - without >= 0 ? '+' : ''}${formatMs(withThem - without)} per request (reported only); ` +
        `server CPU per merge, its tools included, ${formatMs(cpu.observed)} / ${formatMs(cpu.bare)}; load average ${loadavg()[0]?.toFixed(1)}`,
    };
  } finally {
    client.close();
    await observed.stop();
    await bare.stop();
  }
}

async function backPressure(context: BenchContext): Promise<ScenarioResult> {
  return { rows: [...(await overload(context)), await observabilityCost(context)] };
}

export const backPressureScenario: Scenario = { name: 'back-pressure', run: backPressure };
