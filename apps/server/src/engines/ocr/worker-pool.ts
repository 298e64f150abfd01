// Long-lived, reused OCR workers (issue #3: cold start 0.85-1.2 s against 0.2-0.5 s warm). A pool holds
// at most `size` workers and creates them only when a job needs one. It retires a worker after
// `recycleAfter` jobs so memory does not creep; after a failed job, unless the failure is known to
// leave the worker intact; and when a job overruns its time or is aborted (the worker is still busy
// with it: terminating is the only way to stop it). Jobs wait in order; one aborted while it waits
// never runs.

import { ToolTimeoutError } from '../run-tool.js';
import type { EngineLog } from '../types.js';

export interface PoolWorker {
  terminate(): Promise<void>;
}

/** Runs one job on `worker`; `signal` aborts when the job overruns, the client leaves, or the pool closes. */
export type PoolTask<W, T> = (worker: W, signal: AbortSignal) => Promise<T>;

export interface WorkerPoolOptions<W> {
  /** Names the pool in logs and errors, e.g. `"tesseract.js eng+deu"`. */
  name: string;
  size: number;
  recycleAfter: number;
  /** Each job's budget, counted from when it starts running (waiting is bounded by the client). */
  timeoutMs: number;
  create(): Promise<W>;
  /** Failures that leave the worker intact (the input's fault); after any other, it is retired. */
  keepsWorker?(error: unknown): boolean;
  log: EngineLog;
}

interface Slot<W> {
  worker: W;
  jobs: number;
}

interface Waiter<W> {
  grant(slot: Slot<W>): void;
  fail(error: unknown): void;
}

export class PoolClosedError extends Error {
  override name = 'PoolClosedError';
}

export class WorkerPool<W extends PoolWorker> {
  readonly #o: WorkerPoolOptions<W>;
  readonly #idle: Slot<W>[] = [];
  readonly #waiting: Waiter<W>[] = [];
  readonly #running = new Set<AbortController>();
  readonly #live = new Set<Slot<W>>();
  /** Workers alive or being created: never above `size`. */
  #count = 0;
  #closed = false;

  constructor(options: WorkerPoolOptions<W>) {
    if (!Number.isInteger(options.size) || options.size < 1) {
      throw new RangeError(`${options.name}: pool size must be a positive integer, got ${options.size}`);
    }
    this.#o = options;
  }

  /** Jobs holding a worker (or one being created) or waiting: a pool with none may be closed. */
  get active(): number {
    return this.#count - this.#idle.length + this.#waiting.length;
  }

  async run<T>(task: PoolTask<W, T>, signal: AbortSignal): Promise<T> {
    const slot = await this.#acquire(signal);
    if (signal.aborted) {
      this.#release(slot);
      throw signal.reason;
    }
    const controller = new AbortController();
    const stop = (reason: unknown) => controller.abort(reason);
    const onAbort = () => stop(signal.reason);
    const timer = setTimeout(
      () => stop(new ToolTimeoutError(this.#o.name, this.#o.timeoutMs)),
      this.#o.timeoutMs,
    );
    signal.addEventListener('abort', onAbort, { once: true });
    this.#running.add(controller);
    const stopped = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    try {
      const result = await Promise.race([task(slot.worker, controller.signal), stopped]);
      slot.jobs += 1;
      if (slot.jobs >= this.#o.recycleAfter) {
        this.#o.log.info('OCR worker recycled', { pool: this.#o.name, jobs: slot.jobs });
        this.#retire(slot);
      } else {
        this.#release(slot);
      }
      return result;
    } catch (error) {
      if (!controller.signal.aborted && this.#o.keepsWorker?.(error)) this.#release(slot);
      else this.#retire(slot);
      throw error;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      this.#running.delete(controller);
    }
  }

  /** Stops every job and terminates every worker (server shutdown, tests). */
  async close(): Promise<void> {
    this.#closed = true;
    const closed = new PoolClosedError(`${this.#o.name} was closed`);
    for (const waiter of this.#waiting.splice(0)) waiter.fail(closed);
    for (const controller of this.#running) controller.abort(closed);
    const workers = [...this.#live].map((slot) => slot.worker);
    this.#live.clear();
    this.#idle.length = 0;
    await Promise.all(workers.map((worker) => this.#terminate(worker)));
  }

  #acquire(signal: AbortSignal): Promise<Slot<W>> {
    if (this.#closed) return Promise.reject(new PoolClosedError(`${this.#o.name} was closed`));
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      // Only a job still in the queue is dropped here; one whose worker is being created gets it and
      // hands it straight back (see run), so the worker is not lost.
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiter);
        if (index === -1) return;
        this.#waiting.splice(index, 1);
        reject(signal.reason);
      };
      const waiter: Waiter<W> = {
        grant: (slot) => {
          signal.removeEventListener('abort', onAbort);
          resolve(slot);
        },
        fail: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#dispatch();
    });
  }

  /** Hands idle workers, or new ones while under `size`, to waiting jobs in order. */
  #dispatch(): void {
    while (this.#waiting.length > 0) {
      const idle = this.#idle.pop();
      if (idle !== undefined) {
        this.#waiting.shift()?.grant(idle);
        continue;
      }
      if (this.#count >= this.#o.size) return;
      const waiter = this.#waiting.shift();
      if (waiter === undefined) return;
      this.#count += 1;
      this.#o.create().then(
        (worker) => {
          const slot = { worker, jobs: 0 };
          if (this.#closed) {
            this.#count -= 1;
            void this.#terminate(worker);
            waiter.fail(new PoolClosedError(`${this.#o.name} was closed`));
            return;
          }
          this.#live.add(slot);
          this.#o.log.info('OCR worker started', { pool: this.#o.name, workers: this.#count });
          waiter.grant(slot);
        },
        (error: unknown) => {
          this.#count -= 1;
          waiter.fail(error);
          this.#dispatch();
        },
      );
    }
  }

  #release(slot: Slot<W>): void {
    if (this.#closed) return;
    this.#idle.push(slot);
    this.#dispatch();
  }

  #retire(slot: Slot<W>): void {
    if (!this.#live.delete(slot)) return;
    this.#count -= 1;
    void this.#terminate(slot.worker);
    this.#dispatch();
  }

  async #terminate(worker: W): Promise<void> {
    try {
      await worker.terminate();
    } catch (error) {
      this.#o.log.warn('OCR worker did not terminate cleanly', { pool: this.#o.name, error: String(error) });
    }
  }
}
