// A submission stored as a queued job, the one way both queues do it: its uploads kept in the input
// store first (so a job is never stored without them), then the job, held to the caller's cap on
// unfinished jobs; the kept uploads removed again when the job could not be stored. A queue that can
// start a job at once, when nothing is queued before it, passes `startAtOnce` (bullmq/feeder.ts): the
// job is then stored running instead.
import type { InputStore } from '../storage/index.js';
import type { Submission } from './job-queue.js';
import type { JobRecord, JobStore, NewJob } from './job-store.js';

export async function storeSubmission(
  store: JobStore,
  inputs: InputStore,
  submission: Submission,
  now: number,
  startAtOnce?: (job: NewJob) => Promise<JobRecord | undefined>,
): Promise<JobRecord> {
  const { id, userId, operation, mode, params, requestId } = submission;
  const files = await inputs.put(id, submission.files);
  try {
    const job: NewJob = { id, userId, operation, mode, input: { files, params }, requestId };
    return (await startAtOnce?.(job)) ?? (await store.create(job, now, submission.unfinishedJobsCap));
  } catch (error) {
    await inputs.remove(id);
    throw error;
  }
}
