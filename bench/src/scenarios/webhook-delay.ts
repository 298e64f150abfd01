// One user's slow receivers cannot delay another's webhooks: the time from a job's end (its
// `finished_at`) to its event's arrival at a loopback receiver, for another user's jobs while one
// user's 60 events go to a receiver that accepts each connection and never answers, against the same
// jobs with nothing else being delivered, in this one run. Each attempt runs on its own, at most 4 of
// a user's at once; before, the deliverer waited for a batch of 20 attempts (10 s each) before the
// next, and such an event arrived 27.5-28.3 s after its job ended instead of 0.1-0.3 s.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import { labelledPdf } from '@pdn/fixtures';
import { Pdn } from '@pdn/sdk';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { formatMs } from '../report.js';
import { percentile } from '../stats.js';

const SCENARIO = '15. Webhooks beside stalled receivers';
const STALLED = 60;
/** Longer than any arrival worth measuring: past it the scenario fails instead of hanging. */
const GIVE_UP_MS = 120_000;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/** Answers 200 at once and hands each event's arrival time to whoever waits for its job. */
async function promptReceiver() {
  const waiting = new Map<string, (arrivedAt: number) => void>();
  const server = createServer(async (req, res) => {
    const arrivedAt = Date.now();
    const event = JSON.parse(await bodyOf(req)) as { data: { job: { id: string } } };
    res.end();
    waiting.get(event.data.job.id)?.(arrivedAt);
  });
  return {
    url: await listen(server),
    arrival: (jobId: string) =>
      new Promise<number>((resolve, reject) => {
        waiting.set(jobId, resolve);
        setTimeout(
          () => reject(new Error(`no event for ${jobId} within ${GIVE_UP_MS} ms`)),
          GIVE_UP_MS,
        ).unref();
      }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Accepts every request and never answers; counts them, and how many it holds at most at once. */
async function stalledReceiver() {
  const held = new Set<IncomingMessage>();
  const counts = { requests: 0, mostHeld: 0 };
  const server = createServer((req) => {
    counts.requests += 1;
    held.add(req);
    counts.mostHeld = Math.max(counts.mostHeld, held.size);
    req.socket.on('close', () => held.delete(req));
  });
  return {
    url: await listen(server),
    counts,
    close: () => {
      for (const req of held) req.socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Each job's delay from its end to its event's arrival, one job after another. */
async function delays(pdn: Pdn, receiver: Awaited<ReturnType<typeof promptReceiver>>, jobs: number) {
  const files = [await labelledPdf('a', 1), await labelledPdf('b', 1)];
  const measured: number[] = [];
  for (let i = 0; i < jobs; i++) {
    const job = await pdn.jobs.submit('merge', { files, callbackUrl: receiver.url });
    const arrival = receiver.arrival(job.id);
    await job.wait();
    const ended = (await pdn.jobs.get(job.id)).finished_at;
    measured.push((await arrival) - Date.parse(ended ?? ''));
  }
  return measured;
}

async function webhookDelay(context: BenchContext): Promise<ScenarioResult> {
  const jobs = context.profile.webhookJobs;
  const server: TestServer = await startServer({ env: { PDN_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
  const prompt = await promptReceiver();
  const stalled = await stalledReceiver();
  try {
    const client = async (user: string) =>
      new Pdn({
        baseUrl: server.baseUrl,
        apiKey: await server.createKey({ user, plan: 'enterprise' }),
        maxRetries: 0,
      });
    const other = await client('other');
    const idle = await delays(other, prompt, jobs);

    const hog = await client('hog');
    const files = [await labelledPdf('h', 1), await labelledPdf('i', 1)];
    const hogJobs = [];
    for (let i = 0; i < STALLED; i++)
      hogJobs.push(await hog.jobs.submit('merge', { files, callbackUrl: stalled.url }));
    await Promise.all(hogJobs.map((job) => job.wait()));
    const beside = await delays(other, prompt, jobs);

    const worst = Math.max(...beside);
    const idleWorst = Math.max(...idle);
    return {
      rows: [
        {
          scenario: SCENARIO,
          case: `another user's webhook, job end to arrival, worst of ${jobs}: beside ${STALLED} stalled receivers / idle`,
          pdn: formatMs(worst),
          baseline: formatMs(idleWorst),
          ratio: worst / idleWorst,
          target: '< 1 s',
          met: worst < 1000,
          note:
            `p50 ${formatMs(percentile(beside, 50))} / ${formatMs(percentile(idle, 50))}; the stalled ` +
            `receiver got ${stalled.counts.requests} requests, at most ${stalled.counts.mostHeld} held at once; ` +
            'before, 27.5-28.3 s',
        },
      ],
    };
  } finally {
    await stalled.close();
    await prompt.close();
    await server.stop();
  }
}

export const webhookDelayScenario: Scenario = { name: 'webhook-delay', run: webhookDelay };
