// The embedded JobQueue (job-queue.ts): one process takes jobs and runs them, so it claims the next job
// from the store itself whenever one is stored or a slot frees, in the store's fair order, and hears of
// every end first hand. A restart takes over what the stopped process left (openapi.yaml, "Jobs",
// Restarts): synchronous jobs are canceled (their callers went with the process), interrupted ones
// queued again or, on their last attempt, failed.
import { CoalescedRuns } from '../coalesced-runs.js';
import type { Logger } from '../logger.js';
import type { InputStore } from '../storage/index.js';
import { claimNext } from './fair-share.js';
import type { LocalJobEvents } from './job-events.js';
import type { JobQueue, Submission } from './job-queue.js';
import type { JobRuns } from './job-runs.js';
import type { JobRecord, JobStore } from './job-store.js';
import { INTERRUPTED, MAX_ATTEMPTS } from './retention.js';
import { storeSubmission } from './store-submission.js';

/** How soon starting jobs is tried again after the store failed to hand one out. */
const PUMP_RETRY_MS = 1_000;

export interface LocalJobQueueDeps {
  store: JobStore;
  inputs: InputStore;
  /** This process's worker: it runs every job. */
  runs: JobRuns;
  events: LocalJobEvents;
  log: Logger;
  now: () => number;
}

export class LocalJobQueue implements JobQueue {
  readonly #deps: LocalJobQueueDeps;
  readonly events: LocalJobEvents;
  /** Synchronous jobs stored here and not yet started: told when the store cannot hand jobs out. */
  readonly #unstarted = new Set<string>();
  readonly #pumps = new CoalescedRuns(() => this.#startFree());
  #started = false;
  #closed = false;

  constructor(deps: LocalJobQueueDeps) {
    this.#deps = deps;
    this.events = deps.events;
  }

  async start(): Promise<void> {
    const { store, inputs, log, now } = this.#deps;
    const recovery = await store.recover(MAX_ATTEMPTS, INTERRUPTED, now());
    if (recovery.requeued.length + recovery.failed.length + recovery.canceled.length > 0)
      log.info('jobs taken over after a restart', {
        requeued: recovery.requeued.length,
        failed: recovery.failed.length,
        canceled: recovery.canceled.length,
      });
    for (const id of [...recovery.failed, ...recovery.canceled]) await inputs.remove(id);
    this.#started = true;
    this.#pump();
  }

  async add(submission: Submission): Promise<JobRecord> {
    const { store, inputs, now } = this.#deps;
    const record = await storeSubmission(store, inputs, submission, now());
    if (submission.mode === 'sync') this.#unstarted.add(record.id);
    this.#pump();
    return record;
  }

  async cancel(id: string): Promise<JobRecord | undefined> {
    const { store, runs, now } = this.#deps;
    const ended = await store.finish(id, { status: 'canceled' }, now());
    if (ended === undefined) return store.get(id);
    await runs.stop(id);
    await this.#ended(ended);
    return ended;
  }

  async withdraw(id: string): Promise<JobRecord | undefined> {
    const ended = await this.#deps.store.withdraw(id, this.#deps.now());
    if (ended !== undefined) await this.#ended(ended);
    return ended;
  }

  async capacity(): Promise<number> {
    return this.#deps.runs.slots;
  }

  /** A job this queue ended without running it to its end: its inputs go, its waiters are told. */
  async #ended(record: JobRecord): Promise<void> {
    this.#unstarted.delete(record.id);
    await this.#deps.inputs.remove(record.id);
    this.events.emit({ id: record.id, record });
  }

  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    await this.#deps.runs.close(graceMs);
  }

  /** Starts queued jobs while slots are free; one pump at a time, run again when asked meanwhile. */
  #pump(): void {
    if (!this.#started || this.#closed) return;
    this.#pumps.request().catch((error: unknown) => this.#cannotStart(error));
  }

  async #startFree(): Promise<void> {
    const { store, runs, inputs, now } = this.#deps;
    while (!this.#closed && runs.free() > 0) {
      const job = await claimNext(store, now(), runs.slots);
      if (job === undefined) return;
      this.#unstarted.delete(job.id);
      const source = { inputs, storedInputs: true, interrupted: () => store.release(job.id, now()) };
      // A rejection was logged and told by the run; the job stays for the next start.
      runs
        .run(job, source)
        .catch(() => {})
        .finally(() => this.#pump());
    }
  }

  /**
   * The store cannot hand out jobs (a full disk). Synchronous callers get the error now rather than
   * wait on a disk nobody frees; queued jobs are tried again in a moment.
   */
  #cannotStart(error: unknown): void {
    const { store, inputs, log, now } = this.#deps;
    log.error('starting jobs failed', { error });
    for (const id of [...this.#unstarted]) {
      this.#unstarted.delete(id);
      this.events.emit({ id, error });
      void store
        .finish(id, { status: 'canceled' }, now())
        .then(() => inputs.remove(id))
        .catch(() => {});
    }
    setTimeout(() => this.#pump(), PUMP_RETRY_MS).unref();
  }
}
