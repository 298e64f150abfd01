// Bounds how many heavy tasks (qpdf, Ghostscript, pdf-lib workers, OCR) run at once: the
// number of concurrent jobs is bounded by the CPU count and the rest are queued. Tasks start in the
// order they were submitted; one whose request is aborted while it waits never starts. Work that can
// wait (a job's side work, job-lanes.ts) asks for a spare slot: it starts only when no task is waiting.
// A queued task is started by whichever task frees a slot, so it is bound to the async context of the
// job that queued it: its log lines and tool report are that job's.
import { AsyncResource } from 'node:async_hooks';

interface WaitingTask {
  start(): void;
}

export class CpuSlots {
  readonly #concurrency: number;
  #running = 0;
  readonly #waiting: WaitingTask[] = [];
  readonly #waitingForSpare: WaitingTask[] = [];

  constructor(concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`CpuSlots count must be a positive integer, got ${concurrency}`);
    }
    this.#concurrency = concurrency;
  }

  /**
   * Runs `task` as soon as a slot is free and settles with its outcome. When `signal` aborts before the
   * task starts, the task is dropped from the queue and the promise rejects with `signal.reason`; once
   * started, stopping the task is the task's own business (it gets the same signal).
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.#enqueue(this.#waiting, task, signal);
  }

  /**
   * As `run`, for work that takes no turn from anyone: it starts when a slot is free and no task of
   * `run` is waiting for one.
   */
  whenSpare<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.#enqueue(this.#waitingForSpare, task, signal);
  }

  /** Whether a task started now would run at once and take no one's turn: a slot free, no task waiting. */
  get spare(): boolean {
    return (
      this.#running < this.#concurrency && this.#waiting.length === 0 && this.#waitingForSpare.length === 0
    );
  }

  #enqueue<T>(queue: WaitingTask[], task: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const inCallersContext = AsyncResource.bind(task);
    return new Promise<T>((resolve, reject) => {
      const waiting: WaitingTask = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#running += 1;
          // Wrapping in an async function turns a task that throws synchronously into a rejection.
          (async () => inCallersContext())()
            .then(resolve, reject)
            .finally(() => {
              this.#running -= 1;
              this.#startNext();
            });
        },
      };
      const onAbort = () => {
        const index = queue.indexOf(waiting);
        if (index !== -1) queue.splice(index, 1);
        reject(signal?.reason);
      };
      if (this.#running < this.#concurrency && this.#waiting.length === 0) {
        waiting.start();
      } else {
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiting);
      }
    });
  }

  #startNext(): void {
    if (this.#running >= this.#concurrency) return;
    (this.#waiting.shift() ?? this.#waitingForSpare.shift())?.start();
  }
}
