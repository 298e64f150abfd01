// The one job runner (issue #13): every operation, synchronous call or `Prefer: respond-async` job,
// is stored in the job store and run from there, at most `slots` at once (the CPU bound of
// PDN_JOB_CONCURRENCY, as before jobs). Its dispatch (dispatch.ts) decides which jobs this process
// runs and when, in the store's fair order; this class holds what only the process knows: which
// jobs it runs (to cancel them) and who waits on them (synchronous calls get the operation's own
// result or error back).
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, JobProgress } from '@pdn/api-types';
import { ToolReport, type ToolTime, withToolReport } from '../engines/tool-report.js';
import type { Logger } from '../logger.js';
import { jobQueueWait, jobsFinished, jobsRunning } from '../metrics.js';
import type { OperationInput, Operations } from '../operations/index.js';
import { publicError } from '../public-error.js';
import type { RoleParts } from '../role.js';
import { type Downloads, type InputStore, outputIdFor, type WorkDirs } from '../storage/index.js';
import { type AttemptFolder, openAttemptFolder } from './attempt-folder.js';
import type { DispatchHost, JobDispatch, JobStartedHere, RunEnd } from './dispatch.js';
import { errorOfJob } from './job-error.js';
import type { JobError, JobMode, JobOperation, JobOutcome, JobRecord, JobStore } from './job-store.js';
import { jobView } from './job-view.js';
import { LocalDispatch } from './local-dispatch.js';
import { MAX_ATTEMPTS, OUTPUT_KEEP_MS, RECORD_RETENTION_MS } from './retention.js';

export interface Submission {
  /** The job's id when the caller needs it before the job is stored (an Idempotency-Key, issue #14). */
  id?: string;
  userId: number;
  operation: JobOperation;
  /** The uploads, in the operation's order; kept in the input store until the job ends. */
  files: readonly OperationInput[];
  /** The operation's params, already checked by the route (stored as JSON). */
  params: unknown;
  /** Where to POST the event when the job ends (issue #14), checked by the route. */
  callbackUrl?: string | undefined;
  /** Stored only while the user has fewer unfinished jobs (the plan's cap, http/middleware/job-cap.ts). */
  unfinishedJobsCap?: number | undefined;
}

/** Where a job's time went (issue #18): on its caller's request line, or on the job's own line. */
export interface JobTimings {
  /** From the job being stored to a slot starting it. */
  queue_ms: number;
  /** The operation's run: its engines, their tools, and storing the outputs. */
  engine_ms: number;
  /** The external tools it ran, by name. */
  tools: Record<string, ToolTime>;
}

/** A synchronous call waiting in this process: its request's log, told its job's timings at the end. */
export interface Caller {
  log: Logger;
  timed(timings: JobTimings): void;
}

/** Webhooks (webhooks/deliverer.ts), as the runner needs them: told before a job with a callback is stored, and of every job's end. */
export interface JobCallbacks {
  subscribe(jobId: string, userId: number, url: string): Promise<void>;
  jobEnded(record: JobRecord): Promise<void>;
}

/** How a job ended, as the waiting synchronous call needs it. */
interface Settled {
  record: JobRecord | undefined;
  result?: unknown;
  error?: unknown;
}

interface Running {
  controller: AbortController;
  canceled: boolean;
  /** Rejects when the store failed under the job. */
  done: Promise<RunEnd>;
  /** How far the engine is, when it says (openapi.yaml `JobProgress`). Held by the process running it. */
  progress?: JobProgress;
  /** Started here for its caller (JobDispatch.startHere): its uploads, read where they are. */
  here?: { started: JobStartedHere; files: readonly OperationInput[] };
}

/** Shown for a job a restart interrupted on its last attempt (openapi.yaml, "Jobs"). */
export const INTERRUPTED: JobError = {
  code: 'internal_error',
  message: `The server stopped while running this job, ${MAX_ATTEMPTS} times; it was not run again. Submit it again.`,
};

/** Listeners one job's engines may hold on its signal at once (20 merge inputs + margin). */
const ENGINE_LISTENERS = 32;
/** How often forgotten jobs are looked for. */
const FORGET_INTERVAL_MS = 60_000;
/** Inputs stored this recently are never pruned at start: their job may not be stored yet. */
const INPUTS_PRUNE_MARGIN_MS = 60 * 60_000;

