// The tools of one job that could run side by side. A compress reads its input for the
// content check while Ghostscript rewrites it, and reads each candidate four ways at once; run freely,
// that kept 1.1 cores busy in a worker set to one job at a time, and a second worker on the second core
// gained that much less. So a job's tools take turns in the slot the job holds (its own lane), its main
// line of work before its side work, and run beside it only in a slot no other job is waiting for
// (CpuSlots.whenSpare): one request on an idle server still gets every core.
import { CpuSlots } from './cpu-slots.js';

export class JobLanes {
  readonly #slots: CpuSlots;
  /** The slot the job holds, as a queue of one: `run` for the main line, `whenSpare` for side work. */
  readonly #ownLane = new CpuSlots(1);
  readonly #signal: AbortSignal;

  /** For a job that holds one of `slots`; `signal` is the job's, and drops the turns still waiting. */
  constructor(slots: CpuSlots, signal: AbortSignal) {
    this.#slots = slots;
    this.#signal = signal;
  }

  /**
   * Whether one of the server's slots is free now, no task waiting for it: work that may turn out not to
   * be needed costs no one a turn if started now, only an idle core's time.
   */
  get slotSpare(): boolean {
    return this.#slots.spare;
  }

  /** The job's main line of work (a rewrite the answer waits on): first to the job's own lane. */
  main<T>(task: () => Promise<T>): Promise<T> {
    return this.#run(task, (turn, signal) => this.#ownLane.run(turn, signal));
  }

  /** Work beside the main line (checks of what it made): in the own lane after the main line's turns. */
  beside<T>(task: () => Promise<T>): Promise<T> {
    return this.#run(task, (turn, signal) => this.#ownLane.whenSpare(turn, signal));
  }

  /**
   * Runs `task` in the own lane (queued by `inOwnLane`) or a spare slot, whichever is first free; the
   * one that starts it withdraws the other's wait.
   */
  #run<T>(
    task: () => Promise<T>,
    inOwnLane: (turn: () => Promise<T>, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const ownWait = new AbortController();
    const spareWait = new AbortController();
    const startedBy = (other: AbortController) => () => {
      other.abort();
      return task();
    };
    return new Promise<T>((resolve, reject) => {
      // A wait withdrawn because the other path started the task settles nothing.
      const outcome = (withdrawn: AbortSignal) => (error: unknown) => {
        if (!withdrawn.aborted) reject(error);
      };
      inOwnLane(startedBy(spareWait), AbortSignal.any([ownWait.signal, this.#signal])).then(
        resolve,
        outcome(ownWait.signal),
      );
      this.#slots
        .whenSpare(startedBy(ownWait), AbortSignal.any([spareWait.signal, this.#signal]))
        .then(resolve, outcome(spareWait.signal));
    });
  }
}
