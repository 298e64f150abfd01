// One task run again while more runs are asked for during it, one run at a time: a wake-up that comes
// while a run is on is never lost (the run is repeated), and many at once cost one more run, not many.
// The job queue's pump, the feeder of BullMQ and the webhook deliverer all wake this way.
export class CoalescedRuns {
  readonly #task: () => Promise<void>;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(task: () => Promise<void>) {
    this.#task = task;
  }

  /** Starts a run, or asks the one on for another; settles once the runs asked for so far are over. */
  request(): Promise<void> {
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      // Cleared in the same turn as the last look at #again: a request in between is never lost.
      try {
        do {
          this.#again = false;
          await this.#task();
        } while (this.#again);
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  /** Settles once no run is on (a failed one included); starts none. */
  async idle(): Promise<void> {
    await this.#running?.catch(() => {});
  }
}
