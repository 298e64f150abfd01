// The jobs a process runs, whichever queue hands them over (local-job-queue.ts claims them from the
// store, bullmq/bullmq-worker.ts takes them from BullMQ): at most `slots` at once, each through the
// processor, its end recorded in the job store once, logged with where its time went, and told to this
// process's listeners. Holds what only the running process knows: the abort controller that stops a
// job's tools, and how far it is.
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobProgress } from '@pdn/api-types';
import { ToolReport, withToolReport } from '../engines/tool-report.js';
import { ServiceUnavailableError } from '../errors.js';
import type { Logger } from '../logger.js';
import { jobQueueWait, jobsFinished, jobsRunning } from '../metrics.js';
import { publicError } from '../public-error.js';
import type { InputStore } from '../storage/index.js';
import { shouldHandOn } from './fair-share.js';
import type { LocalJobEvents } from './job-events.js';
import {
  type ClaimedJob,
  type JobProcessor,
  type RunEnd,
  SlotHandedOn,
  type SlotTurns,
} from './job-queue.js';
import type { JobOutcome, JobRecord, JobStore } from './job-store.js';

/** Listeners one job's engines may hold on its signal at once (20 merge inputs + margin). */
const ENGINE_LISTENERS = 32;
/**
 * A job whose end the store cannot take (the database is away) offers it again this often, for at
 * most STORE_PATIENCE_MS: its output is made, and recorded once the database is back, its waiters are
 * answered within a second or so of that, instead of a restart running the whole job again. A worker
 * handed a job while the database is away waits for it the same way before running the job, instead
 * of spending the job's attempts on the outage.
 */
const STORE_RETRY_MS = 1_000;
const STORE_PATIENCE_MS = 10 * 60_000;
/**
 * How long a stop of a job not running here is kept: a worker that read the job as running from the
 * store may start it a moment after its cancel was heard, and the kept stop ends that run at once.
 */
export const EARLY_STOP_MS = 60_000;

/** Where a run's inputs are, and what becomes of a run a stopping process interrupts. */
export interface RunSource {
  inputs: ClaimedJob['inputs'];
  /** Whether its inputs are in the input store, to remove there when the job ends. */
  storedInputs: boolean;
  /** The run was interrupted by close(), not ended: give the job back (or cancel it). */
  interrupted(): Promise<void>;
}

interface Running {
  controller: AbortController;
  canceled: boolean;
  done: Promise<RunEnd>;
  progress?: JobProgress;
}

export interface JobRunsDeps {
  store: JobStore;
  inputs: InputStore;
  process: JobProcessor;
  /** Ends recorded here are told to this process's listeners through these. */
  events: LocalJobEvents;
  /** Jobs run at once (PDN_JOB_CONCURRENCY). */
  slots: number;
  /** The deployment's slots, for the fair order a long job's turns follow. */
  capacity(): Promise<number>;
  log: Logger;
  now: () => number;
}

export class JobRuns {
  readonly #deps: JobRunsDeps;
  readonly #running = new Map<string, Running>();
  /** Stops of jobs that were not running here, by when they came, oldest first (EARLY_STOP_MS). */
  readonly #earlyStops = new Map<string, number>();
  /** Removals of ended jobs' inputs still under way (#removeInputs). */
  readonly #removals = new Set<Promise<void>>();
  /** Slots promised to callers that are getting a job to run in them (reserve()). */
  #reserved = 0;
  #closed = false;
  /** Set once close() interrupts what still runs: a job failing before that (in the grace) fails. */
  #interrupting = false;

  constructor(deps: JobRunsDeps) {
    this.#deps = deps;
  }

  get slots(): number {
    return this.#deps.slots;
  }

  /** Jobs this process can start now: none once it closes. */
  free(): number {
    return this.#closed ? 0 : Math.max(0, this.#deps.slots - this.#running.size - this.#reserved);
  }

  /** Holds a free slot until the returned function is called (by then the job runs, or will not). */
  reserve(): (() => void) | undefined {
    if (this.free() === 0) return undefined;
    this.#reserved += 1;
    let held = true;
    return () => {
      if (held) this.#reserved -= 1;
      held = false;
    };
  }

