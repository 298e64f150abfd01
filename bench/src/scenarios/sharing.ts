// Sharing one server among many callers (openapi.yaml, "Admission order and back-pressure", and
// "Jobs", Fairness), on servers of this scenario's own with the embedded defaults:
// - burst: 30 simultaneous calls of one Free user (10 an hour) must be exactly 10 x 200 and 20 x 429;
//   50 over two API processes and two workers on the shared backends, exactly 10 x 200 and 40 x 429.
// - crowd: 8 users calling small mixed operations one after another must all be answered 200, at no
//   less than 0.9 x the throughput of 2 clients (as many as the server has slots); a small merge's
//   p50 and p99 in the crowd beside its figures alone.
// - hog: one user holding the slots with two long OCR-of-document jobs and 10 compressions queued;
//   another user's small merges, one after another: their median against the same merge alone (target:
//   2 x alone + one chunk of 10 s).
// - overload: small merges arriving at 4 x the server's capacity (an open loop): every accepted call
//   answered within PDN_MAX_SYNC_WAIT plus its own time (8 users, so no user's own bound refuses), the excess refused 503 with p99 <= 50 ms, the
//   server's memory and data folder bounded.
// The client shares the machine's cores with the server; counts and percentiles come with their samples.

import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import { sharedServicesMissing, startSharedServices } from '@pdn/e2e/shared-services';
import { labelledPdf, ocrSample, scannedDocumentPdf } from '@pdn/fixtures';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { folderBytes } from '../folder-size.js';
import { type EncodedForm, encodeForm, LoadClient } from '../load-client.js';
import { loadNote } from '../machine.js';
import { samplePeak } from '../peak.js';
import { sampleTreePeak } from '../process-memory.js';
import { formatBytes, formatMs, type Row, skippedRow } from '../report.js';
import { smallMergeForm } from '../small-merge.js';
import { percentile } from '../stats.js';

const SCENARIO = '12. Sharing the server';
/** PDN_MAX_SYNC_WAIT's default, seconds. */
const MAX_SYNC_WAIT_S = 20;
const CHUNK_S = 10;
const OVERLOAD = 4;
const REFUSAL_TARGET_MS = 50;
const OVERLOAD_USERS = 8;

interface Answer {
  /** 0: no answer (the connection failed). */
  status: number;
  ms: number;
}

/** A server, the client that calls it and one call's key and body. */
interface Caller {
  server: TestServer;
  client: LoadClient;
  key: string;
}

async function send({ server, client, key }: Caller, path: string, body: EncodedForm): Promise<Answer> {
  const start = performance.now();
  // A connection failure is an outcome to report, not a crash of the bench.
  const status = await client.post(server.url(path), { authorization: `Bearer ${key}` }, body).catch(() => 0);
  return { status, ms: performance.now() - start };
}

const tally = (answers: readonly Answer[]) => {
  const counts = new Map<number, number>();
  for (const { status } of answers) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a - b);
};
const tallyText = (answers: readonly Answer[]) =>
  tally(answers)
    .map(([status, count]) => `${count} x ${status || 'no answer'}`)
    .join(', ');
const count = (answers: readonly Answer[], status: number) =>
  answers.filter((a) => a.status === status).length;
const msOf = (answers: readonly Answer[]) => answers.map((a) => a.ms);

/** The small operations a crowd calls, in turn. */
async function smallCalls(): Promise<[string, EncodedForm][]> {
  const pdf = new Blob([await labelledPdf('c', 2)], { type: 'application/pdf' });
  const image = new Blob([(await ocrSample('eng', 'png')).bytes], { type: 'image/png' });
  const form = (entries: [string, Blob | string, string?][]) => {
    const body = new FormData();
    for (const [name, value, filename] of entries)
      if (typeof value === 'string') body.append(name, value);
      else body.append(name, value, filename);
    return encodeForm(body);
  };
  return [
    ['/api/v1/merge', await encodeForm(await smallMergeForm())],
    [
      '/api/v1/split',
      await form([
        ['file', pdf, 'c.pdf'],
        ['ranges', '1,2'],
      ]),
    ],
    [
      '/api/v1/compress',
      await form([
        ['file', pdf, 'c.pdf'],
        ['level', 'low'],
      ]),
    ],
    ['/api/v1/ocr', await form([['image', image, 'scan.png']])],
  ];
}

