// How long a new synchronous call would wait for a slot (openapi.yaml, "Admission order and
// back-pressure"), from the queue as it stands: the jobs that the fair order would start before it,
// the jobs running, the slots of the deployment and how long recent jobs of each kind ran. The fair
// order (jobs/fair-share.ts) gives each user starts in proportion to its plan's weight, so a user with
// `n` jobs queued ahead of its new one waits for those, and for about `(n + 1) × w / own weight` jobs of
// every other user of weight `w`. An estimate: it leaves out the bound on Free users' half of the
// slots, and what bounds a call's wait for certain is the deadline it is given (jobs/sync-call.ts).
import type { Plan } from '../accounts/plans.js';
import { PLAN_WEIGHTS } from '../jobs/fair-share.js';
import type { JobOperation, JobStore, RecentDuration, UnfinishedJobs } from '../jobs/job-store.js';

/** How far back the durations of ended jobs are averaged: recent enough to follow the load. */
const DURATIONS_OVER_MS = 5 * 60_000;
/**
 * How often they are read again: often enough that a server just started, or a crowd that just came,
 * is judged by its real jobs within a second (one aggregate query a second per process).
 */
const DURATIONS_EVERY_MS = 1_000;
/**
 * A typical job of each kind here, for a server that has run few of them lately: a small merge or
 * split takes some 50 ms, a compression or a page of OCR up to a second, OCR of a document seconds a
 * page. Too high, and a fresh server refuses a crowd it would have served in time; too low, and calls
 * wait to their deadline instead, which bounds them anyway.
 */
const TYPICAL_MS: Readonly<Record<JobOperation, number>> = {
  merge: 100,
  split: 100,
  compress: 1_000,
  ocr: 1_000,
  ocr_pdf: 10_000,
  images_to_pdf: 1_000,
  pdf_to_images: 1_000,
  html_to_pdf: 1_000,
  office_to_pdf: 1_000,
};
/**
 * The typical figure counts as this many jobs beside the measured ones: the first few jobs of a server
 * are slow (its first tool runs, a crowd's uploads arriving at once: 364 ms for small merges that
 * then took 55 ms), and their mean alone refused 161 of 300 small merges whose real wait was 2.4 s.
 */
const TYPICAL_WEIGHT = 10;

/** The mean duration of a kind of job: the measured mean, drawn toward the typical one while few ran. */
export function meanDurationMs(typicalMs: number, measured: RecentDuration | undefined): number {
  if (measured === undefined) return typicalMs;
  return (measured.meanMs * measured.count + typicalMs * TYPICAL_WEIGHT) / (measured.count + TYPICAL_WEIGHT);
}

export interface QueueState {
  unfinished: readonly UnfinishedJobs[];
  /** Calls admitted in this process whose jobs are not stored yet, per user, of the same kind as the new one. */
  uploading: ReadonlyMap<number, number>;
  /** Jobs the deployment runs at once. */
  slots: number;
  meanMs: (operation: JobOperation) => number;
}

/** Milliseconds a new job of `operation` for `caller` would wait to start; Infinity with no slot at all. */
export function expectedWaitMs(
  state: QueueState,
  caller: { userId: number; plan: Plan },
  operation: JobOperation,
): number {
  if (state.slots <= 0) return Number.POSITIVE_INFINITY;
  const { userId } = caller;
  // A user known here only by calls still uploading is taken for one of the caller's weight.
  const weights = new Map<number, number>();
  const queued = new Map<number, { count: number; ms: number }>();
  const add = (user: number, count: number, ms: number) => {
    const sum = queued.get(user) ?? { count: 0, ms: 0 };
    queued.set(user, { count: sum.count + count, ms: sum.ms + ms });
  };
  let running = 0;
  let runningMs = 0;
  for (const row of state.unfinished) {
    weights.set(row.userId, PLAN_WEIGHTS[row.plan]);
    const ms = row.count * state.meanMs(row.operation);
    if (row.status === 'running') {
      running += row.count;
      // A running job is, on average, half way through.
      runningMs += ms / 2;
    } else add(row.userId, row.count, ms);
  }
  for (const [user, count] of state.uploading) add(user, count, count * state.meanMs(operation));
  const own = queued.get(userId) ?? { count: 0, ms: 0 };
  const ownWeight = PLAN_WEIGHTS[caller.plan];
  let ahead = own.count;
  let aheadMs = own.ms;
  for (const [user, { count, ms }] of queued) {
    if (user === userId) continue;
    const share = (weights.get(user) ?? ownWeight) / ownWeight;
    const taken = Math.min(count, Math.ceil((own.count + 1) * share));
    ahead += taken;
    aheadMs += (ms / count) * taken;
  }
  if (running + ahead < state.slots) return 0;
  return (runningMs + aheadMs) / state.slots;
}

export interface QueueWaitDeps {
  store: Pick<JobStore, 'unfinishedCounts' | 'recentDurations'>;
  /** Jobs the deployment runs at once: this process's slots, or its workers'. */
  capacity(): Promise<number>;
  now?: () => number;
}

export class QueueWait {
  readonly #deps: QueueWaitDeps;
  readonly #now: () => number;
  #durations = new Map<JobOperation, RecentDuration>();
  #durationsAt = Number.NEGATIVE_INFINITY;

  constructor(deps: QueueWaitDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  async expectedMs(
    caller: { userId: number; plan: Plan },
    operation: JobOperation,
    uploading: ReadonlyMap<number, number>,
  ): Promise<number> {
    const [unfinished, slots] = await Promise.all([
      this.#deps.store.unfinishedCounts(),
      this.#deps.capacity(),
    ]);
    const meanMs = (kind: JobOperation) => meanDurationMs(TYPICAL_MS[kind], this.#durations.get(kind));
    const waitMs = () => expectedWaitMs({ unfinished, uploading, slots, meanMs }, caller, operation);
    // Whether a call waits at all follows from the counts alone: the durations, a query of their own,
    // are read again only for a call that would wait, so a server with room spends nothing on them.
    const wait = waitMs();
    if (wait === 0 || !(await this.#readDurations())) return wait;
    return waitMs();
  }

  /** Reads the durations again if the last read is old enough; says whether it did. */
  async #readDurations(): Promise<boolean> {
    const now = this.#now();
    if (now - this.#durationsAt < DURATIONS_EVERY_MS) return false;
    this.#durationsAt = now;
    const recent: RecentDuration[] = await this.#deps.store.recentDurations(now - DURATIONS_OVER_MS);
    this.#durations = new Map(recent.map((row) => [row.operation, row]));
    return true;
  }
}
