// The job store (issue #13; STYLE.md 14): where jobs are kept between submission and the end of their
// retention, as an async interface that exposes no connection type. The SQLite backend keeps them in
// the accounts database (accounts/sqlite/sqlite-jobs.ts); a PostgreSQL backend implements the same
// interface and passes the same suite (job-store.contract.ts). The runner (runner.ts) owns the policy
// above it: when to claim, retry, cancel and forget.
import type { ApiError, JobOperation, JobStatus } from '@pdn/api-types';

export type { JobOperation, JobStatus };

/** `sync`: a call waiting on its connection (it ends with it); `async`: `Prefer: respond-async`. */
export type JobMode = 'sync' | 'async';

/** What a failed job answers: the spec's error object, as the error envelope would show it. */
export type JobError = ApiError;

/** What the operation needs to run again after a restart: files in the job's folder and its params. */
export interface JobInput {
  files: readonly JobInputFile[];
  params: unknown;
}

export interface JobInputFile {
  /** Its key in the input store (storage/input-store.ts): the index among the job's files. */
  stored: string;
  /** The name the client gave it, for messages and output names. */
  name: string;
  size: number;
}

export interface NewJob {
  id: string;
  userId: number;
  operation: JobOperation;
  mode: JobMode;
  input: JobInput;
}

export interface JobRecord extends NewJob {
  status: JobStatus;
  /**
   * Times the job was started: 2 means it was run again after a restart, a stopped or dead worker, or
   * a lost queue interrupted it.
   */
  attempts: number;
  /** Unix milliseconds. */
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** The operation's `data` once succeeded, with download URLs as signed when it was made. */
  result: unknown;
  error: JobError | null;
}

export type JobOutcome =
  | { status: 'succeeded'; result: unknown }
  | { status: 'failed'; error: JobError }
  | { status: 'canceled' };

export interface JobListQuery {
  status?: JobStatus | undefined;
  limit: number;
  /** `next` of the previous page; opaque to callers. */
  cursor?: string | undefined;
}

/** How many jobs of one operation and mode wait in the queue (GET /metrics, issue #18). */
export interface QueuedJobs {
  operation: JobOperation;
  mode: JobMode;
  count: number;
}

export interface JobPage {
  /** Newest first. */
  jobs: JobRecord[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next: string | null;
}

/** What recover() did with the jobs a stopped process left unfinished. */
export interface Recovery {
  /** Interrupted while running and started fewer than `maxAttempts` times: queued again. */
  requeued: string[];
  /** Interrupted while running on their last attempt: failed with `interruptedError`. */
  failed: string[];
  /** Synchronous jobs, whose caller went away with the process: canceled. */
  canceled: string[];
}

/**
 * Thrown by create() when the user already has `cap` unfinished jobs: nothing was stored. The count and
 * the insert are one atomic step, so simultaneous submissions never go over the plan's cap.
 */
/** What requeue() found among running jobs their queue lost. */
export interface Requeued {
  requeued: string[];
  /** Started `maxAttempts` times already: still running, to be failed as interrupted. */
  spent: string[];
}

export class UnfinishedJobsCapReached extends Error {
  override readonly name = 'UnfinishedJobsCapReached';
  constructor(readonly unfinished: number) {
    super(`the user has ${unfinished} unfinished jobs already`);
  }
}

export interface JobStore {
  /**
   * Stores a queued job, created at `now`. With `cap`, only while the user has fewer unfinished
   * (queued or running) jobs than that, else throws UnfinishedJobsCapReached.
   */
  create(job: NewJob, now: number, cap?: number): Promise<JobRecord>;
  /**
   * Stores a job already running, started at `now` (attempts 1), when no job is queued: the fair order
   * would start it next anyway, so nobody waits longer for it (issue #15: a synchronous call run by
   * the process it came to, jobs/dispatch.ts startHere). Stores nothing and answers undefined when a
   * job is queued.
   */
  startNow(job: NewJob, now: number): Promise<JobRecord | undefined>;
  get(id: string): Promise<JobRecord | undefined>;
  /** One user's jobs, newest first; undefined when `cursor` is not one this store made. */
  list(userId: number, query: JobListQuery): Promise<JobPage | undefined>;
  /** The user's queued and running jobs. */
  countUnfinished(userId: number): Promise<number>;
  /**
   * Atomically takes the next queued job and marks it running (attempts + 1, started at `now`). Fair
   * across users: the job of the user whose last job started longest ago (never counts as longest),
   * that user's oldest first. Undefined when nothing is queued.
   */
  claimNext(now: number): Promise<JobRecord | undefined>;
  /** Ends a queued or running job; undefined (and nothing changed) when it had already ended. */
  finish(id: string, outcome: JobOutcome, now: number): Promise<JobRecord | undefined>;
  /** A running job this process gives back unfinished (graceful shutdown): queued, the attempt not counted. */
  release(id: string): Promise<void>;
  /**
   * Counts another start of a running job whose last attempt was lost with its worker (BullMQ's
   * stalled-job recovery): attempts + 1, started at `now`. Undefined when the job is not running.
   */
  restart(id: string, now: number): Promise<JobRecord | undefined>;
  /** Ids of the running jobs started at or before `before` (to find those no queue holds any more). */
  runningIds(before: number): Promise<string[]>;
  /**
   * Of jobs `ids`, those still running and started at or before `before` were lost by the queue that
   * carried them (jobs/bullmq-dispatch.ts): queued again when started fewer than `maxAttempts` times,
   * else left running and answered as `spent`, for the caller to fail. A job started again or ended
   * meanwhile is left alone.
   */
  requeue(ids: readonly string[], before: number, maxAttempts: number): Promise<Requeued>;
  /**
   * After a crash of the one process that claims from this store and waits on its jobs' callers
   * (jobs/local-dispatch.ts): see Recovery. Call once at start, before the first claimNext(). Over
   * BullMQ a crashed worker's job is BullMQ's to give to another (jobs/bullmq-dispatch.ts).
   */
  recover(maxAttempts: number, interruptedError: JobError, now: number): Promise<Recovery>;
  /** Forgets jobs finished at or before `before`; returns their ids. */
  forget(before: number): Promise<string[]>;
  /** Ids of every job not finished, whoever runs it (to tell the stored inputs worth keeping). */
  unfinishedIds(): Promise<string[]>;
  /** The jobs waiting to start, whoever will run them, by operation and mode; none listed with 0. */
  countQueued(): Promise<QueuedJobs[]>;
}