/** Each caller calls the mix one after another for `seconds`; every answer with its operation. */
async function callingFor(callers: Caller[], calls: [string, EncodedForm][], seconds: number) {
  const until = performance.now() + seconds * 1000;
  const answers: (Answer & { path: string })[] = [];
  const start = performance.now();
  await Promise.all(
    callers.map(async (caller, i) => {
      for (let turn = i; performance.now() < until; turn += 1) {
        const [path, body] = calls[turn % calls.length] as [string, EncodedForm];
        answers.push({ ...(await send(caller, path, body)), path });
      }
    }),
  );
  return { answers, seconds: (performance.now() - start) / 1000 };
}

async function withServer<T>(work: (server: TestServer, client: LoadClient) => Promise<T>): Promise<T> {
  // The defaults a new user gets from `npm start`: as many slots as cores, PDN_MAX_SYNC_WAIT 20 s.
  const server = await startServer();
  const client = new LoadClient();
  try {
    return await work(server, client);
  } finally {
    client.close();
    await server.stop();
  }
}

async function keysOf(server: TestServer, name: string, plan: 'free' | 'premium' | 'enterprise', n: number) {
  return Promise.all(Array.from({ length: n }, (_, i) => server.createKey({ user: `${name}-${i}`, plan })));
}

async function burst(): Promise<Row> {
  return withServer(async (server, client) => {
    const caller = { server, client, key: await server.createKey({ user: 'burst', plan: 'free' }) };
    const body = await encodeForm(await smallMergeForm());
    const answers = await Promise.all(Array.from({ length: 30 }, () => send(caller, '/api/v1/merge', body)));
    const exact = count(answers, 200) === 10 && count(answers, 429) === 20;
    return {
      scenario: SCENARIO,
      case: '30 simultaneous small merges of one Free user (10 an hour): 200 / 429 / 503',
      pdn: `${count(answers, 200)} / ${count(answers, 429)} / ${count(answers, 503)}`,
      baseline: '',
      ratio: null,
      target: '10 / 20 / 0',
      met: exact,
      note: `${tallyText(answers)}; ${loadNote()}`,
    };
  });
}

/** The same burst, 50 calls, over two API processes and two workers on PostgreSQL, Redis and s3rver. */
async function sharedBurst(): Promise<Row> {
  const scenarioCase =
    '50 simultaneous small merges of one Free user over 2 API processes and 2 workers: 200 / 429 / 503';
  const missing = await sharedServicesMissing();
  if (missing !== undefined) return skippedRow(SCENARIO, scenarioCase, missing);
  const services = await startSharedServices();
  const processes: TestServer[] = [];
  const client = new LoadClient();
  try {
    // The defaults but the stack's services: each worker's slots the CPU count.
    const env = { ...services.directEnv, PDN_SIGNING_SECRET: randomBytes(32).toString('hex') };
    const first = await startServer({ env, role: 'api' });
    processes.push(first);
    const { dataDir } = first;
    processes.push(
      ...(await Promise.all([
        startServer({ env, role: 'api', dataDir }),
        startServer({ env, role: 'worker', dataDir }),
        startServer({ env, role: 'worker', dataDir }),
      ])),
    );
    const key = await first.createKey({ user: 'burst', plan: 'free' });
    const body = await encodeForm(await smallMergeForm());
    const apis = processes.slice(0, 2);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        send({ server: apis[i % 2] as TestServer, client, key }, '/api/v1/merge', body),
      ),
    );
    return {
      scenario: SCENARIO,
      case: scenarioCase,
      pdn: `${count(answers, 200)} / ${count(answers, 429)} / ${count(answers, 503)}`,
      baseline: '',
      ratio: null,
      target: '10 / 40 / 0',
      met: count(answers, 200) === 10 && count(answers, 429) === 40,
      note: `${tallyText(answers)}; ${loadNote()}`,
    };
  } finally {
    client.close();
    for (const process of processes.reverse()) await process.stop();
    await services.stop();
  }
}

