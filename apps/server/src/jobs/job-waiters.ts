// Everyone in this process who waits for a job to end: a synchronous call, a long poll (`Prefer:
// wait`), a repeated Idempotency-Key. A waiter subscribes to the job's end, then looks at the store, so
// no end is missed between the two (BullMQ's Job.waitUntilFinished does the same); a synchronous call
// subscribes before its job is stored, when no end can have come yet, and skips that look. Events can
// be lost where they cross processes (a Redis restart, a worker whose news never left), so while anyone
// waits, and only then, the store is looked at every POLL_MS for all of them in one read.
import type { JobEnd, JobEvents } from './job-queue.js';
import type { JobRecord, JobStore } from './job-store.js';

/** How often the store backs the events up while anyone waits. */
export const POLL_MS = 2_000;

/** A job's end as a waiter gets it: the record (undefined once forgotten), or what stopped it here. */
export interface EndedJob {
  record: JobRecord | undefined;
  /** As JobEnd's: the operation's own error, or the store failing under it in this process. */
  error?: unknown;
}

type Waiter = (ended: EndedJob | undefined) => void;

export class JobWaiters {
  readonly #store: JobStore;
  readonly #pollMs: number;
  readonly #waiting = new Map<string, Set<Waiter>>();
  /** Jobs waited on since before they were stored: no record of one yet does not mean it is gone. */
  readonly #unstored = new Set<string>();
  readonly #unsubscribe: () => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(store: JobStore, events: JobEvents, pollMs = POLL_MS) {
    this.#store = store;
    this.#pollMs = pollMs;
    this.#unsubscribe = events.onEnded((end) => this.#heard(end));
  }

  /**
   * Job `id`'s end; undefined when `timeoutMs` passes or `signal` aborts first. Never rejects: a store
   * that cannot be read now is read again at the next poll. `stored: false`: the job is about to be
   * stored, by the caller, who aborts `signal` if that fails.
   */
  ended(
    id: string,
    options: { timeoutMs?: number; signal?: AbortSignal; stored?: boolean } = {},
  ): Promise<EndedJob | undefined> {
    const { timeoutMs, signal, stored = true } = options;
    if (signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiters = this.#waiting.get(id) ?? new Set<Waiter>();
      this.#waiting.set(id, waiters);
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => finish(undefined), timeoutMs);
      const onAbort = () => finish(undefined);
      const finish: (ended: EndedJob | undefined) => void = (ended) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        waiters.delete(finish);
        if (waiters.size === 0 && this.#waiting.get(id) === waiters) {
          this.#waiting.delete(id);
          this.#unstored.delete(id);
        }
        if (this.#waiting.size === 0) this.#stopPolling();
        resolve(ended);
      };
      waiters.add(finish);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#startPolling();
      if (!stored) {
        this.#unstored.add(id);
        return;
      }
      // Looked at once subscribed: an end recorded before the subscription is found here.
      this.#look(id);
    });
  }

  /** Answers no one any more (the process stops); those still waiting get undefined. */
  close(): void {
    this.#unsubscribe();
    for (const waiters of [...this.#waiting.values()]) for (const finish of [...waiters]) finish(undefined);
    this.#stopPolling();
  }

  #heard(end: JobEnd): void {
    if (!this.#waiting.has(end.id)) return;
    const record = end.record ?? end.told;
    if (record !== undefined || end.error !== undefined) {
      this.#settle(end.id, { record, error: end.error });
      return;
    }
    // Heard from another process: the store has the end.
    this.#look(end.id);
  }

  #look(id: string): void {
    this.#store.get(id).then(
      (record) => this.#settleIfEnded(id, record),
      () => {},
    );
  }

  /** Settles `id`'s waiters when `record` is ended, or missing from a store that had the job. */
  #settleIfEnded(id: string, record: JobRecord | undefined): void {
    if (record === undefined ? !this.#unstored.has(id) : record.finishedAt !== null)
      this.#settle(id, { record });
  }

  #settle(id: string, ended: EndedJob): void {
    for (const finish of [...(this.#waiting.get(id) ?? [])]) finish(ended);
  }

  #startPolling(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.#poll(), this.#pollMs);
    this.#timer.unref();
  }

  #stopPolling(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #poll(): Promise<void> {
    const ids = [...this.#waiting.keys()];
    if (ids.length === 0) return;
    const records = await this.#store.getMany(ids).catch(() => undefined);
    if (records === undefined) return;
    const kept = new Map(records.map((record) => [record.id, record]));
    for (const id of ids) this.#settleIfEnded(id, kept.get(id));
  }
}
