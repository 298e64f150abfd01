// What a process must let go of when it stops, in the reverse order it was opened (STYLE.md 19):
// every cleanup runs even when an earlier one fails, and running them twice does nothing the second
// time, so a signal arriving during a failed start cannot close a pool twice.
import type { Logger } from '../logger.js';

export type Cleanup = () => Promise<void> | void;

export class Cleanups {
  #pending: { name: string; cleanup: Cleanup }[] = [];
  #done: Promise<void> | undefined;

  constructor(private readonly log: Logger) {}

  /** Registers `cleanup`, to run before everything added earlier. */
  add(name: string, cleanup: Cleanup): void {
    this.#pending.push({ name, cleanup });
  }

  /** Runs every cleanup once, newest first; a failure is logged and the rest still run. */
  run(): Promise<void> {
    this.#done ??= (async () => {
      for (const { name, cleanup } of this.#pending.splice(0).reverse()) {
        try {
          await cleanup();
        } catch (error) {
          this.log.error('a cleanup failed while stopping', { cleanup: name, error });
        }
      }
    })();
    return this.#done;
  }
}
