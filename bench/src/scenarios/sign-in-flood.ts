// Password hashing cannot starve the API: a small merge's latency while 200 sign-ins for unknown
// emails from one address are kept in flight (each answer followed at once by another), against the
// same merges with the server idle, in this one run. The server hashes on threads of its own, at most
// its places at once and a share of them per address, and the throttle refuses an address's 21st
// failure in 15 minutes unhashed; before that, every sign-in was hashed on libuv's pool, which the
// merge's file work waits on too (a 2-page merge took 77-98 s under such a flood, 0.3-1.2 s idle).
// The flood's answers are counted by status, and its hashes from /metrics.
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { readValue } from '../prometheus-text.js';
import { formatMs, type Row } from '../report.js';
import { smallMergeForm } from '../small-merge.js';
import { percentile } from '../stats.js';

const SCENARIO = '13. Sign-in flood';
const FLOOD = 200;

async function hashesSoFar(context: BenchContext): Promise<number> {
  const res = await fetch(context.server.url('/metrics'));
  return readValue(await res.text(), 'pdn_password_hashes_total');
}

/** A signed-out visitor's CSRF cookie and token: every sign-in of the flood posts with them. */
async function signInForm(context: BenchContext): Promise<{ cookie: string; token: string }> {
  const res = await fetch(context.server.url('/account/sign-in'));
  const cookie = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const token = /name="csrf" value="([^"]+)"/.exec(await res.text())?.[1];
  if (token === undefined) throw new Error('the sign-in page carries no CSRF token');
  return { cookie, token };
}

async function timedMerges(
  context: BenchContext,
  keepGoing: () => boolean,
  atLeast: number,
): Promise<number[]> {
  const body = await smallMergeForm();
  const times: number[] = [];
  while (times.length < atLeast || keepGoing()) {
    const start = performance.now();
    const res = await fetch(context.server.url('/api/v1/merge'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${context.apiKey}` },
      body,
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`the small merge answered ${res.status}`);
    times.push(performance.now() - start);
    if (times.length >= atLeast && !keepGoing()) break;
  }
  return times;
}

async function signInFlood(context: BenchContext): Promise<ScenarioResult> {
  const { profile } = context;
  const idle = await timedMerges(context, () => false, profile.jobRuns);

  const { cookie, token } = await signInForm(context);
  const statuses = new Map<number | string, number>();
  let sent = 0;
  const until = performance.now() + profile.loadSeconds * 1000;
  const flooding = () => performance.now() < until;
  const signIn = async () => {
    while (flooding()) {
      sent += 1;
      // A flood may see its connections cut (a reset under load): counted, not fatal.
      let outcome: number | string;
      try {
        const res = await fetch(context.server.url('/account/sign-in'), {
          method: 'POST',
          headers: {
            cookie,
            origin: context.server.baseUrl,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({
            csrf: token,
            email: `flood${sent}@example.com`,
            password: 'not the password',
          }),
        });
        await res.arrayBuffer();
        outcome = res.status;
      } catch (error) {
        outcome = ((error as Error).cause as { code?: string } | undefined)?.code ?? 'failed';
      }
      statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
    }
  };
  const hashesBefore = await hashesSoFar(context);
  const flood = Promise.all(Array.from({ length: FLOOD }, signIn));
  const loaded = await timedMerges(context, flooding, Math.min(10, profile.jobRuns));
  await flood;
  const hashed = (await hashesSoFar(context)) - hashesBefore;

  const answered = [...statuses]
    .sort(([a], [b]) => String(a).localeCompare(String(b)))
    .map(([status, count]) => `${count} x ${status}`);
  const p50 = percentile(loaded, 50);
  const p99 = percentile(loaded, 99);
  const idleP50 = percentile(idle, 50);
  const idleP99 = percentile(idle, 99);
  const rows: Row[] = [
    {
      scenario: SCENARIO,
      case: `small merge p50 during ${FLOOD} sign-ins in flight from one address / idle`,
      pdn: `${formatMs(p50)} (${loaded.length} merges)`,
      baseline: `${formatMs(idleP50)} (${idle.length} merges)`,
      ratio: p50 / idleP50,
      target: '',
      met: null,
      note: `flood of ${profile.loadSeconds} s: ${sent} sign-ins answered ${answered.join(', ')}; ${hashed} hashed`,
    },
    {
      scenario: SCENARIO,
      case: `small merge p99 during ${FLOOD} sign-ins in flight from one address / idle`,
      pdn: formatMs(p99),
      baseline: formatMs(idleP99),
      ratio: p99 / idleP99,
      target: '',
      met: null,
      note: 'before hashing had threads of its own, a 2-page merge took 77-98 s under such a flood',
    },
  ];
  return { rows };
}

export const signInFloodScenario: Scenario = { name: 'sign-in-flood', run: signInFlood };
