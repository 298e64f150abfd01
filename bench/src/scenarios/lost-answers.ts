// Nothing lost between client, server and worker (openapi.yaml, "Connections" and "Jobs"), on servers
// of this scenario's own:
// - early answers: a Free user's uploads over its 1 MiB limit, many in flight at once while another
//   user's compressions keep the cores busy. The first 10 are refused 413 for their size, the rest 429
//   for the spent hour, all before their bodies are read. Each must reach Node's fetch (undici) as an
//   HTTP answer, never as a reset: network errors per 1,000 answers, target 0.
// - a waiter after an outage: a synchronous compression of a few seconds on the shared backends, Redis
//   (then PostgreSQL) cut at its proxy while it runs and restored after its job would have ended, so the
//   news of its end has to survive the outage; the time from the restore to the client's answer
//   (target: within seconds of the backend's return, 200 or a clean 5xx envelope named in the note).
// The client shares the machine's cores with the server.

import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import { sharedServicesMissing, startSharedServices } from '@pdn/e2e/shared-services';
import { labelledPdf, photoPdf } from '@pdn/fixtures';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { formatBytes, formatMs, type Row, skippedRow } from '../report.js';
import { percentile } from '../stats.js';

const SCENARIO = '16. Nothing lost';
const MiB = 1024 * 1024;
const FREE_LIMIT_BYTES = 1 * MiB;
const BODY_BYTES = 3 * MiB;
const IN_FLIGHT = 50;
/** Compressions another user keeps running during the early answers: one per core. */
const BUSY_CALLS = availableParallelism();
/** The shortest outage, whatever the compression's time. */
const OUTAGE_MS = 2000;
const RECOVERY_TARGET_MS = 5000;

const load = () => `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`;

/** What one upload came back as: an HTTP status, or the message of fetch's TypeError and its cause. */
type Outcome = number | string;

async function upload(url: string, key: string, body: Blob): Promise<Outcome> {
  const form = new FormData();
  form.append('file', body, 'big.pdf');
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    const cause = (error as Error).cause as Error | undefined;
    return `${(error as Error).message}${cause ? `: ${cause.message}` : ''}`;
  }
}

function tallyText(outcomes: readonly Outcome[]): string {
  const counts = new Map<Outcome, number>();
  for (const outcome of outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  return [...counts].map(([outcome, count]) => `${count} x ${outcome}`).join(', ');
}

/** Another user's compressions, one after another on each of `calls` connections, until `stop()`. */
function keepBusy(server: TestServer, key: string, pdf: Uint8Array, calls: number) {
  let running = true;
  const url = server.url('/api/v1/compress');
  const loops = Array.from({ length: calls }, async () => {
    while (running) await upload(url, key, new Blob([pdf], { type: 'application/pdf' }));
  });
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

async function earlyAnswers(context: BenchContext): Promise<Row> {
  const total = context.profile.lostAnswers.earlyAnswers;
  const server = await startServer({ env: { PDN_UPLOAD_LIMIT_FREE: String(FREE_LIMIT_BYTES) } });
  try {
    const free = await server.createKey({ user: 'early', plan: 'free' });
    const busy = await server.createKey({ user: 'busy', plan: 'enterprise' });
    const stopBusy = keepBusy(server, busy, await labelledPdf('b', 20), BUSY_CALLS);
    const body = new Blob([new Uint8Array(BODY_BYTES)], { type: 'application/pdf' });
    const url = server.url('/api/v1/compress');
    const outcomes: Outcome[] = [];
    let sent = 0;
    let busiest = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (sent < total) {
          sent += 1;
          busiest = Math.max(busiest, loadavg()[0] ?? 0);
          outcomes.push(await upload(url, free, body));
        }
      }),
    );
    await stopBusy();
    const errors = outcomes.filter((outcome) => typeof outcome === 'string').length;
    const perThousand = (errors * 1000) / outcomes.length;
    return {
      scenario: SCENARIO,
      case: `early answers (413, 429) to ${IN_FLIGHT} Free uploads in flight at once: network errors per 1,000`,
      pdn: perThousand.toFixed(1),
      baseline: '',
      ratio: null,
      target: '0',
      met: errors === 0,
      note: `${outcomes.length} uploads of ${formatBytes(BODY_BYTES)} over the ${formatBytes(FREE_LIMIT_BYTES)} Free limit with fetch: ${tallyText(outcomes)}; ${BUSY_CALLS} compressions of another user running meanwhile; load average up to ${busiest.toFixed(1)}, ${load()} at the end`,
    };
  } finally {
    await server.stop();
  }
}