  progressOf(id: string): JobProgress | undefined {
    return this.#running.get(id)?.progress;
  }

  /** Runs a job the store marks running; rejects, once it has told this process, when the store failed under it. */
  run(record: JobRecord, source: RunSource): Promise<RunEnd> {
    const controller = new AbortController();
    setMaxListeners(ENGINE_LISTENERS, controller.signal);
    const running: Running = { controller, canceled: false, done: Promise.resolve({ status: 'canceled' }) };
    this.#running.set(record.id, running);
    if (this.#earlyStops.delete(record.id)) {
      running.canceled = true;
      controller.abort(new Error('job canceled'));
    }
    const labels = { operation: record.operation, mode: record.mode };
    jobQueueWait.observe(labels, Math.max(0, this.#deps.now() - record.queuedAt) / 1000);
    jobsRunning.inc(labels);
    running.done = this.#attempt(record, running, source).finally(() => {
      jobsRunning.dec(labels);
      this.#running.delete(record.id);
    });
    return running.done;
  }

  /**
   * Stops job `id`'s tools if it runs here; resolves once its run is over. Undefined when it does not
   * run here: the stop is then kept a while, for a run of it about to start (EARLY_STOP_MS).
   */
  stop(id: string): Promise<RunEnd> | undefined {
    const running = this.#running.get(id);
    if (running === undefined) {
      this.#keepEarlyStop(id);
      return undefined;
    }
    if (!running.canceled) {
      running.canceled = true;
      running.controller.abort(new Error('job canceled'));
    }
    return running.done.catch(() => ({ status: 'canceled' }) as const);
  }

