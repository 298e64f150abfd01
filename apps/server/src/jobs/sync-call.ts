// A synchronous call (openapi.yaml, "Jobs", "Admission order and back-pressure"): a job like any
// other, in the same queue as asynchronous ones, whose caller waits for its end and is answered with
// the operation's result, or its error. Its wait for a slot is bounded: a job not started within
// `maxWaitMs` is withdrawn (NoSlotInTime), and one whose caller's signal aborts (the client went away,
// a stopping server gave up on the request) is withdrawn if it has not started, else canceled where it
// runs; the signal's reason is thrown.
import type { Logger } from '../logger.js';
import { errorOfJob } from './job-error.js';
import type { JobQueue, Submission } from './job-queue.js';
import type { JobViews } from './job-view.js';
import type { JobWaiters } from './job-waiters.js';

/** The call's job found no free slot within its bound, and was withdrawn: nothing of it ran. */
export class NoSlotInTime extends Error {
  override readonly name = 'NoSlotInTime';
  constructor(readonly boundMs: number) {
    super(`no slot within ${boundMs} ms`);
  }
}

export interface SyncCallDeps {
  queue: JobQueue;
  waiters: JobWaiters;
  views: JobViews;
  log: Logger;
  /** PDN_MAX_SYNC_WAIT: the longest the job may wait to start. */
  maxWaitMs: number;
}

export async function callJob(
  deps: SyncCallDeps,
  submission: Omit<Submission, 'mode'>,
  signal: AbortSignal,
): Promise<unknown> {
  const { queue, waiters, views, log, maxWaitMs } = deps;
  signal.throwIfAborted();
  const { id } = submission;
  // Heard from before the job is stored, so its end cannot come first and the store need not be read.
  const notStored = new AbortController();
  const end = waiters.ended(id, { signal: AbortSignal.any([signal, notStored.signal]), stored: false });
  try {
    await queue.add({ ...submission, mode: 'sync' });
  } catch (error) {
    notStored.abort();
    throw error;
  }
  const stop = () => {
    queue
      .withdraw(id)
      .then((withdrawn) => withdrawn ?? queue.cancel(id))
      .catch((error: unknown) => log.warn('canceling a job failed', { job_id: id, error }));
  };
  let deadlinePassed = false;
  const deadline = setTimeout(() => {
    // Set first: the end this withdrawal makes reaches the wait below before the withdrawal returns.
    deadlinePassed = true;
    queue
      .withdraw(id)
      .catch((error: unknown) =>
        log.warn('withdrawing a job that found no slot failed', { job_id: id, error }),
      );
  }, maxWaitMs);
  // A caller gone while the job was stored has it withdrawn all the same.
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  try {
    // Undefined only once the signal aborted (no time limit): the caller's own end.
    const ended = await end;
    if (ended?.record?.status === 'succeeded') return views.view(ended.record).result;
    signal.throwIfAborted();
    if (ended?.error !== undefined) throw ended.error;
    if (ended?.record?.status === 'canceled')
      throw deadlinePassed && ended.record.startedAt === null
        ? new NoSlotInTime(maxWaitMs)
        : new Error('job canceled');
    if (ended?.record === undefined) log.warn('a job waited on is gone from the store', { job_id: id });
    throw errorOfJob(ended?.record?.error ?? null);
  } finally {
    clearTimeout(deadline);
    signal.removeEventListener('abort', stop);
  }
}
