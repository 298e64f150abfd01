// The jobs door (STYLE.md 26, 29): "who runs when, and who is told", for the rest of the server. Every
// operation, synchronous call or `Prefer: respond-async` job, is stored in the job store and passes
// through a JobQueue (job-queue.ts) to a worker's runs (job-runs.ts), which call the operation
// (operation-processor.ts) and record its end; waiters (job-waiters.ts) and the webhook deliverer hear
// of ends through the queue's events. open-jobs.ts puts these together for a process's role.
import { randomBytes } from 'node:crypto';
import type { JobQueue } from './job-queue.js';
import type { JobStore } from './job-store.js';
import type { JobViews } from './job-view.js';
import type { JobWaiters } from './job-waiters.js';

export type { JobEnd, JobEvents, JobQueue, Submission } from './job-queue.js';
export type { JobMode, JobOperation, JobRecord, JobStore } from './job-store.js';
export { UnfinishedJobsCapReached } from './job-store.js';
export type { JobViews } from './job-view.js';
export type { EndedJob, JobWaiters } from './job-waiters.js';
export { callJob, NoSlotInTime } from './sync-call.js';

/** What the HTTP layer and the webhooks use of the jobs. */
export interface Jobs {
  /** Every job's record: read, listed and counted. */
  store: JobStore;
  queue: JobQueue;
  waiters: JobWaiters;
  views: JobViews;
}

export function newJobId(): string {
  return `job_${randomBytes(16).toString('base64url')}`;
}
