// The tools of one job that could run side by side (issue #16). A compress reads its input for the
// content check while Ghostscript rewrites it, and reads each candidate four ways at once; run freely,
// that kept 1.1 cores busy in a worker set to one job at a time, and a second worker on the second core
// gained that much less. So a job's tools take turns in the slot the job holds (its own lane), its main
// line of work before its side work, and run beside it only in a slot no other job is waiting for
// (CpuSlots.whenSpare): one request on an idle server still gets every core.
import type { CpuSlots } from './cpu-slots.js';

interface Turn {
  start(): void;
}

export class JobLanes {
  readonly #slots: CpuSlots;
  readonly #signal: AbortSignal;
  #ownLaneBusy = false;
  readonly #mainWaiting: Turn[] = [];
  readonly #sideWaiting: Turn[] = [];

  /** For a job that holds one of `slots`; `signal` is the job's, and drops the turns still waiting. */
  constructor(slots: CpuSlots, signal: AbortSignal) {
    this.#slots = slots;
    this.#signal = signal;
  }

  /** The job's main line of work (a rewrite the answer waits on): first to the job's own lane. */
  main<T>(task: () => Promise<T>): Promise<T> {
    return this.#run(task, this.#mainWaiting);
  }

  /** Work beside the main line (checks of what it made): in the own lane after the main line's turns. */
  beside<T>(task: () => Promise<T>): Promise<T> {
    return this.#run(task, this.#sideWaiting);
  }

  /** Runs `task` in the own lane or a spare slot, whichever is first free. */
  #run<T>(task: () => Promise<T>, queue: Turn[]): Promise<T> {
    if (this.#signal.aborted) return Promise.reject(this.#signal.reason);
    // Wrapping in an async function turns a task that throws synchronously into a rejection.
    const settle = () => (async () => task())();
    if (!this.#ownLaneBusy) return this.#inOwnLane(settle);
    return new Promise<T>((resolve, reject) => {
      // Stops the wait for a spare slot once the own lane took the task (or the job was aborted).
      const spareWait = new AbortController();
      const turn: Turn = {
        start: () => {
          spareWait.abort();
          this.#inOwnLane(settle).then(resolve, reject);
        },
      };
      queue.push(turn);
      const leaveQueue = () => {
        const index = queue.indexOf(turn);
        if (index !== -1) queue.splice(index, 1);
      };
      this.#slots
        .whenSpare(
          () => {
            leaveQueue();
            return settle();
          },
          AbortSignal.any([spareWait.signal, this.#signal]),
        )
        .then(resolve, (error: unknown) => {
          // The own lane took the task: its outcome settles the promise.
          if (spareWait.signal.aborted) return;
          leaveQueue();
          reject(error);
        });
    });
  }

  #inOwnLane<T>(settle: () => Promise<T>): Promise<T> {
    this.#ownLaneBusy = true;
    return settle().finally(() => {
      this.#ownLaneBusy = false;
      (this.#mainWaiting.shift() ?? this.#sideWaiting.shift())?.start();
    });
  }
}
