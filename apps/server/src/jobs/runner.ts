// The one job runner (issue #13): every operation, synchronous call or `Prefer: respond-async` job,
// is stored in the job store and run from there, at most `slots` at once (the CPU bound of
// PDN_JOB_CONCURRENCY, as before jobs). The store's claimNext() decides the fair order; this class
// holds what only the running process knows: which jobs it runs (to cancel them), who waits on
// them (synchronous calls get the operation's own result or error back), and the restart rules.
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, JobProgress } from '@pdn/api-types';
import { withToolLog } from '../engines/tool-log.js';
import type { Logger } from '../logger.js';
import { jobQueueWait, jobsFinished, jobsRunning } from '../metrics.js';
import type { OperationInput, Operations } from '../operations/index.js';
import { publicError } from '../public-error.js';
import type { RoleParts } from '../role.js';
import { type Downloads, outputIdFor } from '../storage/index.js';
import { errorOfJob } from './job-error.js';
import type { JobFiles } from './job-files.js';
import type { JobError, JobMode, JobOperation, JobOutcome, JobRecord, JobStore } from './job-store.js';
import { jobView } from './job-view.js';
import { MAX_ATTEMPTS, OUTPUT_KEEP_MS, RECORD_RETENTION_MS } from './retention.js';

export interface Submission {
  /** The job's id when the caller needs it before the job is stored (an Idempotency-Key, issue #14). */
  id?: string;
  userId: number;
  operation: JobOperation;
  /** The uploads, in the operation's order; moved into the job's folder. */
  files: readonly OperationInput[];
  /** The operation's params, already checked by the route (stored as JSON). */
  params: unknown;
  /** Where to POST the event when the job ends (issue #14), checked by the route. */
  callbackUrl?: string | undefined;
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
  done: Promise<void>;
  /** How far the engine is, when it says (openapi.yaml `JobProgress`). Held by the process running it. */
  progress?: JobProgress;
}

/** Shown for a job a restart interrupted on its last attempt (openapi.yaml, "Jobs"). */
export const INTERRUPTED: JobError = {
  code: 'internal_error',
  message: `The server stopped while running this job, ${MAX_ATTEMPTS} times; it was not run again. Submit it again.`,
};

/** Listeners one job's engines may hold on its signal at once (20 merge inputs + margin). */
const ENGINE_LISTENERS = 32;
/** How soon starting jobs is tried again after the store failed to hand one out. */
const PUMP_RETRY_MS = 1_000;
/** How often forgotten jobs are looked for. */
const FORGET_INTERVAL_MS = 60_000;
/**
 * Jobs submitted and run in different processes (issue #16, `--role api` and `worker`): how often an
 * API process looks whether the jobs it waits on ended, and a worker for new jobs and for cancels of
 * the jobs it runs.
 */
const ENDINGS_POLL_MS = 250;
const CLAIM_POLL_MS = 250;

export function newJobId(): string {
  return `job_${randomBytes(16).toString('base64url')}`;
}

export interface RunnerDeps {
  store: JobStore;
  operations: Operations;
  files: JobFiles;
  downloads: Downloads;
  slots: number;
  log: Logger;
  /**
   * What this process's role does (role.ts; default all): `http` takes submissions, `runner` claims
   * and runs jobs, `sweeper` forgets old ones. Without `runner`, the jobs waited on here end in
   * another process and are seen ending in the store.
   */
  parts?: RoleParts;
  callbacks?: JobCallbacks;
  now?: () => number;
}

export class JobRunner {
  readonly #deps: RunnerDeps;
  readonly #now: () => number;
  readonly #running = new Map<string, Running>();
  readonly #waiters = new Map<string, (settled: Settled) => void>();
  /** Readers holding their answer until a job ends (GET with `Prefer: wait`). */
  readonly #watchers = new Map<string, Set<() => void>>();
  /** The request log of a synchronous job, so its engine lines carry the request id. */
  readonly #logs = new Map<string, Logger>();
  #pumping = false;
  #pumpAgain = false;
  #closed = false;
  /** Set once close() interrupts what still runs: a job failing before that (in the grace) fails. */
  #interrupting = false;
  #forgetTimer: NodeJS.Timeout | undefined;
  #endingsTimer: NodeJS.Timeout | undefined;
  #claimTimer: NodeJS.Timeout | undefined;
  readonly #parts: RoleParts;

  constructor(deps: RunnerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#parts = deps.parts ?? { http: true, runner: true, sweeper: true };
  }