export function newJobId(): string {
  return `job_${randomBytes(16).toString('base64url')}`;
}

export interface RunnerDeps {
  store: JobStore;
  operations: Operations;
  /** Where jobs' uploads wait until the jobs end (the data folder, or the shared bucket). */
  inputs: InputStore;
  /** This process's work area, where each attempt gets a folder of its own (attempt-folder.ts). */
  workDirs: WorkDirs;
  downloads: Downloads;
  slots: number;
  log: Logger;
  /**
   * What this process's role does (role.ts; default all): `api` takes submissions, `runner` runs
   * jobs, `sweeper` forgets old ones.
   */
  parts?: RoleParts;
  /** Default: the embedded process's own (local-dispatch.ts). */
  dispatch?: JobDispatch;
  callbacks?: JobCallbacks;
  now?: () => number;
}

export class JobRunner implements DispatchHost {
  readonly #deps: RunnerDeps;
  readonly #dispatch: JobDispatch;
  readonly #now: () => number;
  readonly #running = new Map<string, Running>();
  readonly #waiters = new Map<string, (settled: Settled) => void>();
  /** Readers holding their answer until a job ends (GET with `Prefer: wait`). */
  readonly #watchers = new Map<string, Set<() => void>>();
  /** The caller of a synchronous job, so its engine lines carry the request id and its line the timings. */
  readonly #callers = new Map<string, Caller>();
  #closed = false;
  /** Slots held by synchronous calls asking their dispatch to start them here (#startHere). */
  #reserved = 0;
  /** Set once close() interrupts what still runs: a job failing before that (in the grace) fails. */
  #interrupting = false;
  #forgetTimer: NodeJS.Timeout | undefined;
  readonly #parts: RoleParts;

  constructor(deps: RunnerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#parts = deps.parts ?? { api: true, runner: true, sweeper: true };
    this.#dispatch = deps.dispatch ?? new LocalDispatch(deps.store, deps.log, INTERRUPTED, this.#now);
  }

