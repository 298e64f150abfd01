// A worker process's side of the BullMQ queue: one BullMQ worker of concurrency 1 per slot, each
// running its jobs through this process's JobRuns. One worker of concurrency `slots` would cost Redis
// more per job: it asks for the next job as it takes one and as it ends one, an empty ask of some ten
// commands each time while the queue keeps up; workers of concurrency 1 ask only when a job's end
// leaves them free, and a job added wakes one of them. Only the first looks for stalled jobs. An idle
// worker's blocking read for its next job times out every IDLE_WAIT_S, then asks once: a job added
// wakes it at once whatever the timeout, so the longest BullMQ allows keeps idle workers quiet.
//
// A job taken soon after its feed runs as the feeder claimed it: a cancel since then was heard here
// and stops it as it starts. Any other start reads the store first, and skips a job canceled (or
// forgotten) while it waited in BullMQ. A worker killed mid-job stops renewing its lock:
// BullMQ's stalled-job check gives the job to another worker, once (maxStalledCount); a failure the job
// recorded is never run again (UnrecoverableError: input errors are not retried); an attempt that threw
// (the store failed under it, or its worker stopped) is run once more (attempts). BullMQ counts stalls
// and throws apart, so a job killed once and thrown once would start a third time: maxStartedAttempts
// fails it instead, so a job starts at most MAX_ATTEMPTS times however its attempts were lost.
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../../logger.js';
import type { InputStore } from '../../storage/index.js';
import { EARLY_STOP_MS, type JobRuns } from '../job-runs.js';
import type { JobRecord, JobStore } from '../job-store.js';
import { MAX_ATTEMPTS } from '../retention.js';
import type { FedJob } from './feeder.js';

export interface BullmqWorkerDeps {
  connection: Redis;
  /** BullMQ's key prefix and queue name (bullmq-job-queue.ts). */
  prefix: string;
  queueName: string;
  store: JobStore;
  inputs: InputStore;
  runs: JobRuns;
  slots: number;
  /**
   * A running job's lock, renewed by its worker every half of it. BullMQ looks for expired locks every
   * two thirds of it, so a killed worker's job is handed to another within about 1.7 times it.
   */
  lockMs: number;
  log: Logger;
  /** Told of the worker's failures: Redis away, said once per outage however often BullMQ retries. */
  failed: (error: unknown) => void;
  now: () => number;
}

/**
 * The largest record a completion carries (its JSON): BullMQ keeps what a job returns in its event
 * stream, 10,000 events long, so an OCR's text goes by the store instead.
 */
const TOLD_RECORD_MAX_CHARS = 8 * 1024;

/**
 * An ended job's record for BullMQ's completion, which every API process hears: their waiters are
 * answered without reading the store. Undefined when too large: they read it there.
 */
function toldRecord(record: JobRecord | undefined): JobRecord | undefined {
  if (record === undefined || JSON.stringify(record).length > TOLD_RECORD_MAX_CHARS) return undefined;
  return record;
}

/**
 * How long after its feed a job runs as the feeder claimed it, unread: half the time JobRuns keeps a
 * cancel heard before the run (EARLY_STOP_MS), the other half a margin for the clocks of the feeder's
 * host and this one.
 */
const FED_RECORD_FRESH_MS = EARLY_STOP_MS / 2;

/** The fed record of a first start soon after its feed (see the top); undefined when the store must tell. */
function freshFedRecord(job: Job<FedJob>): JobRecord | undefined {
  const fresh = job.attemptsStarted <= 1 && Date.now() - job.timestamp < FED_RECORD_FRESH_MS;
  return fresh ? job.data.record : undefined;
}

/**
 * How long an idle worker's blocking read waits before it asks again (BullMQ's drainDelay, 5 s by
 * default): BullMQ caps its blocking reads at 10 s for a read cut by a reconnection to be noticed.
 */
const IDLE_WAIT_S = 10;

/** The BullMQ workers of a process, stopped together. */
export interface BullmqWorkers {
  /** Takes no new job, and resolves once the running ones ended. */
  close(): Promise<void>;
}

export async function startBullmqWorkers(deps: BullmqWorkerDeps): Promise<BullmqWorkers> {
  const workers: Worker<FedJob>[] = [];
  for (let slot = 0; slot < deps.slots; slot += 1) workers.push(startWorker(deps, slot > 0));
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  return {
    close: async () => {
      // Each closes, even when another's close failed.
      const closed = await Promise.allSettled(workers.map((worker) => worker.close()));
      const failed = closed.find((result) => result.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    },
  };
}

function startWorker(deps: BullmqWorkerDeps, skipStalledCheck: boolean): Worker<FedJob> {
  const { store, inputs, runs, now } = deps;
  const worker = new Worker<FedJob>(
    deps.queueName,
    async (job) => {
      const { id } = job.data;
      const log = deps.log.child({ job_id: id });
      // BullMQ runs it again (its last worker died): the store counts every start.
      // Read again while the store is away: an outage is waited out, not counted as an attempt.
      const record =
        freshFedRecord(job) ??
        (await runs.readBeforeRun(
          () => (job.attemptsStarted > 1 ? store.restart(id, now()) : store.get(id)),
          log,
        ));
      if (record?.status !== 'running') return { status: 'skipped' };
      // Nothing to hand back when interrupted: the attempt throws and BullMQ gives the job to another worker.
      const source = { inputs, storedInputs: true, interrupted: async () => {} };
      // A cancel heard since the feed stopped nothing here yet: the runs kept it, and it stops this run
      // as it starts.
      const end = await runs.run(record, source);
      if (end.status === 'interrupted') throw new Error('the worker stopped before the job ended');
      if (end.status === 'failed') throw new UnrecoverableError(`${end.error.code}: ${end.error.message}`);
      // A job handed on is queued again in the store: the feeder hands it out anew on its next turn.
      if (end.status === 'handed-on') return end;
      return { status: end.status, record: toldRecord(end.recorded) };
    },
    {
      connection: deps.connection,
      prefix: deps.prefix,
      concurrency: 1,
      drainDelay: IDLE_WAIT_S,
      maxStalledCount: MAX_ATTEMPTS - 1,
      maxStartedAttempts: MAX_ATTEMPTS,
      lockDuration: deps.lockMs,
      stalledInterval: Math.round((deps.lockMs * 2) / 3),
      skipStalledCheck,
    },
  );
  worker.on('error', deps.failed);
  return worker;
}
