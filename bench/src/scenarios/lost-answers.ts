// Nothing lost between client, server and worker (openapi.yaml, "Connections" and "Jobs"), on servers
// of this scenario's own:
// - early answers: a Free user's uploads over its 1 MiB limit, many in flight at once while another
//   user's compressions keep the cores busy. The first 10 are refused 413 for their size, the rest 429
//   for the spent hour, all before their bodies are read. Each must reach Node's fetch (undici) as an
//   HTTP answer, never as a reset: network errors per 1,000 answers, target 0.
// - a waiter after an outage: a synchronous compression of a few seconds on the shared backends, with
//   a Redis (then a PostgreSQL) of the scenario's own stopped for real while it runs on a worker and
//   started again a second after its job ended, so the news of its end has to survive the outage (and
//   this Redis, keeping nothing on disk, comes back empty); the time from the service's return to the
//   client's answer at the API process (target: within seconds, 200 or a clean 5xx envelope named in
//   the note).
// The client shares the machine's cores with the server.

import { randomBytes, randomUUID } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import { type OwnService, ownPostgres, ownRedis, ownServicesMissing } from '@pdn/e2e/own-services';
import { sharedServicesMissing, startSharedServices } from '@pdn/e2e/shared-services';
import { labelledPdf, photoPdf } from '@pdn/fixtures';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { loadNote } from '../machine.js';
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
/** How long the job is given to end while its service is away: many times its time alone. */
const ENDED_WITHIN_MS = 60_000;
/** A small job answered within this is a deployment taking jobs as usual. */
const PROMPT_MS = 1000;
const RECOVERY_TARGET_MS = 5000;

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
      note: `${outcomes.length} uploads of ${formatBytes(BODY_BYTES)} over the ${formatBytes(FREE_LIMIT_BYTES)} Free limit with fetch: ${tallyText(outcomes)}; ${BUSY_CALLS} compressions of another user running meanwhile; load average up to ${busiest.toFixed(1)}, ${loadNote()} at the end`,
    };
  } finally {
    await server.stop();
  }
}

/**
 * A synchronous compression of `pdf` at level high: seconds of Ghostscript for photo pages. `requestId`
 * names it in the server's log, where its job's end is told.
 */
function compress(
  server: TestServer,
  key: string,
  pdf: Uint8Array,
  requestId = randomUUID(),
): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'photos.pdf');
  form.append('level', 'high');
  return fetch(server.url('/api/v1/compress'), {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'x-request-id': requestId },
    body: form,
  });
}

/** A service the scenario stops: what the shared services call it, and how people do. */
type Service = 'redis' | 'postgres';
const TITLE: Record<Service, string> = { redis: 'Redis', postgres: 'PostgreSQL' };

interface Waited {
  status: number;
  code: string;
  /** From the service's return to the answer; negative when it came during the outage. */
  ms: number;
  /** The job ended while the service was away, as the case needs: its end was told in the log by then. */
  endedDuringOutage: boolean;
}

/**
 * Until a small job is answered within PROMPT_MS: after a Redis that came back empty, the worker's
 * connections take a few seconds to be back, and a job sent meanwhile starts late, which would put
 * the next outage before its job runs.
 */
async function untilPrompt(server: TestServer, key: string): Promise<void> {
  const small = await labelledPdf('p', 1);
  for (const giveUpAt = performance.now() + ENDED_WITHIN_MS; performance.now() < giveUpAt; await sleep(200)) {
    const started = performance.now();
    const response = await compress(server, key, small);
    await response.arrayBuffer();
    if (response.status === 200 && performance.now() - started < PROMPT_MS) return;
  }
  throw new Error(
    `the deployment answered no small job within ${PROMPT_MS} ms for ${ENDED_WITHIN_MS / 1000} s`,
  );
}

/**
 * One outage: `service` stopped halfway through a compression that takes `aloneMs` alone, and started
 * again a second after its job ended (at least OUTAGE_MS after the call), so the job ends while the
 * service is away and its waiter must still hear of it.
 */
