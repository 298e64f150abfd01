// Long-lived, reused OCR workers (cold start 0.85-1.2 s against 0.2-0.5 s warm), one pool for
// every language set (a pool per set, never retired, took RSS from 587 MB to 4.24 GB).
//
// Each worker is made for a key (its language set) and serves jobs of that key; a job with the key ''
// takes any worker. The pool holds at most `size` workers in all: a job whose key has no idle worker
// gets a new one while there is room, else the least recently used idle worker is closed to make room.
// A worker is retired after `recycleAfter` jobs so memory does not creep; after `idleMs` without a job;
// after a failed job, unless the failure is known to leave it intact; and when a job overruns its time
// or is aborted (the worker is still busy with it: terminating is the only way to stop it). Jobs wait in
// order; one aborted while it waits never runs.

import { ocrWorkers } from '../../metrics.js';
import { ToolTimeoutError } from '../run-tool.js';
import type { EngineLog } from '../types.js';

export interface PoolWorker {
  terminate(): Promise<void>;
  /** False once the worker died on its own; it is then replaced instead of handed out. */
  readonly alive: boolean;
}

/** Runs one job on `worker`; `signal` aborts when the job overruns, the client leaves, or the pool closes. */
export type PoolTask<W, T> = (worker: W, signal: AbortSignal) => Promise<T>;

/** The key of jobs that any worker can serve. */
export const ANY_WORKER = '';

export interface WorkerPoolOptions<W> {
  /** Names the pool in logs and errors. */
  name: string;
  /** Workers alive or being created, all keys together. */
  size: number;
  recycleAfter: number;
  /** An idle worker is closed after this long. */
  idleMs: number;
  /** Each job's budget, counted from when it starts running (waiting is bounded by the client). */
  timeoutMs: number;
  create(key: string): Promise<W>;
  /** Failures that leave the worker intact (the input's fault); after any other, it is retired. */
  keepsWorker?(error: unknown): boolean;
  log: EngineLog;
}

interface Slot<W> {
  worker: W;
  key: string;
  jobs: number;
  idleTimer?: NodeJS.Timeout;
}

interface Waiter<W> {
  key: string;
  grant(slot: Slot<W>): void;
  fail(error: unknown): void;
}

export class PoolClosedError extends Error {
  override name = 'PoolClosedError';
}

export class WorkerPool<W extends PoolWorker> {
  readonly #o: WorkerPoolOptions<W>;
  /** Idle workers, least recently used first. */
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

  /** Workers alive or being created, whatever their key. */
  get workers(): number {
    return this.#count;
  }

  /** Jobs holding a worker (or one being created) or waiting. */
  get active(): number {
    return this.#count - this.#idle.length + this.#waiting.length;
  }

  async run<T>(key: string, task: PoolTask<W, T>, signal: AbortSignal): Promise<T> {
    const slot = await this.#acquire(key, signal);
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
        this.#o.log.info('OCR worker recycled', { pool: this.#o.name, key: slot.key, jobs: slot.jobs });
        this.#discard(slot);
      } else {
        this.#release(slot);
      }
      return result;
    } catch (error) {
      if (!controller.signal.aborted && this.#o.keepsWorker?.(error)) this.#release(slot);
      else this.#discard(slot);
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
    const slots = [...this.#live];
    this.#live.clear();
    this.#idle.length = 0;
    for (const slot of slots) clearTimeout(slot.idleTimer);
    await Promise.all(slots.map((slot) => this.#terminate(slot.worker)));
    ocrWorkers.set({ pool: this.#o.name }, 0);
  }

  #acquire(key: string, signal: AbortSignal): Promise<Slot<W>> {
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
        key,
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

  /** The most recently used idle worker that can serve `key`; dead ones met on the way are dropped. */
  #takeIdle(key: string): Slot<W> | undefined {
    for (let i = this.#idle.length - 1; i >= 0; i -= 1) {
      const slot = this.#idle[i];
      if (slot === undefined || (key !== ANY_WORKER && slot.key !== key)) continue;
      this.#idle.splice(i, 1);
      clearTimeout(slot.idleTimer);
      if (slot.worker.alive) return slot;
      this.#o.log.warn('OCR worker died while idle', { pool: this.#o.name, key: slot.key });
      this.#discard(slot);
    }
    return undefined;
  }

  /** Serves waiting jobs in order: an idle worker of their key, else a new one, making room if needed. */
  #dispatch(): void {
    while (this.#waiting.length > 0 && !this.#closed) {
      const [waiter] = this.#waiting;
      if (waiter === undefined) return;
      const idle = this.#takeIdle(waiter.key);
      if (idle !== undefined) {
        this.#waiting.shift();
        waiter.grant(idle);
        continue;
      }
      if (this.#count >= this.#o.size) {
        const oldest = this.#idle.shift();
        if (oldest === undefined) return;
        clearTimeout(oldest.idleTimer);
        this.#o.log.info('OCR worker closed for another language set (least recently used)', {
          pool: this.#o.name,
          closed: oldest.key,
          for: waiter.key,
        });
        // Its place is free once it has exited: the dispatch that follows starts the new one.
        this.#discard(oldest);
        return;
      }
      this.#waiting.shift();
      this.#start(waiter);
    }
  }

  #start(waiter: Waiter<W>): void {
    this.#recount(1);
    this.#o.create(waiter.key).then(
      (worker) => {
        const slot: Slot<W> = { worker, key: waiter.key, jobs: 0 };
        if (this.#closed) {
          this.#recount(-1);
          void this.#terminate(worker);
          waiter.fail(new PoolClosedError(`${this.#o.name} was closed`));
          return;
        }
        this.#live.add(slot);
        this.#o.log.info('OCR worker started', { pool: this.#o.name, key: slot.key, workers: this.#count });
        waiter.grant(slot);
      },
      (error: unknown) => {
        this.#recount(-1);
        waiter.fail(error);
        this.#dispatch();
      },
    );
  }

  #release(slot: Slot<W>): void {
    if (this.#closed || !this.#live.has(slot)) return;
    this.#idle.push(slot);
    slot.idleTimer = setTimeout(() => {
      const index = this.#idle.indexOf(slot);
      if (index === -1) return;
      this.#idle.splice(index, 1);
      this.#o.log.info('OCR worker retired after idling', { pool: this.#o.name, key: slot.key });
      this.#discard(slot);
    }, this.#o.idleMs);
    // An idle worker never keeps the process alive on its own.
    slot.idleTimer.unref();
    this.#dispatch();
  }

  /**
   * Terminates a worker no job holds. Its place is freed only once it has exited, so the workers alive
   * never exceed `size`, not even while one makes way for another; then waiting jobs are served.
   */
  #discard(slot: Slot<W>): void {
    if (!this.#live.delete(slot)) return;
    void this.#terminate(slot.worker).then(() => {
      this.#recount(-1);
      this.#dispatch();
    });
  }

  /** Counts a worker in or out, and tells the metrics (OCR workers alive, per pool). */
  #recount(change: 1 | -1): void {
    this.#count += change;
    // A closed pool's workers are all gone as far as the operator is concerned (close() said 0).
    if (!this.#closed) ocrWorkers.set({ pool: this.#o.name }, this.#count);
  }

  async #terminate(worker: W): Promise<void> {
    try {
      await worker.terminate();
    } catch (error) {
      this.#o.log.warn('OCR worker did not terminate cleanly', { pool: this.#o.name, error: String(error) });
    }
  }
}
