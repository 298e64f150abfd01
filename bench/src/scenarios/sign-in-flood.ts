// Password hashing cannot starve the API: a small merge's latency while 200 sign-ins for unknown
// emails are kept in flight (each answer followed at once by another), against the same merges with
// the server idle, in this one run. Twice: from one address, as the attack first measured came, and
// from 200 addresses (X-Forwarded-For, believed by a server of the scenario's own with
// PDN_TRUST_PROXY=1), so that neither one address's share of the hashing places nor the throttle's
// per-address limit turns the flood away, and the hashing itself is loaded. The server hashes on
// threads of its own, at most its places at once and a share of them per address, and refuses a
// sign-in that finds no place before any other work; before that, every sign-in was hashed on libuv's
// pool, which the merge's file work waits on too (a 2-page merge took 77-98 s under such a flood,
// 0.3-1.2 s idle). The flood comes from a process of its own, as an attacker's would; its answers
// are counted by status, and its hashes from /metrics.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { readValue } from '../prometheus-text.js';
import { formatMs, type Row } from '../report.js';
import { smallMergeForm } from '../small-merge.js';
import { percentile } from '../stats.js';

const SCENARIO = '13. Sign-in flood';
const run = promisify(execFile);
const FLOOD = 200;

/** A server and a key of a Premium user on it. */
interface Target {
  server: TestServer;
  apiKey: string;
}

async function hashesSoFar({ server }: Target): Promise<number> {
  const res = await fetch(server.url('/metrics'));
  return readValue(await res.text(), 'pdn_password_hashes_total');
}

/** A signed-out visitor's CSRF cookie and token: every sign-in of the flood posts with them. */
async function signInForm({ server }: Target): Promise<{ cookie: string; token: string }> {
  const res = await fetch(server.url('/account/sign-in'));
  const cookie = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const token = /name="csrf" value="([^"]+)"/.exec(await res.text())?.[1];
  if (token === undefined) throw new Error('the sign-in page carries no CSRF token');
  return { cookie, token };
}

async function timedMerges({ server, apiKey }: Target, keepGoing: () => boolean, atLeast: number) {
  const body = await smallMergeForm();
  const times: number[] = [];
  while (times.length < atLeast || keepGoing()) {
    const start = performance.now();
    const res = await fetch(server.url('/api/v1/merge'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}` },
      body,
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`the small merge answered ${res.status}`);
    times.push(performance.now() - start);
    if (times.length >= atLeast && !keepGoing()) break;
  }
  return times;
}

/** The flood's own process (sign-in-flood-client.js), started now; resolves to its answers by status. */
async function flood(
  target: Target,
  seconds: number,
  addresses: 'one' | 'many',
): Promise<{ sent: number; statuses: Record<string, number> }> {
  const { cookie, token } = await signInForm(target);
  const client = fileURLToPath(new URL('../sign-in-flood-client.js', import.meta.url));
  const args = [client, target.server.baseUrl, cookie, token, String(seconds), String(FLOOD), addresses];
  const { stdout } = await run(process.execPath, args, { maxBuffer: 1024 * 1024 });
  return JSON.parse(stdout);
}

/**
 * The merges' times idle and during a flood from one address or many; the flood's answers by status
 * and the hashes it cost.
 */
async function underFlood(
  target: Target,
  context: BenchContext,
  addresses: 'one' | 'many',
): Promise<{ idle: number[]; loaded: number[]; sent: number; answered: string[]; hashed: number }> {
  const { profile } = context;
  const idle = await timedMerges(target, () => false, profile.jobRuns);
  const hashesBefore = await hashesSoFar(target);
  const until = performance.now() + profile.loadSeconds * 1000;
  const flooded = flood(target, profile.loadSeconds, addresses);
  // Awaited below; until then a failure must not count as unhandled if the merges fail first.
  flooded.catch(() => {});
  const loaded = await timedMerges(target, () => performance.now() < until, Math.min(10, profile.jobRuns));
  const { sent, statuses } = await flooded;
  const hashed = (await hashesSoFar(target)) - hashesBefore;
  const answered = Object.entries(statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${count} x ${status}`);
  return { idle, loaded, sent, answered, hashed };
}

function rowsOf(from: string, seconds: number, measured: Awaited<ReturnType<typeof underFlood>>): Row[] {
  const { idle, loaded, sent, answered, hashed } = measured;
  const [p50, p99, idleP50, idleP99] = [
    percentile(loaded, 50),
    percentile(loaded, 99),
    percentile(idle, 50),
    percentile(idle, 99),
  ];
  return [
    {
      scenario: SCENARIO,
      case: `small merge p50 during ${FLOOD} sign-ins in flight from ${from} / idle`,
      pdn: `${formatMs(p50)} (${loaded.length} merges)`,
      baseline: `${formatMs(idleP50)} (${idle.length} merges)`,
      ratio: p50 / idleP50,
      target: '',
      met: null,
      note: `flood of ${seconds} s: ${sent} sign-ins answered ${answered.join(', ')}; ${hashed} hashed`,
    },
    {
      scenario: SCENARIO,
      case: `small merge p99 during ${FLOOD} sign-ins in flight from ${from} / idle`,
      pdn: formatMs(p99),
      baseline: formatMs(idleP99),
      ratio: p99 / idleP99,
      target: '',
      met: null,
      note: 'before hashing had threads of its own, a 2-page merge took 77-98 s under such a flood',
    },
  ];
}

async function signInFlood(context: BenchContext): Promise<ScenarioResult> {
  const seconds = context.profile.loadSeconds;
  const oneAddress = await underFlood(context, context, 'one');
  const proxied = await startServer({ env: { PDN_TRUST_PROXY: '1' } });
  try {
    const target = { server: proxied, apiKey: await proxied.createKey({ user: 'bench', plan: 'premium' }) };
    const manyAddresses = await underFlood(target, context, 'many');
    return {
      rows: [
        ...rowsOf('one address', seconds, oneAddress),
        ...rowsOf(`${FLOOD} addresses`, seconds, manyAddresses),
      ],
    };
  } finally {
    await proxied.stop();
  }
}

export const signInFloodScenario: Scenario = { name: 'sign-in-flood', run: signInFlood };