  /** Takes over what a stopped process left (openapi.yaml, "Jobs", Restarts), then starts running. */
  async start(): Promise<void> {
    if (this.#parts.sweeper) {
      this.#forgetTimer = setInterval(() => this.#forget(), FORGET_INTERVAL_MS);
      this.#forgetTimer.unref();
    }
    if (!this.#parts.runner) return;
    const { store, files, log } = this.#deps;
    const recovery = await store.recover(MAX_ATTEMPTS, INTERRUPTED, this.#now(), this.#parts.http);
    if (recovery.requeued.length + recovery.failed.length + recovery.canceled.length > 0)
      log.info('jobs taken over after a restart', {
        requeued: recovery.requeued.length,
        failed: recovery.failed.length,
        canceled: recovery.canceled.length,
      });
    // Only where submissions are taken too: a worker pruning would remove the inputs an API process of
    // its folder has just kept for a job it has not stored yet.
    if (this.#parts.http) await files.prune(new Set(await store.unfinishedIds()));
    else {
      this.#claimTimer = setInterval(() => {
        this.#pump();
        void this.#stopCanceled();
      }, CLAIM_POLL_MS);
      this.#claimTimer.unref();
    }
    this.#pump();
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
    this.#watchEndings();
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
  async run(submission: Submission, signal: AbortSignal, log?: Logger): Promise<unknown> {
    signal.throwIfAborted();
    const { record, settled } = await this.#enqueue(submission, 'sync', log);
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
      running.canceled = true;
      running.controller.abort(new Error('job canceled'));
      await running.done;
    } else {
      const ended = await this.#deps.store.finish(id, { status: 'canceled' }, this.#now());
      if (ended) await this.#ended(id, { record: ended, error: new Error('job canceled') });
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
    clearTimeout(this.#endingsTimer);
    clearInterval(this.#claimTimer);
    if (graceMs > 0 && this.#running.size > 0)
      await Promise.race([
        Promise.all([...this.#running.values()].map((job) => job.done)),
        sleep(graceMs, undefined, { ref: false }),
      ]);
    const running = [...this.#running.values()];
    this.#interrupting = true;
    for (const job of running) job.controller.abort(new Error('server stopping'));
    await Promise.all(running.map((job) => job.done));
  }

  async #enqueue(submission: Submission, mode: JobMode, log?: Logger) {
    const { store, files } = this.#deps;
    const id = submission.id ?? newJobId();
    // Only a synchronous call waits; registered before the job is stored, so no ending can be missed.
    const settled =
      mode === 'sync' ? new Promise<Settled>((resolve) => this.#waiters.set(id, resolve)) : undefined;
    if (log) this.#logs.set(id, log);
    let record: JobRecord;
    try {
      if (submission.callbackUrl !== undefined) {
        if (!this.#deps.callbacks) throw new Error('a callback_url needs the runner to have callbacks');
        await this.#deps.callbacks.subscribe(id, submission.userId, submission.callbackUrl);
      }
      const kept = await files.keep(id, submission.files);
      record = await store.create(
        {
          id,
          userId: submission.userId,
          operation: submission.operation,
          mode,
          input: { files: kept, params: submission.params },
        },
        this.#now(),
      );
    } catch (error) {
      this.#waiters.delete(id);
      this.#logs.delete(id);
      await files.remove(id);
      throw error;
    }
    this.#pump();
    this.#watchEndings();
    return { record, settled };
  }

  /** Starts queued jobs while slots are free; one pump at a time, re-run when asked meanwhile. */
  #pump(): void {
    if (!this.#parts.runner) return;
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    (async () => {
      do {
        this.#pumpAgain = false;
        while (!this.#closed && this.#running.size < this.#deps.slots) {
          const job = await this.#deps.store.claimNext(this.#now());
          if (!job) break;
          this.#launch(job);
        }
      } while (this.#pumpAgain && !this.#closed);
    })()
      .catch((error: unknown) => {
        // The store cannot hand out jobs (a full disk, issue #11). Synchronous callers get the error
        // now rather than wait on a disk nobody frees; queued jobs are tried again in a moment.
        this.#deps.log.error('starting jobs failed', { error });
        for (const id of this.#waiters.keys()) if (!this.#running.has(id)) void this.#abandon(id, error);
        setTimeout(() => this.#pump(), PUMP_RETRY_MS).unref();
      })
      .finally(() => {
        this.#pumping = false;
      });
  }

  /** Answers a synchronous caller whose job cannot start, and cancels the job if the store allows. */
  async #abandon(id: string, error: unknown): Promise<void> {
    this.#settle(id, { record: undefined, error });
    await this.#deps.store.finish(id, { status: 'canceled' }, this.#now()).catch(() => undefined);
    await this.#deps.files.remove(id).catch(() => {});
  }

  #launch(job: JobRecord): void {
    // A synchronous job nobody here waits for any more (its caller was answered already) is not run;
    // a worker (no HTTP) runs jobs whose callers wait in other processes.
    if (this.#parts.http && job.mode === 'sync' && !this.#waiters.has(job.id)) {
      void this.#abandon(job.id, undefined);
      return;
    }
    const controller = new AbortController();
    setMaxListeners(ENGINE_LISTENERS, controller.signal);
    const running: Running = { controller, canceled: false, done: Promise.resolve() };
    this.#running.set(job.id, running);
    const labels = { operation: job.operation, mode: job.mode };
    jobQueueWait.observe(labels, Math.max(0, this.#now() - job.createdAt) / 1000);
    jobsRunning.inc(labels);
    running.done = this.#attempt(job, running)
      .catch(async (error: unknown) => {
        // The store failed under the runner itself (a full disk, issue #11): whoever waits gets the
        // error. The job stays unfinished in the store: the next start runs it again, or cancels it
        // if it was a synchronous call's, whose files can go now.
        this.#deps.log.error('a job could not be ended', { job_id: job.id, error });
        if (job.mode === 'sync') await this.#deps.files.remove(job.id).catch(() => {});
        this.#settle(job.id, { record: undefined, error });
      })
      .finally(() => {
        jobsRunning.dec(labels);
        this.#running.delete(job.id);
        this.#pump();
      });
  }

  async #attempt(job: JobRecord, running: Running): Promise<void> {
    const { operations, files, downloads, store, log } = this.#deps;
    const signal = running.controller.signal;
    const jobLog = this.#logs.get(job.id) ?? log.child({ job_id: job.id });
    let settled: Settled;
    let outcome: JobOutcome;
    try {
      const workDir = await files.freshWorkDir(job.id);
      let made = 0;
      // Stamped as each output is stored, at the end of the work, so a long job's files still outlive its retention.
      const outputs = {
        publish: (path: string, filename: string) =>
          downloads.publish(path, filename, {
            id: outputIdFor(job.id, made++),
            keepUntil: this.#now() + OUTPUT_KEEP_MS,
          }),
      };
      const result = await withToolLog(jobLog, () =>
        operations[job.operation].run(
          files.inputsOf(job.id, job.input.files),
          job.input.params,
          {
            workDir,
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
        // Interrupted by a shutdown, not by its owner: the next start runs it again (the attempt does not count).
        await store.release(job.id);
        this.#settle(job.id, { record: undefined, error });
        return;
      }
      const shown = publicError(error);
      // A synchronous call's error is logged by the error envelope it is answered with; a job's here.
      if (job.mode === 'async' && !running.canceled && shown.status >= 500)
        log.error('job failed', { job_id: job.id, error, cause: shown.known?.cause });
      outcome = running.canceled ? { status: 'canceled' } : { status: 'failed', error: shown.body };
      settled = { record: undefined, error };
    }
    const ended = await store.finish(job.id, outcome, this.#now());
    jobsFinished.inc({ operation: job.operation, mode: job.mode, outcome: outcome.status });
    await this.#ended(job.id, { ...settled, record: ended ?? (await store.get(job.id)) });
  }

  async #ended(id: string, settled: Settled): Promise<void> {
    await this.#deps.files.remove(id);
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
    this.#logs.delete(id);
    for (const stop of this.#watchers.get(id) ?? []) stop();
    const waiter = this.#waiters.get(id);
    this.#waiters.delete(id);
    waiter?.(settled);
  }

  /**
   * Without a runner here (`--role api`), the jobs waited on run in a worker: their ends are read from
   * the store every ENDINGS_POLL_MS while anyone waits, and answered as the runner would have.
   */
  #watchEndings(): void {
    if (this.#parts.runner || this.#endingsTimer !== undefined || this.#closed) return;
    this.#endingsTimer = setTimeout(async () => {
      const ids = new Set([...this.#waiters.keys(), ...this.#watchers.keys()]);
      for (const id of ids) {
        const record = await this.#deps.store.get(id).catch(() => undefined);
        if (record === undefined || record.finishedAt !== null) this.#settle(id, this.#settledOf(id, record));
      }
      this.#endingsTimer = undefined;
      if (this.#waiters.size + this.#watchers.size > 0) this.#watchEndings();
    }, ENDINGS_POLL_MS);
  }

  /** A worker: stops the tools of running jobs canceled through an API process. */
  async #stopCanceled(): Promise<void> {
    for (const [id, running] of this.#running) {
      const record = await this.#deps.store.get(id).catch(() => undefined);
      if (record?.status !== 'canceled' || running.canceled) continue;
      running.canceled = true;
      running.controller.abort(new Error('job canceled'));
    }
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
