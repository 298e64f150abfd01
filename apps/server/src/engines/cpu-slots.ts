// Bounds how many heavy jobs (qpdf, Ghostscript, pdf-lib workers, OCR) run at once: issue #2 asks for
// "the number of concurrent jobs bounded by the CPU count, with the rest queued". Jobs start in the
// order they were submitted; one whose request is aborted while it waits never starts.

interface WaitingJob {
  start(): void;
}

export class JobQueue {
  readonly #concurrency: number;
  #running = 0;
  readonly #waiting: WaitingJob[] = [];

  constructor(concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`JobQueue concurrency must be a positive integer, got ${concurrency}`);
    }
    this.#concurrency = concurrency;
  }

  /**
   * Runs `job` as soon as a slot is free and settles with its outcome. When `signal` aborts before the
   * job starts, the job is dropped from the queue and the promise rejects with `signal.reason`; once
   * started, stopping the job is the job's own business (it gets the same signal).
   */
  run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const waiting: WaitingJob = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#running += 1;
          // Wrapping in an async function turns a job that throws synchronously into a rejection.
          (async () => job())()
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
