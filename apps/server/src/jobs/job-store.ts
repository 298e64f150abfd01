// The job store (STYLE.md 14): where jobs are kept between submission and the end of their retention,
// the record of every job's state and result, as an async interface that exposes no connection type.
// sqlite-job-store.ts and pg-job-store.ts implement it and pass the same suite (job-store.contract.ts).
// The queue and its workers own the policy above it: when to claim, retry, cancel and forget.

import type { ApiError, JobOperation, JobStatus } from '@pdn/api-types';
import type { Plan } from '../accounts/plans.js';
import type { OutputRow } from '../storage/output-rows.js';

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
  /**
   * The file itself, base64, when it is small enough to travel with the job's record instead of
   * through the input store's storage (storage/small-inputs-inline.ts). The store keeps it beside the
   * record, and forgets it when the job ends, as the input store removes the files it holds.
   */
  inline?: string;
}

export interface NewJob {
  id: string;
  userId: number;
  operation: JobOperation;
  mode: JobMode;
  input: JobInput;
  /** The request that submitted it (its X-Request-Id), for the job's log lines; absent on old jobs. */
  requestId?: string | undefined;
}

export interface JobRecord extends NewJob {
  requestId: string | undefined;
  status: JobStatus;
  /**
   * Times the job was started: 2 means it was run again after a restart, a stopped or dead worker, or
   * a lost queue interrupted it.
   */
  attempts: number;
  /** Unix milliseconds. */
  createdAt: number;
  /**
   * When the job last joined the queue: stored, given back between units of its work or at a
   * shutdown, or queued again after its process was lost. A start waited from then.
   */
  queuedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** The operation's `data` once succeeded, with download URLs as signed when it was made. */
  result: unknown;
  error: JobError | null;
}

export type JobOutcome =
  | {
      status: 'succeeded';
      result: unknown;
      /**
       * Small outputs the result names, stored by the statement that ends the job
       * (storage/small-outputs-inline.ts): kept if and only if the job ends there.
       */
      outputs?: readonly OutputRow[];
    }
  | { status: 'failed'; error: JobError }
  | { status: 'canceled' };

export interface JobListQuery {
  status?: JobStatus | undefined;
  limit: number;
  /** `next` of the previous page; opaque to callers. */
  cursor?: string | undefined;
}

/** How many unfinished jobs of one user, operation, mode and status there are (admission, GET /metrics). */
export interface UnfinishedJobs {
  userId: number;
  /** The user's plan, which weighs its share in the fair order. */
  plan: Plan;
  operation: JobOperation;
  mode: JobMode;
  status: 'queued' | 'running';
  count: number;
}

/** One user's share of the queue as the fair order weighs it. */
export interface UserWork {
  userId: number;
  plan: Plan;
  queued: number;
  running: number;
  /** The order of its latest start among all starts; null when none of its jobs started yet. */
  lastStart: number | null;
}

/** How long the jobs of one operation that ended recently ran, on average. */
export interface RecentDuration {
  operation: JobOperation;
  /** Milliseconds from start to end. */
  meanMs: number;
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

/** What requeue() found among running jobs their queue lost. */
export interface Requeued {
  requeued: string[];
  /** Started `maxAttempts` times already: still running, to be failed as interrupted. */
  spent: string[];
}

/**
 * Thrown by create() when the user already has `cap` unfinished jobs: nothing was stored. The count and
 * the insert are one atomic step, so simultaneous submissions never go over the plan's cap.
 */
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
   * Stores a job already running, started at `now` (attempts 1), when no job is queued and fewer than
   * `slots` (the deployment's) are running: the fair order would start it next anyway, so nobody waits
   * longer for it (a synchronous call, bullmq/). Stores nothing and answers undefined otherwise.
   */
  startNow(job: NewJob, now: number, slots: number): Promise<JobRecord | undefined>;
  get(id: string): Promise<JobRecord | undefined>;
  /** Those of jobs `ids` that are still kept, in no particular order. */
  getMany(ids: readonly string[]): Promise<JobRecord[]>;
  /** One user's jobs, newest first; undefined when `cursor` is not one this store made. */
  list(userId: number, query: JobListQuery): Promise<JobPage | undefined>;
  /** The user's queued and running jobs. */
  countUnfinished(userId: number): Promise<number>;
  /**
   * The users with jobs queued or running, each with its plan, its jobs queued and running, and when
   * its last job started: what the fair order (fair-share.ts) picks the next job from.
   */
  usersWithWork(): Promise<UserWork[]>;
  /**
   * Atomically takes `userId`'s oldest queued job and marks it running (attempts + 1, started at
   * `now`). Undefined when the user has none queued (another claim took it meanwhile).
   */
  claimOldest(userId: number, now: number): Promise<JobRecord | undefined>;
  /**
   * Ends a queued or running job, keeping a success's `outputs` with it; undefined (and nothing
   * changed, no output kept) when it had already ended.
   */
  finish(id: string, outcome: JobOutcome, now: number): Promise<JobRecord | undefined>;
  /**
   * Ends a job canceled only while it is queued and never started; undefined (and nothing changed) once
   * it started (even if queued again since) or ended.
   */
  withdraw(id: string, now: number): Promise<JobRecord | undefined>;
  /**
   * A running job given back unfinished (a graceful shutdown, or a hand-on between units of its work):
   * queued again, as of `queuedAt`, the attempt not counted.
   */
  release(id: string, queuedAt: number): Promise<void>;
  /**
   * Counts another start of a running job whose last attempt was lost with its worker (BullMQ's
   * stalled-job recovery): attempts + 1, started at `now`. Undefined when the job is not running.
   */
  restart(id: string, now: number): Promise<JobRecord | undefined>;
  /** Ids of the running jobs started at or before `before` (to find those no queue holds any more). */
  runningIds(before: number): Promise<string[]>;
  /**
   * Of jobs `ids`, those still running and started at or before `before` were lost by the queue that
   * carried them (bullmq/feeder.ts): queued again at `now` when started fewer than `maxAttempts`
   * times, else left running and answered as `spent`, for the caller to fail. A job started again or
   * ended meanwhile is left alone.
   */
  requeue(ids: readonly string[], before: number, maxAttempts: number, now: number): Promise<Requeued>;
  /**
   * After a crash of the one process that claims from this store and waits on its jobs' callers
   * (local-job-queue.ts): see Recovery. Call once at start, before the first claimNext(). Over
   * BullMQ a crashed worker's job is BullMQ's to give to another (bullmq/bullmq-worker.ts).
   */
  recover(maxAttempts: number, interruptedError: JobError, now: number): Promise<Recovery>;
  /** Forgets jobs finished at or before `before`; returns their ids. */
  forget(before: number): Promise<string[]>;
  /** Ids of every job not finished, whoever runs it (to tell the stored inputs worth keeping). */
  unfinishedIds(): Promise<string[]>;
  /** Every unfinished job counted by user, operation, mode and status; none listed with 0. */
  unfinishedCounts(): Promise<UnfinishedJobs[]>;
  /** Per operation, how long the jobs that ended (succeeded or failed) at or after `since` ran. */
  recentDurations(since: number): Promise<RecentDuration[]>;
}
