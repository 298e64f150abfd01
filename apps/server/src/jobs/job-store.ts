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
  /** File name inside the job's `inputs/` folder (jobs/job-files.ts). */
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
  /** Times the job was started: 2 means it was run again after a restart interrupted it. */
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

export interface JobStore {
  /** Stores a queued job, created at `now`. */
  create(job: NewJob, now: number): Promise<JobRecord>;
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
   * After a crash: see Recovery. Call once at start, before the first claimNext(). `callersGone`:
   * the synchronous callers of this folder's jobs waited in the stopped process (role `all`), so their
   * jobs are canceled; false where they wait in API processes still running (issue #16: a worker).
   */
  recover(
    maxAttempts: number,
    interruptedError: JobError,
    now: number,
    callersGone: boolean,
  ): Promise<Recovery>;
  /** Forgets jobs finished at or before `before`; returns their ids. */
  forget(before: number): Promise<string[]>;
  /** Ids of every job not finished (to tell the job folders worth keeping). */
  unfinishedIds(): Promise<string[]>;
}
