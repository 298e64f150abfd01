// Deletes expired outputs on an interval. The timer is unref'd so it never keeps a process
// alive, and a failing sweep is logged and retried next time rather than crashing the server. Where
// several processes share one store, a SweepLock lets one of them sweep at a time.
import type { Logger } from '../logger.js';
import type { OutputStore } from './output-store.js';

/** Runs work only while no other process sweeps the same store; undefined when another one does. */
export interface SweepLock {
  whileHeld<T>(work: () => Promise<T>): Promise<T | undefined>;
}

/** A store only this process uses (the outputs folder) needs no lock. */
export const PROCESS_LOCAL: SweepLock = { whileHeld: (work) => work() };

export function startSweeper(
  store: OutputStore,
  options: { intervalMs: number; log: Logger; lock?: SweepLock; now?: () => number },
): () => void {
  const now = options.now ?? Date.now;
  const lock = options.lock ?? PROCESS_LOCAL;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    lock
      .whileHeld(() => store.sweep(now()))
      .then((removed) => {
        if (removed !== undefined && removed > 0) options.log.debug('swept expired outputs', { removed });
      })
      .catch((error: unknown) => options.log.warn('sweeping outputs failed', { error }))
      .finally(() => {
        running = false;
      });
  }, options.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