async function crowd(context: BenchContext): Promise<Row[]> {
  const seconds = context.profile.sharing.crowdSeconds;
  return withServer(async (server, client) => {
    const calls = await smallCalls();
    const callers = async (name: string, n: number) =>
      (await keysOf(server, name, 'premium', n)).map((key) => ({ server, client, key }));
    const [alone] = await callers('alone', 1);
    const merge = calls[0] as [string, EncodedForm];
    await send(alone as Caller, ...merge);
    const idle: number[] = [];
    for (let i = 0; i < context.profile.jobRuns; i += 1)
      idle.push((await send(alone as Caller, ...merge)).ms);
    const slots = availableParallelism();
    const few = await callingFor(await callers('slots', slots), calls, seconds);
    const many = await callingFor(await callers('crowd', 8), calls, seconds);
    const rate = (run: typeof few) => count(run.answers, 200) / run.seconds;
    const merges = msOf(many.answers.filter((a) => a.path === '/api/v1/merge' && a.status === 200));
    const ratio = rate(many) / rate(few);
    return [
      {
        scenario: SCENARIO,
        case: `8 Premium users calling small merges, splits, compressions and OCRs one after another for ${seconds} s: answers not 200`,
        pdn: String(many.answers.length - count(many.answers, 200)),
        baseline: '',
        ratio: null,
        target: '0',
        met: many.answers.length === count(many.answers, 200),
        note: `${tallyText(many.answers)}; ${loadNote()}`,
      },
      {
        scenario: SCENARIO,
        case: `the same crowd's calls answered per second / ${slots} clients' (as many as the slots)`,
        pdn: `${rate(many).toFixed(2)}/s`,
        baseline: `${rate(few).toFixed(2)}/s`,
        ratio,
        target: '>= 0.90',
        met: ratio >= 0.9,
        note: `${count(many.answers, 200)} and ${count(few.answers, 200)} calls answered 200 in ${seconds} s each`,
      },
      {
        scenario: SCENARIO,
        case: 'a small merge in that crowd, p50 / alone p50',
        pdn: formatMs(percentile(merges, 50)),
        baseline: formatMs(percentile(idle, 50)),
        ratio: percentile(merges, 50) / percentile(idle, 50),
        target: '',
        met: null,
        note: `p99 ${formatMs(percentile(merges, 99))} in the crowd (${merges.length} merges), ${formatMs(percentile(idle, 99))} alone (${idle.length}): a crowd of 8 on ${slots} slots waits about 4 turns`,
      },
    ];
  });
}

/** Submits a job and answers its id. */
async function submitJob(server: TestServer, key: string, path: string, body: FormData): Promise<string> {
  const response = await fetch(server.url(path), {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, prefer: 'respond-async' },
    body,
  });
  const answer = (await response.json()) as { data?: { id: string } };
  if (response.status !== 202 || answer.data === undefined)
    throw new Error(`a job was answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer.data.id;
}

async function hog(context: BenchContext): Promise<Row> {
  return withServer(async (server, client) => {
    const other = { server, client, key: await server.createKey({ user: 'other', plan: 'premium' }) };
    const body = await encodeForm(await smallMergeForm());
    await send(other, '/api/v1/merge', body);
    const runs = context.profile.sharing.hogMerges;
    const idle: number[] = [];
    for (let i = 0; i < runs; i += 1) idle.push((await send(other, '/api/v1/merge', body)).ms);

    const hogKey = await server.createKey({ user: 'hog', plan: 'premium' });
    const scan = await scannedDocumentPdf({
      pages: context.profile.sharing.hogPages,
      seed: 7,
      languages: ['eng'],
    });
    const pdf = await labelledPdf('h', 20);
    const jobs: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const form = new FormData();
      form.append('file', new Blob([scan.bytes], { type: 'application/pdf' }), 'scan.pdf');
      form.append('mode', 'force');
      jobs.push(await submitJob(server, hogKey, '/api/v1/ocr/pdf', form));
    }
    for (let i = 0; i < 10; i += 1) {
      const form = new FormData();
      form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'h.pdf');
      jobs.push(await submitJob(server, hogKey, '/api/v1/compress', form));
    }
    // Both slots taken by the long jobs before the other user calls.
    await sleep(1000);
    const answers: Answer[] = [];
    for (let i = 0; i < runs; i += 1) answers.push(await send(other, '/api/v1/merge', body));
    for (const id of jobs)
      await fetch(server.url(`/api/v1/jobs/${id}`), {
        method: 'DELETE',
        headers: { authorization: `Bearer ${hogKey}` },
      });
    const median = percentile(msOf(answers), 50);
    const bound = 2 * percentile(idle, 50) + CHUNK_S * 1000;
    return {
      scenario: SCENARIO,
      case: `another user's small merge while one user runs 2 OCR-of-document jobs (${context.profile.sharing.hogPages} pages, mode=force) with 10 compressions queued: median / alone`,
      pdn: formatMs(median),
      baseline: formatMs(percentile(idle, 50)),
      ratio: median / percentile(idle, 50),
      target: `<= 2 x alone + ${CHUNK_S} s`,
      met: median <= bound && count(answers, 200) === answers.length,
      note: `${runs} merges: ${tallyText(answers)}; p99 ${formatMs(percentile(msOf(answers), 99))}. Each long job is read in chunks of about ${CHUNK_S} s and hands its slot on between them while the other user waits, so a merge waits for a chunk to end, not the job; ${loadNote()}`,
    };
  });
}

