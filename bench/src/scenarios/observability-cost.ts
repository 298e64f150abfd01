// The cost of logging and metrics: a small merge's p50 on a server logging at info and counting
// requests for /metrics (the defaults) against one with both off (PDN_LOG_LEVEL=quiet,
// PDN_HTTP_METRICS=off), runs alternating so both see the same noise, and the server's CPU per merge.
import { loadavg } from 'node:os';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { type EncodedForm, encodeForm, LoadClient } from '../load-client.js';
import { treeCpuSeconds } from '../process-cpu.js';
import { formatMs, type Row } from '../report.js';
import { smallMergeForm } from '../small-merge.js';
import { percentile } from '../stats.js';

const SCENARIO = '14. Cost of logs and metrics';

interface Merging {
  server: TestServer;
  client: LoadClient;
  key: string;
  body: EncodedForm;
}

/** The time of a small merge sent with nothing else going on, which must succeed. */
async function aloneMerge({ server, client, key, body }: Merging): Promise<number> {
  const start = performance.now();
  const status = await client.post(server.url('/api/v1/merge'), { authorization: `Bearer ${key}` }, body);
  if (status !== 200) throw new Error(`a small merge alone answered ${status}`);
  return performance.now() - start;
}

/**
 * CPU milliseconds the server and the processes below it have used: its tool launcher and the tools
 * that ended under it.
 */
async function serverCpuMs(server: TestServer): Promise<number> {
  return (await treeCpuSeconds(server.pid)) * 1000;
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

async function observability(context: BenchContext): Promise<ScenarioResult> {
  return { rows: [await observabilityCost(context)] };
}

export const observabilityScenario: Scenario = { name: 'observability-cost', run: observability };