  #keepEarlyStop(id: string): void {
    const now = performance.now();
    for (const [kept, at] of this.#earlyStops) {
      if (now - at < EARLY_STOP_MS) break;
      this.#earlyStops.delete(kept);
    }
    this.#earlyStops.delete(id);
    this.#earlyStops.set(id, now);
  }

  /**
   * Starts no more jobs, lets the running ones finish for up to `graceMs`, then interrupts the rest
   * (RunSource.interrupted) and resolves once every run is over.
   */
  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    const dones = () => [...this.#running.values()].map((job) => job.done.catch(() => {}));
    if (graceMs > 0 && this.#running.size > 0)
      await Promise.race([Promise.all(dones()), sleep(graceMs, undefined, { ref: false })]);
    this.#interrupting = true;
    for (const job of this.#running.values()) job.controller.abort(new Error('server stopping'));
    await Promise.all(dones());
    await Promise.all(this.#removals);
  }

  /**
   * What a worker reads of a job before running it, read again while the store cannot be reached, until
   * it is back, STORE_PATIENCE_MS pass, or this process closes.
   */
  readBeforeRun<T>(read: () => Promise<T>, log: Logger): Promise<T> {
    return this.#patiently(read, () => !this.#closed, log, 'the job waits for it to start');
  }

  /**
   * Records a job's end, offering it again while the store cannot be reached, until it is back,
   * STORE_PATIENCE_MS pass, or a stopping process interrupts its jobs.
   */
  #recordEnd(id: string, outcome: JobOutcome, at: number, log: Logger): Promise<JobRecord | undefined> {
    const { store } = this.#deps;
    const wanted = () => !this.#interrupting;
    return this.#patiently(
      () => store.finish(id, outcome, at),
      wanted,
      log,
      "the job's end is offered again",
    );
  }

  /** `step`, tried every STORE_RETRY_MS while the store is unreachable and `wanted` holds; warns once. */
  async #patiently<T>(
    step: () => Promise<T>,
    wanted: () => boolean,
    log: Logger,
    meanwhile: string,
  ): Promise<T> {
    const giveUpAt = performance.now() + STORE_PATIENCE_MS;
    for (let told = false; ; told = true) {
      try {
        return await step();
      } catch (failure) {
        const waitable = failure instanceof ServiceUnavailableError && wanted();
        if (!waitable || performance.now() >= giveUpAt) throw failure;
        if (!told) log.warn(`the job store is unreachable: ${meanwhile} until it is back`);
        await sleep(STORE_RETRY_MS);
      }
    }
  }

  /**
   * Removes an ended job's inputs from the input store, after its run: on the shared backends a
   * worker's run ending is what tells the caller (BullMQ completes the job then), and the bucket's
   * deletes took a small merge's answer 8 ms. close() waits for them; what a failure leaves behind is
   * pruned by the sweeper (job-sweeper.ts).
   */
  #removeInputs(id: string, log: Logger): void {
    const removal = this.#deps.inputs
      .remove(id)
      .catch((failure: unknown) => log.warn("removing a job's inputs failed", { error: failure }))
      .finally(() => this.#removals.delete(removal));
    this.#removals.add(removal);
  }

  /** A job's turns at its slot: handed on when the fair order puts another user's job first. */
  #turns(record: JobRecord): SlotTurns {
    const { store, inputs, capacity } = this.#deps;
    return {
      due: async () =>
        !this.#closed && shouldHandOn(await store.usersWithWork(), record.userId, await capacity()),
      keep: (dir) => inputs.keepWork(record.id, dir),
      fetchKept: (dir) => inputs.fetchWork(record.id, dir),
    };
  }

  async #attempt(record: JobRecord, running: Running, source: RunSource): Promise<RunEnd> {
    const { store, events, now } = this.#deps;
    const { id } = record;
    const log = this.#deps.log.child({
      job_id: id,
      ...(record.requestId === undefined ? {} : { request_id: record.requestId }),
    });
    const tools = new ToolReport(log);
    const started = performance.now();
    const job: ClaimedJob = {
      record,
      inputs: source.inputs,
      log,
      progress: (done, total) => {
        running.progress = { done, total };
      },
      turns: source.storedInputs ? this.#turns(record) : undefined,
      withEnd: [],
    };
    let outcome: JobOutcome;
    let error: unknown;
    try {
      const result = await withToolReport(tools, () => this.#deps.process(job, running.controller.signal));
      outcome = { status: 'succeeded', result, outputs: job.withEnd ?? [] };
    } catch (thrown) {
      if (thrown instanceof SlotHandedOn && !running.canceled) {
        // Queued again, the attempt not counted; whoever waits goes on waiting.
        await store.release(id, this.#deps.now());
        log.info('job handed its slot on', {
          operation: record.operation,
          engine_ms: Math.round(performance.now() - started),
        });
        return { status: 'handed-on' };
      }
      if (this.#interrupting && !running.canceled) {
        await source.interrupted();
        events.emit({ id, error: thrown });
        return { status: 'interrupted' };
      }
      error = thrown;
      const shown = publicError(thrown);
      // A refusal by design (a converter this server lacks) is no fault: the job's line says it ended.
      if (!running.canceled && shown.status >= 500 && !shown.known?.refusal)
        log.error('job failed', { operation: record.operation, error: thrown, cause: shown.known?.cause });
      outcome = running.canceled ? { status: 'canceled' } : { status: 'failed', error: shown.body };
    }
    const engineMs = performance.now() - started;
    let ended: JobRecord | undefined;
    try {
      ended = await this.#recordEnd(id, outcome, now(), log);
    } catch (failure) {
      // The store failed under the job (a full disk, or a database away for too long): whoever waits
      // here gets the failure. The job stays unfinished in the store, for a restart to take over.
      log.error('a job could not be ended', { error: failure });
      events.emit({ id, error: failure });
      throw failure;
    }
    jobsFinished.inc({ operation: record.operation, mode: record.mode, outcome: outcome.status });
    log.info('job ended', {
      operation: record.operation,
      mode: record.mode,
      outcome: outcome.status,
      queue_ms: Math.max(0, (record.startedAt ?? record.queuedAt) - record.queuedAt),
      engine_ms: Math.round(engineMs),
      tools: tools.times(),
    });
    // Ended by someone else meanwhile (canceled): they told of it.
    if (ended === undefined) return outcome;
    events.emit({ id, record: ended, error });
    if (source.storedInputs) this.#removeInputs(id, log);
    return { ...outcome, recorded: ended };
  }
}
