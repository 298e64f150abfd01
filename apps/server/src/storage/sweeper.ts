// Deletes expired outputs on an interval (issue #2). The timer is unref'd so it never keeps a process
// alive, and a failing sweep is logged and retried next time rather than crashing the server.
import type { Logger } from '../logger.js';
import type { OutputStore } from './output-store.js';

export function startSweeper(
  store: OutputStore,
  options: { intervalMs: number; log: Logger; now?: () => number },
): () => void {
  const now = options.now ?? Date.now;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    store
      .sweep(now())
      .then((removed) => {
        if (removed > 0) options.log.debug('swept expired outputs', { removed });
      })
      .catch((error: unknown) => options.log.warn('sweeping outputs failed', { error }))
      .finally(() => {
        running = false;
      });
  }, options.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
