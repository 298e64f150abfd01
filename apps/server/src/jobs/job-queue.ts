// How a job gets from the process that takes it to a process that runs it, and how its end reaches
// whoever waits on it, named after BullMQ's own seams (STYLE.md 14, 17, 26): a JobQueue takes jobs
// (add, cancel) and tells of their ends (events); a worker takes jobs from it and calls a JobProcessor
// for each, `process(job, signal)`, its only call into the rest of the server. Two implementations
// pass job-queue.contract.ts: local-job-queue.ts, one process claiming from the job store itself (the
// embedded default), and bullmq/, processes passing jobs over BullMQ on Redis (the shared backends).
// The job store stays the record of every job's state and result; a queue carries work and news.
import type { Logger } from '../logger.js';
import type { OperationInput } from '../operations/index.js';
import type { InputStore } from '../storage/index.js';
import type { OutputRow } from '../storage/output-rows.js';
import type { JobMode, JobOperation, JobOutcome, JobRecord } from './job-store.js';

/** A job as its caller hands it over: its uploads on disk, and its params already checked. */
export interface Submission {
  id: string;
  userId: number;
  operation: JobOperation;
  mode: JobMode;
  params: unknown;
  /** The request that submitted it: every log line of the job carries it, wherever it runs. */
  requestId?: string | undefined;
  /** The uploads in the operation's order; the queue keeps them until the job ends. */
  files: readonly OperationInput[];
  /** Stored only while the user has fewer unfinished jobs than this (JobStore.create). */
  unfinishedJobsCap?: number | undefined;
}

/** A job's end as a process hears of it. */
export interface JobEnd {
  id: string;
  /** The job as recorded, when this process recorded its end; elsewhere, read it from the store. */
  record?: JobRecord | undefined;
  /**
   * The job as the process that recorded its end told it (BullMQ's completion carries it): enough for
   * a waiter, but this process made no event of it (the webhook deliverer acts on `record` only).
   */
  told?: JobRecord | undefined;
  /**
   * What ended it when it ran in this process: the operation's own error (its cause is for the log
   * only), or the store's failure to record the end, which leaves no record.
   */
  error?: unknown;
}

export interface JobEvents {
  /** Calls `listener` with every job end this process hears of; returns how to stop listening. */
  onEnded(listener: (end: JobEnd) => void): () => void;
}

export interface JobQueue {
  /** Stores the job queued with its uploads, and gets it to a worker in the store's fair order. */
  add(submission: Submission): Promise<JobRecord>;
  /**
   * Ends a queued or running job as canceled, wherever it runs (its tools are stopped), and answers
   * it as it is afterwards: unchanged when it had ended; undefined when there is no such job.
   */
  cancel(id: string): Promise<JobRecord | undefined>;
  /**
   * Ends job `id` canceled if it has not started yet (nothing of it ran), and tells of it; undefined,
   * and nothing changed, once it started or ended.
   */
  withdraw(id: string): Promise<JobRecord | undefined>;
  /** Jobs the deployment runs at once: this process's slots, or the slots of the live workers. */
  capacity(): Promise<number>;
  readonly events: JobEvents;
  /** Takes over what a stopped process left, then starts handing out jobs. */
  start(): Promise<void>;
  /**
   * Takes no new jobs; a worker of this process lets its running jobs finish for up to `graceMs`, then
   * interrupts the rest, which go back to the queue (run again on the next start, or elsewhere).
   */
  close(graceMs: number): Promise<void>;
}

/** A job handed to a worker: its record, where its inputs are, its log and its progress. */
export interface ClaimedJob {
  record: JobRecord;
  /** Where its inputs are fetched from into the attempt's own folder. */
  inputs: Pick<InputStore, 'fetch'>;
  /** Its lines carry the job's id and the request that submitted it. */
  log: Logger;
  /** How far the operation is, in its own units (pages), when it knows. */
  progress(done: number, total: number): void;
  /** How it shares its slot; absent for a job whose inputs are not in the input store. */
  turns?: SlotTurns | undefined;
  /** Small outputs left for the job's end to store with it (OutputStore.put's `withEnd`). */
  withEnd?: OutputRow[];
}

/**
 * A long job's turns at its slot (openapi.yaml, "Jobs", Fairness): between units of its work it asks
 * whether a hand-on is due; if so, it keeps the work finished so far and throws SlotHandedOn. The job
 * is then queued again, and its next turn, in this process or another, starts from the kept work.
 */
export interface SlotTurns {
  /** Whether the fair order would start another user's job before this one's next turn. */
  due(): Promise<boolean>;
  /** Keeps the files of `dir`, the work finished so far, for the job's next turn. */
  keep(dir: string): Promise<void>;
  /** The work kept at the job's last hand-on, as files in `dir`; none on its first turn. */
  fetchKept(dir: string): Promise<void>;
}

/** Thrown by a job that handed its slot on, its finished work kept: not an end, a pause in the queue. */
export class SlotHandedOn extends Error {
  override readonly name = 'SlotHandedOn';
  constructor() {
    super('the job handed its slot on');
  }
}

/** The work itself: the operation's result, or a throw. Stops when `signal` aborts. */
export type JobProcessor = (job: ClaimedJob, signal: AbortSignal) => Promise<unknown>;

/**
 * How a worker's attempt at a job ended: recorded in the store (`recorded`: the job as it stands then;
 * absent when someone else ended it first), interrupted (not recorded), or handed on (queued again for
 * its next turn).
 */
export type RunEnd =
  | (JobOutcome & { recorded?: JobRecord })
  | { status: 'interrupted' }
  | { status: 'handed-on' };
