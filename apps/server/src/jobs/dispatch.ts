// How stored jobs reach the process that runs them, and how their ends and cancels reach the processes
// that wait on them (issue #16; STYLE.md 14, 19). The runner (runner.ts) runs jobs and answers
// waiters the same way whatever the dispatch; the dispatch decides where and when. Two
// implementations: local-dispatch.ts, the embedded process claiming from the job store itself, and
// bullmq-dispatch.ts, the shared backends' processes passing jobs over BullMQ on Redis.
import type { JobOutcome, JobRecord, NewJob } from './job-store.js';

/** How a job run here ended: recorded in the store, or interrupted by close() (not recorded). */
export type RunEnd = JobOutcome | { status: 'interrupted' };

/** What a dispatch asks of its process's runner. */
export interface DispatchHost {
  /** Jobs this process can start now: 0 where it runs none (`--role api`) or while it stops. */
  freeSlots(): number;
  /**
   * Runs a job the store marked running for this process. `callersHere`: its synchronous caller, if
   * any, waits in this process (the embedded one), so a synchronous job nobody waits on is not run.
   * Rejects, once it has told the job's waiter, when the store failed under it (the job stays unfinished).
   */
  runJob(job: JobRecord, callersHere: boolean): Promise<RunEnd>;
  /** Job `id` may have ended in another process: answers whoever waits on it here, from the store. */
  endedElsewhere(id: string): void;
  /**
   * Every attempt at job `id` was interrupted (its workers died or stopped): records it failed, unless
   * it had ended, and tells its waiters and webhook as any end.
   */
  interruptedEverywhere(id: string): Promise<void>;
  /** Job `id` was canceled through another process: stops its tools if it runs here. */
  stop(id: string): void;
  /** The dispatch's recovery at start ended these jobs (failed or canceled): their inputs can go. */
  recovered(ended: readonly string[]): Promise<void>;
  /** The store cannot hand out jobs: synchronous callers here whose job has not started get `error`. */
  cannotStart(error: unknown): void;
}

/** A synchronous job stored running in the process its caller waits on (JobDispatch.startHere). */
export interface JobStartedHere {
  record: JobRecord;
  /** The job's attempt here is over (ended, or interrupted). */
  ended(): void;
}

export interface JobDispatch {
  /** Takes over what a stopped process left, then hears of jobs, ends and cancels for `host`. */
  start(host: DispatchHost): Promise<void>;
  /**
   * A synchronous job its caller's process has a slot free for: stored running there, to run at once
   * on the uploads where they are, when this dispatch would otherwise carry the job to another
   * process (through the input store and a queue) and nothing queued would wait longer for it (issue
   * #15: a small merge on the shared backends). Else nothing is stored (undefined): submit it as usual.
   */
  startHere(job: NewJob, now: number): Promise<JobStartedHere | undefined>;
  /** A job was stored queued, or a slot freed here: gets queued jobs going. */
  wake(): void;
  /** This process canceled job `id` in the store: stops it wherever it runs, tells whoever waits. */
  canceled(id: string): Promise<void>;
  /** A job run here was interrupted by close(): what becomes of it (run again by the next start, or elsewhere). */
  interrupted(id: string): Promise<void>;
  /** Takes no new jobs; resolves once the jobs it handed this process have ended or were interrupted. */
  close(): Promise<void>;
}