async function outage(
  { api: server, worker }: { api: TestServer; worker: TestServer },
  key: string,
  pdf: Uint8Array,
  service: OwnService,
  aloneMs: number,
): Promise<Waited> {
  await untilPrompt(server, key);
  const sent = performance.now();
  const requestId = randomUUID();
  // Ended and recorded, or told unable to be recorded, or kept to offer again, as the worker logs it.
  const ended = () =>
    worker.log
      .split('\n')
      .some((line) => line.includes(requestId) && /job ended|could not be ended|offered again/.test(line));
  let answeredAt = 0;
  const answered = compress(server, key, pdf, requestId).then(async (response) => {
    answeredAt = performance.now();
    const json = (await response.json()) as { error?: { code: string } };
    return { status: response.status, code: json.error?.code ?? '' };
  });
  // Halfway through a job of seconds, it runs: one not yet started could not start without the
  // service, and its call would be answered 503 during the outage, which is not the case timed here
  // (the row counts the jobs that ended while the service was away).
  await sleep(aloneMs / 2);
  await service.stop();
  const endedBefore = ended();
  const endedBy = performance.now() + ENDED_WITHIN_MS;
  while (!ended() && performance.now() < endedBy) await sleep(100);
  const endedDuringOutage = !endedBefore && ended();
  // The outage goes on a moment after the end: news of it sent meanwhile is lost.
  await sleep(Math.max(1000, sent + OUTAGE_MS - performance.now()));
  // Timed from when it answers again, as a client of it would see it.
  await service.start();
  const restored = performance.now();
  const { status, code } = await answered;
  return { status, code, ms: answeredAt - restored, endedDuringOutage };
}

async function waiterAfterOutage(context: BenchContext, service: Service): Promise<Row> {
  const { photoPages, outages } = context.profile.lostAnswers;
  const scenarioCase = `a synchronous compression whose job ends while ${TITLE[service]} is stopped: its answer (the result or a clean 5xx), timed from its return`;
  const missing = (await sharedServicesMissing()) ?? ownServicesMissing();
  if (missing !== undefined) return skippedRow(SCENARIO, scenarioCase, missing);
  const own = { redis: await ownRedis(), postgres: await ownPostgres() };
  const services = await startSharedServices({ databaseUrl: own.postgres.url, redisUrl: own.redis.url });
  let server: TestServer | undefined;
  let worker: TestServer | undefined;
  try {
    // At info, the log tells when each job ends.
    const env = {
      ...services.env,
      PDN_SIGNING_SECRET: randomBytes(32).toString('hex'),
      PDN_LOG_LEVEL: 'info',
    };
    // An API process and a worker, as deployed: the worker runs the job and tells of its end.
    server = await startServer({ env, role: 'api' });
    worker = await startServer({ env, role: 'worker' });
    const key = await server.createKey({ user: 'waiter', plan: 'premium' });
    const pdf = await photoPdf({ pages: photoPages });
    const start = performance.now();
    const alone = await compress(server, key, pdf);
    await alone.arrayBuffer();
    const aloneMs = performance.now() - start;
    const runs: Waited[] = [];
    for (let i = 0; i < outages; i += 1)
      runs.push(await outage({ api: server, worker }, key, pdf, own[service], aloneMs));
    const times = runs.map((run) => run.ms);
    const median = percentile(times, 50);
    const slowest = Math.max(...times);
    // An answer is the job's result or an error envelope the client can act on, never a lost waiter.
    const clean = runs.every((run) => run.status === 200 || (run.status >= 500 && run.code !== ''));
    const endedAway = runs.filter((run) => run.endedDuringOutage).length;
    const answers = runs.map((run) => (run.code ? `${run.status} ${run.code}` : String(run.status)));
    return {
      scenario: SCENARIO,
      case: scenarioCase,
      pdn: median >= 0 ? formatMs(median) : `${formatMs(-median)} before it`,
      baseline: '',
      ratio: null,
      target: `<= ${formatMs(RECOVERY_TARGET_MS)}`,
      met: slowest <= RECOVERY_TARGET_MS && clean && endedAway === runs.length,
      note: `median of ${runs.length}, max ${slowest >= 0 ? formatMs(slowest) : `${formatMs(-slowest)} before the return`} (before it: answered during the outage); answered ${answers.join(', ')}; ${endedAway} of ${runs.length} jobs ended while it was away; the compression (${photoPages} photo pages, level high) took ${formatMs(aloneMs)} alone; ${TITLE[service]} stopped halfway and started again a second after its job ended${service === 'redis' ? ', empty' : ''}; ${loadNote()}`,
    };
  } finally {
    await Promise.all([server?.stop(), worker?.stop()]);
    await services.stop();
    await Promise.all([own.redis.remove(), own.postgres.remove()]);
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
