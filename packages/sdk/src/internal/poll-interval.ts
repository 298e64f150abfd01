// How long `job.wait()` sleeps between two looks at a job: the server suggests it in
// the job's `poll_after_seconds` (openapi.yaml `Job`; as openai-node's polling helper follows the
// server's hint), kept within bounds so that neither a 0 nor a day from a confused server turns
// waiting into hammering or into a hang.

export const minPollMs = 200;
export const maxPollMs = 30_000;
/** When the answer suggests nothing. */
export const defaultPollMs = 1_000;

export function pollDelayMs(pollAfterSeconds: unknown): number {
  if (typeof pollAfterSeconds !== 'number' || !Number.isFinite(pollAfterSeconds)) return defaultPollMs;
  return Math.min(maxPollMs, Math.max(minPollMs, Math.round(pollAfterSeconds * 1000)));
}