  /** Takes over what a stopped process left (openapi.yaml, "Jobs", Restarts), then starts running. */
  async start(): Promise<void> {
    const { store, inputs } = this.#deps;
    if (this.#parts.sweeper) {
      this.#forgetTimer = setInterval(() => this.#forget(), FORGET_INTERVAL_MS);
      this.#forgetTimer.unref();
    }
    await this.#dispatch.start(this);
    // Where the sweeper runs, after the dispatch's recovery, whose failed and canceled jobs' inputs go
    // with the rest: inputs without an unfinished job, older than a margin (the ones just kept may be
    // for a job another process has not stored yet).
    if (this.#parts.sweeper)
      await inputs.prune(new Set(await store.unfinishedIds()), this.#now() - INPUTS_PRUNE_MARGIN_MS);
    this.#dispatch.wake();
  }

  /**
   * Resolves once job `id` ends (or is given back to the queue) in this process, or after `ms`,
   * whichever comes first. Watch before reading the job, so an ending in between is not missed; stop
   * when done with it.
   */
  watch(id: string, ms: number): { ended: Promise<void>; stop(): void } {
    let stop = () => {};
    const ended = new Promise<void>((resolve) => {
      const watchers = this.#watchers.get(id) ?? new Set<() => void>();
      this.#watchers.set(id, watchers);
      const timer = setTimeout(() => stop(), ms);
      stop = () => {
        clearTimeout(timer);
        watchers.delete(stop);
        if (watchers.size === 0) this.#watchers.delete(id);
        resolve();
      };
      watchers.add(stop);
    });
    return { ended, stop };
  }

  /** The job as the API shows it, download URLs signed by this answer. */
  view(record: JobRecord): Job {
    const { operations, downloads } = this.#deps;
    return jobView(
      record,
      operations,
      (download, keepUntil) => downloads.resign(download, keepUntil),
      this.#now(),
      this.#running.get(record.id)?.progress,
    );
  }

  /** Stores a job (`Prefer: respond-async`) and returns it queued. */
  async submit(submission: Submission): Promise<JobRecord> {
    return (await this.#enqueue(submission, 'async')).record;
  }

  /**
   * The synchronous path: submits, waits and answers the operation's own result, or throws its own
   * error. When `signal` aborts (the client went away, the server gave up on the request), the job
   * is canceled and the signal's reason thrown, as before jobs.
   */
  async run(submission: Submission, signal: AbortSignal, caller?: Caller): Promise<unknown> {
    signal.throwIfAborted();
    const { record, settled } = await this.#enqueue(submission, 'sync', caller);
    const onAbort = () => {
      this.cancel(record.id).catch((error: unknown) =>
        this.#deps.log.warn('canceling a job failed', { job_id: record.id, error }),
      );
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // The caller may have gone while the job was being stored.
    if (signal.aborted) onAbort();
    try {
      const outcome = (await settled) ?? { record: undefined };
      if (outcome.record?.status === 'succeeded') return outcome.result;
      signal.throwIfAborted();
      throw outcome.error;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Cancels a queued or running job and answers it as it is afterwards (unchanged when it had ended). */
  async cancel(id: string): Promise<JobRecord | undefined> {
    const running = this.#running.get(id);
    if (running) {
      this.stop(id);
      await running.done.catch(() => {});
    } else {
      const ended = await this.#deps.store.finish(id, { status: 'canceled' }, this.#now());
      if (ended) {
        await this.#ended(id, { record: ended, error: new Error('job canceled') });
        await this.#dispatch.canceled(id);
      }
    }
    return this.#deps.store.get(id);
  }

  /**
   * Stops starting jobs, lets the running ones finish for up to `graceMs` (a worker's SIGTERM, issue
   * #16; 0 elsewhere, where the HTTP drain gave synchronous calls their grace), then interrupts the
   * rest, which go back to the queue for the next start.
   */
  async close(graceMs = 0): Promise<void> {
    this.#closed = true;
    clearInterval(this.#forgetTimer);
    const dispatchClosed = this.#dispatch.close();
    if (graceMs > 0 && this.#running.size > 0)
      await Promise.race([
        Promise.allSettled([...this.#running.values()].map((job) => job.done)),
        sleep(graceMs, undefined, { ref: false }),
      ]);
    const running = [...this.#running.values()];
    this.#interrupting = true;
    for (const job of running) job.controller.abort(new Error('server stopping'));
    await Promise.all(running.map((job) => job.done.catch(() => {})));
    await dispatchClosed;
  }

  async #enqueue(submission: Submission, mode: JobMode, caller?: Caller) {
    const { store, inputs } = this.#deps;
    const id = submission.id ?? newJobId();
    // Only a synchronous call waits; registered before the job is stored, so no ending can be missed.
    const settled =
      mode === 'sync' ? new Promise<Settled>((resolve) => this.#waiters.set(id, resolve)) : undefined;
    if (caller) this.#callers.set(id, caller);
    let record: JobRecord;
    try {
      if (submission.callbackUrl !== undefined) {
        if (!this.#deps.callbacks) throw new Error('a callback_url needs the runner to have callbacks');
        await this.#deps.callbacks.subscribe(id, submission.userId, submission.callbackUrl);
      }
      const started = mode === 'sync' ? await this.#startHere(id, submission) : undefined;
      if (started !== undefined) return { record: started, settled };
      const kept = await inputs.put(id, submission.files);
      record = await store.create(
        {
          id,
          userId: submission.userId,
          operation: submission.operation,
          mode,
          input: { files: kept, params: submission.params },
        },
        this.#now(),
        submission.unfinishedJobsCap,
      );
    } catch (error) {
      this.#waiters.delete(id);
      this.#callers.delete(id);
      await inputs.remove(id);
      throw error;
    }
    this.#dispatch.wake();
    return { record, settled };
  }

  /**
   * With a slot free, asks the dispatch to store the job running here, and starts it on the uploads
   * where they are (dispatch.ts startHere). The slot is held while the dispatch answers, so two calls
   * never take the same one.
   */
  async #startHere(id: string, submission: Submission): Promise<JobRecord | undefined> {
    if (this.freeSlots() === 0) return undefined;
    this.#reserved += 1;
    try {
      const files = submission.files.map((file, index) => ({
        stored: String(index),
        name: file.name,
        size: file.size,
      }));
      const { userId, operation, params } = submission;
      const started = await this.#dispatch.startHere(
        { id, userId, operation, mode: 'sync', input: { files, params } },
        this.#now(),
      );
      if (started === undefined) return undefined;
      // A rejection was logged and answered by runJob; the dispatch's recovery has the job.
      this.#run(started.record, { started, files: submission.files }).catch(() => {});
      return started.record;
    } finally {
      this.#reserved -= 1;
    }
  }

  /** Answers a synchronous caller whose job cannot start, and cancels the job if the store allows. */
  async #abandon(id: string, error: unknown): Promise<void> {
    this.#settle(id, { record: undefined, error });
    await this.#deps.store.finish(id, { status: 'canceled' }, this.#now()).catch(() => undefined);
    await this.#deps.inputs.remove(id).catch(() => {});
  }

  freeSlots(): number {
    return this.#parts.runner && !this.#closed
      ? Math.max(0, this.#deps.slots - this.#running.size - this.#reserved)
      : 0;
  }

  runJob(job: JobRecord, callersHere: boolean): Promise<RunEnd> {
    // A synchronous job nobody waits for any more (its caller was answered already) is not run.
    if (callersHere && job.mode === 'sync' && !this.#waiters.has(job.id)) {
      void this.#abandon(job.id, undefined);
      return Promise.resolve({ status: 'canceled' });
    }
    return this.#run(job);
  }

  #run(job: JobRecord, here?: Running['here']): Promise<RunEnd> {
    const controller = new AbortController();
    setMaxListeners(ENGINE_LISTENERS, controller.signal);
    const running: Running = {
      controller,
      canceled: false,
      done: Promise.resolve({ status: 'canceled' }),
      ...(here === undefined ? {} : { here }),
    };
    this.#running.set(job.id, running);
    const labels = { operation: job.operation, mode: job.mode };
    const queuedMs = Math.max(0, this.#now() - job.createdAt);
    jobQueueWait.observe(labels, queuedMs / 1000);
    jobsRunning.inc(labels);
    running.done = this.#attempt(job, running, queuedMs)
      .catch(async (error: unknown) => {
        // The store failed under the runner itself (a full disk, issue #11): whoever waits gets the
        // error. The job stays unfinished in the store, for the dispatch to run again, or to cancel
        // if it was a synchronous call's, whose files can go now.
        this.#deps.log.error('a job could not be ended', { job_id: job.id, error });
        if (job.mode === 'sync') await this.#deps.inputs.remove(job.id).catch(() => {});
        this.#settle(job.id, { record: undefined, error });
        throw error;
      })
      .finally(() => {
        jobsRunning.dec(labels);
        this.#running.delete(job.id);
        here?.started.ended();
      });
    return running.done;
  }

  endedElsewhere(id: string): void {
    if (!this.#waiters.has(id) && !this.#watchers.has(id)) return;
    this.#deps.store.get(id).then(
      (record) => {
        if (record === undefined || record.finishedAt !== null) this.#settle(id, this.#settledOf(id, record));
      },
      (error: unknown) => this.#deps.log.warn('reading an ended job failed', { job_id: id, error }),
    );
  }

  async interruptedEverywhere(id: string): Promise<void> {
    const ended = await this.#deps.store.finish(id, { status: 'failed', error: INTERRUPTED }, this.#now());
    if (ended === undefined) return this.endedElsewhere(id);
    this.#deps.log.warn('a job was interrupted on every attempt', { job_id: id });
    await this.#ended(id, { record: ended, error: errorOfJob(INTERRUPTED) });
  }

  stop(id: string): void {
    const running = this.#running.get(id);
    if (running === undefined || running.canceled) return;
    running.canceled = true;
    running.controller.abort(new Error('job canceled'));
  }

  async recovered(ended: readonly string[]): Promise<void> {
    for (const id of ended) await this.#deps.inputs.remove(id);
  }

  cannotStart(error: unknown): void {
    for (const id of this.#waiters.keys()) if (!this.#running.has(id)) void this.#abandon(id, error);
  }

  async #attempt(job: JobRecord, running: Running, queuedMs: number): Promise<RunEnd> {
    const { operations, inputs, workDirs, downloads, store, log } = this.#deps;
    const signal = running.controller.signal;
    const caller = this.#callers.get(job.id);
    const jobLog = caller?.log ?? log.child({ job_id: job.id });
    const tools = new ToolReport(jobLog);
    const started = performance.now();
    let settled: Settled;
    let outcome: JobOutcome;
    let folder: AttemptFolder | undefined;
    try {
      const { here } = running;
      const source = here === undefined ? inputs : { fetch: async () => [...here.files] };
      const opened = await openAttemptFolder(workDirs, source, job);
      folder = opened;
      // Stopped while its inputs were fetched: no work starts (an operation need not check first).
      signal.throwIfAborted();
      let made = 0;
      // Stamped as each output is stored, at the end of the work, so a long job's files still outlive its retention.
      const outputs = {
        publish: (path: string, filename: string) =>
          downloads.publish(path, filename, {
            id: outputIdFor(job.id, made++),
            keepUntil: this.#now() + OUTPUT_KEEP_MS,
          }),
      };
      const result = await withToolReport(tools, () =>
        operations[job.operation].run(
          opened.inputs,
          job.input.params,
          {
            workDir: opened.workDir,
            signal,
            log: jobLog,
            progress: (done, total) => {
              running.progress = { done, total };
            },
          },
          outputs,
        ),
      );
      outcome = { status: 'succeeded', result };
      settled = { record: undefined, result };
    } catch (error) {
      if (this.#interrupting && !running.canceled) {
        // Interrupted by a shutdown, not by its owner: the dispatch has it run again.
        await this.#dispatch.interrupted(job.id);
        this.#settle(job.id, { record: undefined, error });
        return { status: 'interrupted' };
      }
      const shown = publicError(error);
      // A synchronous call's error is logged by the error envelope it is answered with; a job's here.
      if (job.mode === 'async' && !running.canceled && shown.status >= 500)
        log.error('job failed', { job_id: job.id, error, cause: shown.known?.cause });
      outcome = running.canceled ? { status: 'canceled' } : { status: 'failed', error: shown.body };
      settled = { record: undefined, error };
    } finally {
      await folder?.close();
    }
    const engineMs = performance.now() - started;
    const ended = await store.finish(job.id, outcome, this.#now());
    jobsFinished.inc({ operation: job.operation, mode: job.mode, outcome: outcome.status });
    const timings = {
      queue_ms: Math.round(queuedMs),
      engine_ms: Math.round(engineMs),
      tools: tools.times(),
    };
    // A caller here writes them on its request line; a job nobody here waits for gets a line of its own.
    if (caller) caller.timed(timings);
    else
      jobLog.info('job ended', {
        operation: job.operation,
        mode: job.mode,
        outcome: outcome.status,
        ...timings,
      });
    await this.#ended(
      job.id,
      { ...settled, record: ended ?? (await store.get(job.id)) },
      running.here === undefined,
    );
    return outcome;
  }

  /** `storedInputs`: whether the job's inputs are in the input store, to remove now. */
  async #ended(id: string, settled: Settled, storedInputs = true): Promise<void> {
    if (storedInputs) await this.#deps.inputs.remove(id);
    this.#settle(id, settled);
    const { callbacks, log } = this.#deps;
    if (settled.record && callbacks)
      await callbacks
        .jobEnded(settled.record)
        .catch((error: unknown) =>
          log.error('recording a job end for its webhook failed', { job_id: id, error }),
        );
  }

  #settle(id: string, settled: Settled): void {
    this.#callers.delete(id);
    for (const stop of this.#watchers.get(id) ?? []) stop();
    const waiter = this.#waiters.get(id);
    this.#waiters.delete(id);
    waiter?.(settled);
  }

  #settledOf(id: string, record: JobRecord | undefined): Settled {
    if (record?.status === 'succeeded') return { record, result: this.view(record).result };
    if (record?.status === 'canceled') return { record, error: new Error('job canceled') };
    if (record === undefined) this.#deps.log.warn('a job waited on is gone from the store', { job_id: id });
    return { record, error: errorOfJob(record?.error ?? null) };
  }

  #forget(): void {
    this.#deps.store
      .forget(this.#now() - RECORD_RETENTION_MS)
      .catch((error: unknown) => this.#deps.log.warn('forgetting old jobs failed', { error }));
  }
}
