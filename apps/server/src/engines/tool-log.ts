// The log of the job a tool runs for, found without threading a logger through every engine: the job
// runner binds it around an operation, and runTool writes each tool's exit, time and stderr to it at
// debug level (issue #18), so tools' diagnostics reach the operator with the request id and are never
// printed raw.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '../logger.js';

const current = new AsyncLocalStorage<Logger>();

/** Runs `work` with `log` as the log of every tool it runs. */
export function withToolLog<T>(log: Logger, work: () => Promise<T>): Promise<T> {
  return current.run(log, work);
}

/** The log bound by the job running now; none outside a job (start-up probes). */
export function toolLog(): Logger | undefined {
  return current.getStore();
}
