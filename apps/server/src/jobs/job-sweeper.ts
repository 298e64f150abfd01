// Forgets jobs past their retention and removes stored inputs no job needs (openapi.yaml, "Jobs",
// Retention): in the one role that sweeps (role.ts), so workers stay on the work.
import type { Logger } from '../logger.js';
import type { InputStore } from '../storage/index.js';
import type { JobStore } from './job-store.js';
import { RECORD_RETENTION_MS } from './retention.js';

/** How often forgotten jobs are looked for. */
const FORGET_INTERVAL_MS = 60_000;
/** Inputs stored this recently are never pruned: their job may not be stored yet. */
const INPUTS_PRUNE_MARGIN_MS = 60 * 60_000;

export interface JobSweeperDeps {
  store: JobStore;
  inputs: InputStore;
  log: Logger;
  now?: () => number;
}

/**
 * Prunes, once, the inputs a crash left between storing them and their job, or between a job's end and
 * their removal (after the queue's own recovery at start), then forgets old jobs every minute; returns
 * how to stop.
 */
export async function startJobSweeper(deps: JobSweeperDeps): Promise<() => void> {
  const { store, inputs, log, now = Date.now } = deps;
  await inputs.prune(new Set(await store.unfinishedIds()), now() - INPUTS_PRUNE_MARGIN_MS);
  const timer = setInterval(() => {
    store
      .forget(now() - RECORD_RETENTION_MS)
      .catch((error: unknown) => log.warn('forgetting old jobs failed', { error }));
  }, FORGET_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
