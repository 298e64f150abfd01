// The embedded dispatch (dispatch.ts): one process submits and runs, so it claims the next job from
// the store itself whenever a job is stored or a slot frees, in the store's fair order (issue #13).
// A restart takes over what the stopped process left (openapi.yaml, "Jobs", Restarts).
import type { Logger } from '../logger.js';
import type { DispatchHost, JobDispatch } from './dispatch.js';
import type { JobError, JobStore } from './job-store.js';
import { MAX_ATTEMPTS } from './retention.js';

/** How soon starting jobs is tried again after the store failed to hand one out. */
const PUMP_RETRY_MS = 1_000;

export class LocalDispatch implements JobDispatch {
  #host: DispatchHost | undefined;
  #pumping = false;
  #pumpAgain = false;
  #closed = false;

  constructor(
    private readonly store: JobStore,
    private readonly log: Logger,
    /** Shown for a job a restart interrupted on its last attempt. */
    private readonly interruptedError: JobError,
    private readonly now: () => number,
  ) {}

  async start(host: DispatchHost): Promise<void> {
    this.#host = host;
    // The synchronous callers of this store's jobs waited in the stopped process: theirs are canceled.
    const recovery = await this.store.recover(MAX_ATTEMPTS, this.interruptedError, this.now());
    if (recovery.requeued.length + recovery.failed.length + recovery.canceled.length > 0)
      this.log.info('jobs taken over after a restart', {
        requeued: recovery.requeued.length,
        failed: recovery.failed.length,
        canceled: recovery.canceled.length,
      });
    await host.recovered([...recovery.failed, ...recovery.canceled]);
  }

  /** Never: the inputs are on this machine already, and wake() starts a job as soon as it is stored. */
  async startHere(): Promise<undefined> {
    return undefined;
  }

  /** Starts queued jobs while slots are free; one pump at a time, re-run when asked meanwhile. */
  wake(): void {
    const host = this.#host;
    if (host === undefined) return;
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    (async () => {
      do {
        this.#pumpAgain = false;
        while (!this.#closed && host.freeSlots() > 0) {
          const job = await this.store.claimNext(this.now());
          if (!job) break;
          // A rejection was logged and answered by the runner; the job stays for the next start.
          host
            .runJob(job, true)
            .catch(() => {})
            .finally(() => this.wake());
        }
      } while (this.#pumpAgain && !this.#closed);
    })()
      .catch((error: unknown) => {
        // The store cannot hand out jobs (a full disk, issue #11). Synchronous callers get the error
        // now rather than wait on a disk nobody frees; queued jobs are tried again in a moment.
        this.log.error('starting jobs failed', { error });
        host.cannotStart(error);
        setTimeout(() => this.wake(), PUMP_RETRY_MS).unref();
      })
      .finally(() => {
        this.#pumping = false;
      });
  }

  /** Nothing to pass on: a job of this process runs here or not at all. */
  async canceled(): Promise<void> {}

  /** Back to the queue, the attempt not counted: the next start runs it again. */
  interrupted(id: string): Promise<void> {
    return this.store.release(id);
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}
