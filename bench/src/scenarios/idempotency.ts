// What answering a repeated Idempotency-Key costs against doing the work, for a small merge
// (two 1-page PDFs). The fresh call sends a new key each time (as the SDK does), so it pays the key's
// claim and binding too; the replay sends the key of a call already answered, so the server reads and
// hashes the body, finds the job and answers its result with URLs signed afresh, doing no work. Runs
// alternate between the two so both see the same noise.
import { randomUUID } from 'node:crypto';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { formatMs } from '../report.js';
import { smallMergeForm } from '../small-merge.js';
import { percentile } from '../stats.js';

async function replayLatency(context: BenchContext): Promise<ScenarioResult> {
  const { server, apiKey, profile } = context;
  const body = await smallMergeForm();
  const merge = async (key: string) => {
    const res = await fetch(server.url('/api/v1/merge'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Idempotency-Key': key },
      body,
    });
    if (res.status !== 200) throw new Error(`merge with Idempotency-Key answered ${res.status}`);
    await res.json();
  };
  const answered = randomUUID();
  await merge(answered);
  await merge(randomUUID());
  const times = { fresh: [] as number[], replay: [] as number[] };
  for (let i = 0; i < profile.jobRuns; i++) {
    for (const [path, key] of [
      ['fresh', randomUUID()],
      ['replay', answered],
    ] as const) {
      const start = performance.now();
      await merge(key);
      times[path].push(performance.now() - start);
    }
  }
  const freshMs = percentile(times.fresh, 50);
  const replayMs = percentile(times.replay, 50);
  return {
    rows: [
      {
        scenario: '10. Idempotency',
        case: `small merge, p50 (${profile.jobRuns} runs each), replayed key / fresh key`,
        pdn: formatMs(replayMs),
        baseline: formatMs(freshMs),
        ratio: replayMs / freshMs,
        target: '< 1',
        met: replayMs < freshMs,
        note: 'a replay reads and hashes the body and answers the first result, with no work and not counted',
      },
    ],
  };
}

export const idempotencyScenario: Scenario = { name: 'idempotency', run: replayLatency };
