// The jobs of one process, put together for its role (role.ts; STYLE.md 19): a worker's runs where the
// role runs jobs, the queue its backends chose (the embedded one, or BullMQ), the waiters and views
// over them, and the sweeper where the role sweeps. Started in that order; close() stops them in the
// reverse one.
import type { Logger } from '../logger.js';
import type { Operations } from '../operations/index.js';
import type { RoleParts } from '../role.js';
import type { Downloads, InputStore, WorkDirs } from '../storage/index.js';
import type { Jobs } from './index.js';
import { LocalJobEvents } from './job-events.js';
import type { JobQueue } from './job-queue.js';
import { JobRuns } from './job-runs.js';
import type { JobStore } from './job-store.js';
import { startJobSweeper } from './job-sweeper.js';
import { JobViews } from './job-view.js';
import { JobWaiters } from './job-waiters.js';
import { operationProcessor } from './operation-processor.js';

/** What a queue implementation is made of in this process (backends/ chooses which). */
export interface QueueParts {
  store: JobStore;
  inputs: InputStore;
  /** This process's worker; absent where its role runs no jobs. */
  runs: JobRuns | undefined;
  events: LocalJobEvents;
  parts: RoleParts;
  slots: number;
  log: Logger;
  now: () => number;
}

export interface OpenJobsDeps {
  store: JobStore;
  inputs: InputStore;
  workDirs: WorkDirs;
  downloads: Downloads;
  operations: Operations;
  parts: RoleParts;
  /** Jobs run at once here (PDN_JOB_CONCURRENCY). */
  slots: number;
  log: Logger;
  openQueue(parts: QueueParts): JobQueue;
  now?: () => number;
}

export interface OpenedJobs {
  jobs: Jobs;
  /** Stops taking jobs; running ones get `graceMs` to finish before they are interrupted. */
  close(graceMs: number): Promise<void>;
}

export async function openJobs(deps: OpenJobsDeps): Promise<OpenedJobs> {
  const { store, inputs, parts, slots, log, now = Date.now } = deps;
  const events = new LocalJobEvents();
  const runs = parts.runner
    ? new JobRuns({
        store,
        inputs,
        process: operationProcessor({ ...deps, now }),
        events,
        slots,
        capacity: () => queue.capacity(),
        log,
        now,
      })
    : undefined;
  const queue = deps.openQueue({ store, inputs, runs, events, parts, slots, log, now });
  const waiters = new JobWaiters(store, events);
  const views = new JobViews(deps.operations, deps.downloads, (id) => runs?.progressOf(id), now);
  await queue.start();
  const stopSweeper = parts.sweeper ? await startJobSweeper({ store, inputs, log, now }) : () => {};
  return {
    jobs: { store, queue, waiters, views },
    close: async (graceMs) => {
      stopSweeper();
      await queue.close(graceMs);
      waiters.close();
    },
  };
}
