// What the job path costs over the synchronous path, for a small merge (two 1-page PDFs),
// submit to result. The synchronous call answers the result; the job path is `Prefer: respond-async`
// (202) and then GET /api/v1/jobs/{id} with `Prefer: wait=10`, held until the job has ended, so the
// figure is the machinery's (storing the job, the runner picking it up, one more round trip), not a
// poll interval. Runs alternate between the two paths so both see the same noise.
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { formatMs } from '../report.js';
import { smallMergeForm } from '../small-merge.js';
import { percentile } from '../stats.js';

const TARGET_MS = 10;

async function jobOverhead(context: BenchContext): Promise<ScenarioResult> {
  const { server, apiKey, profile } = context;
  const auth = { Authorization: `Bearer ${apiKey}` };
  const body = await smallMergeForm();
  const sync = async () => {
    const res = await fetch(server.url('/api/v1/merge'), { method: 'POST', headers: auth, body });
    if (res.status !== 200) throw new Error(`synchronous merge answered ${res.status}`);
    await res.json();
  };
  const viaJob = async () => {
    const submitted = await fetch(server.url('/api/v1/merge'), {
      method: 'POST',
      headers: { ...auth, Prefer: 'respond-async' },
      body,
    });
    if (submitted.status !== 202) throw new Error(`asynchronous merge answered ${submitted.status}`);
    const location = submitted.headers.get('location') ?? '';
    await submitted.json();
    for (;;) {
      const res = await fetch(server.url(location), { headers: { ...auth, Prefer: 'wait=10' } });
      const job = ((await res.json()) as { data: { status: string } }).data;
      if (job.status === 'succeeded') return;
      if (job.status !== 'queued' && job.status !== 'running') throw new Error(`job ended ${job.status}`);
    }
  };
  const times = { sync: [] as number[], job: [] as number[] };
  await sync();
  await viaJob();
  for (let i = 0; i < profile.jobRuns; i++) {
    for (const [path, task] of [
      ['sync', sync],
      ['job', viaJob],
    ] as const) {
      const start = performance.now();
      await task();
      times[path].push(performance.now() - start);
    }
  }
  const rows = ([50, 99] as const).map((p) => {
    const syncMs = percentile(times.sync, p);
    const jobMs = percentile(times.job, p);
    const overhead = jobMs - syncMs;
    const targeted = p === 50;
    return {
      scenario: '9. Jobs',
      case: `small merge submit -> result, p${p} (${profile.jobRuns} runs each), job path / synchronous`,
      pdn: formatMs(jobMs),
      baseline: formatMs(syncMs),
      ratio: jobMs / syncMs,
      target: targeted ? `<= +${TARGET_MS} ms` : '',
      met: targeted ? overhead <= TARGET_MS : null,
      note: `overhead ${overhead >= 0 ? '+' : ''}${formatMs(overhead)}; the result read with Prefer: wait (a client polling every poll_after_seconds instead waits up to 1 s more)`,
    };
  });
  return { rows };
}

export const jobsScenario: Scenario = { name: 'jobs', run: jobOverhead };
