// Bounds how many heavy tasks (qpdf, Ghostscript, pdf-lib workers, OCR) run at once: issue #2 asks for
// "the number of concurrent jobs bounded by the CPU count, with the rest queued". Tasks start in the
// order they were submitted; one whose request is aborted while it waits never starts.

interface WaitingTask {
  start(): void;
}

export class CpuSlots {
  readonly #concurrency: number;
  #running = 0;
  readonly #waiting: WaitingTask[] = [];

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
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const waiting: WaitingTask = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#running += 1;
          // Wrapping in an async function turns a task that throws synchronously into a rejection.
          (async () => task())()
            .then(resolve, reject)
            .finally(() => {
              this.#running -= 1;
              this.#startNext();
            });
        },
      };
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiting);
        if (index !== -1) this.#waiting.splice(index, 1);
        reject(signal?.reason);
      };
      if (this.#running < this.#concurrency) {
        waiting.start();
      } else {
        signal?.addEventListener('abort', onAbort, { once: true });
        this.#waiting.push(waiting);
      }
    });
  }

  #startNext(): void {
    if (this.#running >= this.#concurrency) return;
    this.#waiting.shift()?.start();
  }
}