/** A synchronous compression of `pdf` at level high: several seconds of Ghostscript for photo pages. */
function compress(server: TestServer, key: string, pdf: Uint8Array): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'photos.pdf');
  form.append('level', 'high');
  return fetch(server.url('/api/v1/compress'), {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
}

/** A service the scenario cuts at its proxy: what the shared services call it, and how people do. */
type Service = 'redis' | 'postgres';
const TITLE: Record<Service, string> = { redis: 'Redis', postgres: 'PostgreSQL' };

interface Waited {
  status: number;
  code: string;
  /** From the restore to the answer; negative when it came during the outage. */
  ms: number;
}

/**
 * One outage: `service` cut halfway through a compression that takes `aloneMs` alone, and restored
 * once the compression would have ended a second ago (at least OUTAGE_MS later), so the job ends while
 * the service is away and its waiter must still hear of it.
 */
async function outage(
  server: TestServer,
  key: string,
  pdf: Uint8Array,
  proxy: { cut(): void; restore(): void },
  aloneMs: number,
): Promise<Waited> {
  const sent = performance.now();
  let answeredAt = 0;
  const answered = compress(server, key, pdf).then(async (response) => {
    answeredAt = performance.now();
    const json = (await response.json()) as { error?: { code: string } };
    return { status: response.status, code: json.error?.code ?? '' };
  });
  await sleep(aloneMs / 2);
  proxy.cut();
  await sleep(Math.max(OUTAGE_MS, sent + aloneMs + 1000 - performance.now()));
  proxy.restore();
  const restored = performance.now();
  const { status, code } = await answered;
  return { status, code, ms: answeredAt - restored };
}

async function waiterAfterOutage(context: BenchContext, service: Service): Promise<Row> {
  const { photoPages, outages } = context.profile.lostAnswers;
  const scenarioCase = `a synchronous compression whose job ends while ${TITLE[service]} is cut: its answer (the result or a clean 5xx), timed from the restore`;
  const missing = await sharedServicesMissing();
  if (missing !== undefined) return skippedRow(SCENARIO, scenarioCase, missing);
  const services = await startSharedServices();
  let server: TestServer | undefined;
  try {
    const env = { ...services.env, PDN_SIGNING_SECRET: randomBytes(32).toString('hex') };
    server = await startServer({ env });
    const key = await server.createKey({ user: 'waiter', plan: 'premium' });
    const pdf = await photoPdf({ pages: photoPages });
    const start = performance.now();
    const alone = await compress(server, key, pdf);
    await alone.arrayBuffer();
    const aloneMs = performance.now() - start;
    const runs: Waited[] = [];
    for (let i = 0; i < outages; i += 1)
      runs.push(await outage(server, key, pdf, services[service], aloneMs));
    const times = runs.map((run) => run.ms);
    const median = percentile(times, 50);
    const slowest = Math.max(...times);
    // An answer is the job's result or an error envelope the client can act on, never a lost waiter.
    const clean = runs.every((run) => run.status === 200 || (run.status >= 500 && run.code !== ''));
    const answers = runs.map((run) => (run.code ? `${run.status} ${run.code}` : String(run.status)));
    return {
      scenario: SCENARIO,
      case: scenarioCase,
      pdn: median >= 0 ? formatMs(median) : `${formatMs(-median)} before it`,
      baseline: '',
      ratio: null,
      target: `<= ${formatMs(RECOVERY_TARGET_MS)}`,
      met: slowest <= RECOVERY_TARGET_MS && clean,
      note: `median of ${runs.length}, max ${slowest >= 0 ? formatMs(slowest) : `${formatMs(-slowest)} before the restore`} (before it: answered during the outage); answered ${answers.join(', ')}; the compression (${photoPages} photo pages, level high) took ${formatMs(aloneMs)} alone, cut halfway and restored a second after it would have ended; ${load()}`,
    };
  } finally {
    await server?.stop();
    await services.stop();
  }
}

async function lostAnswers(context: BenchContext): Promise<ScenarioResult> {
  return {
    rows: [
      await earlyAnswers(context),
      await waiterAfterOutage(context, 'redis'),
      await waiterAfterOutage(context, 'postgres'),
    ],
  };
}

export const lostAnswersScenario: Scenario = { name: 'lost-answers', fullOnly: true, run: lostAnswers };