async function overload(context: BenchContext): Promise<Row[]> {
  const seconds = context.profile.sharing.overloadSeconds;
  return withServer(async (server, client) => {
    // Eight users, so that what refuses the excess is the wait in the queue, not one user's bound on
    // its calls in progress.
    const callers = (await keysOf(server, 'overload', 'enterprise', OVERLOAD_USERS)).map((key) => ({
      server,
      client,
      key,
    }));
    const body = await encodeForm(await smallMergeForm());
    const slots = availableParallelism();
    // Capacity: as many clients as slots, back to back.
    const measured = await callingFor(
      callers.slice(0, slots),
      [['/api/v1/merge', body]],
      Math.max(2, seconds / 3),
    );
    const capacity = count(measured.answers, 200) / measured.seconds;
    const alone = percentile(msOf(measured.answers), 50);
    const gapMs = 1000 / (OVERLOAD * capacity);
    const memory = sampleTreePeak(server.pid);
    const data = samplePeak(() => folderBytes(server.dataDir), 500);
    const answers: Answer[] = [];
    const arrivals: Promise<void>[] = [];
    const until = performance.now() + seconds * 1000;
    // A late wake sends every arrival that fell due meanwhile: the rate is kept, not the spacing.
    for (let next = performance.now(), i = 0; next < until; next += gapMs, i += 1) {
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      arrivals.push(
        send(callers[i % callers.length] as Caller, '/api/v1/merge', body).then(
          (answer) => void answers.push(answer),
        ),
      );
    }
    await Promise.all(arrivals);
    const rssPeak = await memory.stop();
    const dataPeak = await data.stop();
    const accepted = msOf(answers.filter((a) => a.status === 200));
    const refused = msOf(answers.filter((a) => a.status === 503));
    const slowest = accepted.length > 0 ? Math.max(...accepted) : 0;
    const refusedP99 = refused.length > 0 ? percentile(refused, 99) : 0;
    const offered = `${(OVERLOAD * capacity).toFixed(1)} merges/s offered for ${seconds} s (capacity ${capacity.toFixed(1)}/s on ${slots} slots): ${tallyText(answers)}`;
    return [
      {
        scenario: SCENARIO,
        case: `small merges at ${OVERLOAD} x capacity: the slowest accepted call`,
        pdn: formatMs(slowest),
        baseline: '',
        ratio: null,
        target: `<= ${MAX_SYNC_WAIT_S} s + its own time`,
        met: slowest <= MAX_SYNC_WAIT_S * 1000 + 2 * alone,
        note: `${offered}; accepted p50 ${formatMs(percentile(accepted, 50))}, p99 ${formatMs(percentile(accepted, 99))}; a merge alone ${formatMs(alone)}`,
      },
      {
        scenario: SCENARIO,
        case: `small merges at ${OVERLOAD} x capacity: p99 of a 503 server_busy`,
        pdn: formatMs(refusedP99),
        baseline: '',
        ratio: null,
        target: `<= ${REFUSAL_TARGET_MS} ms`,
        met: refusedP99 <= REFUSAL_TARGET_MS,
        note: `${refused.length} refused, ${count(answers, 0)} without an answer; ${loadNote()}`,
      },
      {
        scenario: SCENARIO,
        case: `the server during that overload: peak memory (with its tools) / data folder`,
        pdn: formatBytes(rssPeak),
        baseline: formatBytes(dataPeak),
        ratio: null,
        target: '',
        met: null,
        note: 'memory of the server process and every process it started, sampled every 200 ms; the data folder (database, uploads, outputs) every 500 ms',
      },
    ];
  });
}

async function sharing(context: BenchContext): Promise<ScenarioResult> {
  return {
    rows: [
      await burst(),
      await sharedBurst(),
      ...(await crowd(context)),
      await hog(context),
      ...(await overload(context)),
    ],
  };
}

export const sharingScenario: Scenario = { name: 'sharing', fullOnly: true, run: sharing };
