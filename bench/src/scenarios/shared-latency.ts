// What the shared path adds to a small call, as deployed for many processes: a small merge through an
// `--role api` process and an `--role worker` process (its job through PostgreSQL, the bucket and
// BullMQ on Redis) against the bench's embedded server, the two taking turns call by call so both see
// the same machine, at least 500 calls each, three runs each on a quiet machine and beside a named
// background load: one CPU-bound process at the bench's own nice level, holding one of the cores
// the way another tenant's busy process would. Targets: the shared path adds at most 30 ms at p50 and
// at most doubles p99, in every run.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import { sharedServicesMissing, startSharedServices } from '@pdn/e2e/shared-services';
import { ADMIT_ALL } from '../admit-all.js';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { loadNote } from '../machine.js';
import { formatMs, type Row, skippedRow } from '../report.js';
import { smallMergeForm, timedMerge } from '../small-merge.js';
import { percentile } from '../stats.js';

const SCENARIO = '8c. Shared path latency';
const P50_ADDED_MS = 30;
const P99_RATIO = 2;

interface Run {
  embedded: { p50: number; p99: number };
  shared: { p50: number; p99: number };
}

/** A process that spins on one core until killed, at the bench's nice level. */
function spinner(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

async function oneRun(
  samples: number,
  merge: Record<'embedded' | 'shared', () => Promise<number>>,
): Promise<Run> {
  const times = { embedded: [] as number[], shared: [] as number[] };
  for (let i = 0; i < samples; i += 1) {
    const order = i % 2 === 0 ? (['embedded', 'shared'] as const) : (['shared', 'embedded'] as const);
    for (const which of order) times[which].push(await merge[which]());
  }
  const of = (values: number[]) => ({ p50: percentile(values, 50), p99: percentile(values, 99) });
  return { embedded: of(times.embedded), shared: of(times.shared) };
}

function rowOf(condition: string, runs: Run[], samples: number, loadSeen: string): Row {
  const added = runs.map((run) => run.shared.p50 - run.embedded.p50);
  const ratios = runs.map((run) => run.shared.p99 / run.embedded.p99);
  const middle = [...runs].sort((a, b) => a.shared.p50 - a.embedded.p50 - (b.shared.p50 - b.embedded.p50))[
    Math.floor(runs.length / 2)
  ] as Run;
  const spread = (values: number[], show: (n: number) => string) =>
    `${show(Math.min(...values))} to ${show(Math.max(...values))}`;
  const each = runs
    .map(
      (run, i) =>
        `run ${i + 1}: p50 ${formatMs(run.shared.p50)} vs ${formatMs(run.embedded.p50)}, p99 ${formatMs(run.shared.p99)} vs ${formatMs(run.embedded.p99)}`,
    )
    .join('; ');
  return {
    scenario: SCENARIO,
    case: `a small merge (2 + 2 pages) ${condition}: shared path (an --role api and an --role worker process; PostgreSQL, Redis, BullMQ, S3 on s3rver) vs embedded, p50 (the middle run of ${runs.length})`,
    pdn: formatMs(middle.shared.p50),
    baseline: `embedded ${formatMs(middle.embedded.p50)}`,
    ratio: middle.shared.p50 / middle.embedded.p50,
    target: `p50 <= +${P50_ADDED_MS} ms, p99 <= ${P99_RATIO} x, every run`,
    met: added.every((a) => a <= P50_ADDED_MS) && ratios.every((r) => r <= P99_RATIO),
    note: `p50 added ${spread(added, formatMs)}, p99 ratio ${spread(ratios, (r) => r.toFixed(2))} over the runs; ${each}. ${samples} merges each side a run, one at a time, taking turns at going first; ${loadSeen}`,
  };
}

async function sharedLatency(context: BenchContext): Promise<ScenarioResult> {
  const missing = await sharedServicesMissing();
  if (missing !== undefined)
    return {
      rows: [skippedRow(SCENARIO, 'a small merge through the shared path against embedded', missing)],
    };
  const { samples, runs } = context.profile.sharedLatency;
  // The bucket in a process of its own, as S3 is: s3rver here would run on the loop that times the calls.
  const services = await startSharedServices(undefined, { bucketProcess: true });
  const started: TestServer[] = [];
  try {
    const env = { ...ADMIT_ALL, ...services.directEnv, PDN_SIGNING_SECRET: randomBytes(32).toString('hex') };
    const worker = await startServer({ env, role: 'worker' });
    started.push(worker);
    const api = await startServer({ env, role: 'api' });
    started.push(api);
    const key = await api.createKey({ user: 'latency', plan: 'enterprise' });
    const form = await smallMergeForm(2);
    const merge = {
      embedded: () => timedMerge(context.server.baseUrl, context.apiKey, form),
      shared: () => timedMerge(api.baseUrl, key, form),
    };
    // Unmeasured calls warm both paths up: connections, prepared statements, scripts loaded.
    await oneRun(20, merge);
    const rows: Row[] = [];
    for (const [condition, busy] of [
      ['on a quiet machine', false],
      ['beside one CPU-bound process at the same nice level', true],
    ] as const) {
      const spinning = busy ? spinner() : undefined;
      try {
        const done: Run[] = [];
        for (let i = 0; i < runs; i += 1) done.push(await oneRun(samples, merge));
        rows.push(rowOf(condition, done, samples, loadNote()));
      } finally {
        spinning?.kill('SIGKILL');
      }
    }
    return { rows };
  } finally {
    for (const server of started.reverse()) await server.stop();
    await services.stop();
  }
}

export const sharedLatencyScenario: Scenario = { name: 'shared-latency', fullOnly: true, run: sharedLatency };
