// The shared backends' dispatch (dispatch.ts; issue #16): jobs pass from API processes to workers over
// BullMQ on Redis, imported only when the shared backends are chosen (backends/shared.ts). The job
// store stays the record of every job's state and result; BullMQ carries the work and the news.
//
// - Fairness: BullMQ's open-source queue has no per-user groups, so API processes feed it from the
//   store's fair claim order (claimNext) and keep its waiting list at DISPATCH_AHEAD jobs: a worker
//   freeing a slot always finds one, and who goes next is decided at the last moment. One dispatcher
//   feeds at a time (a Redis lock), so several API processes never overfill it.
// - Workers take jobs with their configured concurrency. A worker killed mid-job stops renewing its
//   lock: BullMQ's stalled-job check gives the job to another worker, once (maxStalledCount); a
//   failure the job recorded is never run again (UnrecoverableError); an attempt that threw (the store
//   failed under it, or its worker stopped) is run once more (attempts). BullMQ counts stalls and
//   throws apart, so a job killed once and thrown once would start a third time: maxStartedAttempts
//   fails it instead, so a job starts at most MAX_ATTEMPTS times however its attempts were lost.
// - A job the store marks running while no BullMQ job carries it (its dispatcher died between the
//   two, or Redis lost the queue) would stay running forever: the dispatcher holding the lock looks
//   for such jobs at start and every RECONCILE_MS, and puts those stranded longer than STRANDED_MS
//   back in the store's queue (or fails them, their attempts spent).
// - A synchronous call an `--role all` process has a slot free for runs there at once, without the
//   bucket or BullMQ, when nothing is queued (startHere): started-here-marks.ts keeps such jobs from
//   being taken for lost while their process lives, and cancels them once it died.
// - Ends reach the API processes as BullMQ's queue events, so a synchronous call is answered when
//   its job's completion arrives. A cancel is published on a Redis channel every process hears: the
//   worker running the job stops its tools, and readers waiting on it elsewhere are answered.
import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { RoleParts } from '../role.js';
import type { DispatchHost, JobDispatch, JobStartedHere } from './dispatch.js';
import type { JobStore, NewJob } from './job-store.js';
import { MAX_ATTEMPTS } from './retention.js';
import { StartedHereMarks } from './started-here-marks.js';

/** Jobs kept waiting in BullMQ beyond those running: enough that a freed slot never waits on a dispatcher. */
const DISPATCH_AHEAD = 2;
/** How long one dispatcher may hold the feeding lock (it lets go as soon as it is done). */
const FEED_LOCK_MS = 10_000;
/**
 * The one BullMQ queue of a deployment (under PDN_REDIS_KEY_PREFIX): the jobs' inputs are in the
 * bucket, so any worker runs any job, whatever its data folder.
 */
const QUEUE = 'jobs';
/** How soon a dispatcher that found another one feeding looks again, for jobs stored meanwhile. */
const FEED_RETRY_MS = 200;
/** How soon feeding is tried again after PostgreSQL or Redis failed it. */
const FEED_FAILED_RETRY_MS = 1_000;
/**
 * A running job's lock, renewed by its worker every half of it: a killed worker's job is handed to
 * another within about LOCK_MS + STALLED_CHECK_MS.
 */
const LOCK_MS = 15_000;
const STALLED_CHECK_MS = 10_000;
/** How often a dispatcher looks for running jobs no BullMQ job carries. */
const RECONCILE_MS = 60_000;
/**
 * How long a job may be running in the store with no BullMQ job before it counts as stranded: well
 * beyond FEED_LOCK_MS, the longest a live dispatcher takes between marking a job and adding it.
 */
const STRANDED_MS = 30_000;
/** BullMQ's states of a job some worker has or will have: any other leaves the job to nobody. */
const LIVE_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

interface JobData {
  id: string;
}

export interface BullmqDispatchDeps {
  /** A client for BullMQ (maxRetriesPerRequest null); blocking connections are duplicated from it. */
  redis: Redis;
  /** PDN_REDIS_KEY_PREFIX: BullMQ's keys and the cancel channel live under it. */
  prefix: string;
  store: JobStore;
  parts: RoleParts;
  /** This worker's concurrency (PDN_JOB_CONCURRENCY). */
  slots: number;
  log: Logger;
  now: () => number;
  /** Default STRANDED_MS; tests shorten it. */
  strandedMs?: number;
}

export class BullmqDispatch implements JobDispatch {
  readonly #deps: BullmqDispatchDeps;
  readonly #queue: Queue<JobData>;
  readonly #cancelChannel: string;
  readonly #lockKey: string;
  readonly #marks: StartedHereMarks;
  /** Jobs this process started for its own callers (startHere), until their attempt is over. */
  readonly #startedHere = new Set<string>();
  #host: DispatchHost | undefined;
  #events: QueueEvents | undefined;
  #worker: Worker<JobData> | undefined;
  #subscriber: Redis | undefined;
  /** The connections made here, closed last (BullMQ leaves those it was given open). */
  readonly #connections: Redis[] = [];
  #feeding = false;
  #feedAgain = false;
  /** Set at start and every RECONCILE_MS: the next feed first requeues stranded jobs. */
  #reconcileDue = true;
  #reconcileTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(deps: BullmqDispatchDeps) {
    this.#deps = deps;
    const prefix = `${deps.prefix}bull`;
    this.#queue = new Queue(QUEUE, {
      connection: deps.redis,
      prefix,
      defaultJobOptions: { attempts: MAX_ATTEMPTS, removeOnComplete: true, removeOnFail: true },
    });
    this.#cancelChannel = `${prefix}:${QUEUE}:cancels`;
    this.#lockKey = `${prefix}:${QUEUE}:feeding`;
    this.#marks = new StartedHereMarks(deps.redis, `${prefix}:${QUEUE}:`);
  }

  async start(host: DispatchHost): Promise<void> {
    const { parts, slots, log } = this.#deps;
    const prefix = `${this.#deps.prefix}bull`;
    this.#host = host;
    this.#subscriber = this.#connect();
    this.#subscriber.on('message', (_channel: string, id: string) => {
      host.stop(id);
      host.endedElsewhere(id);
    });
    await this.#subscriber.subscribe(this.#cancelChannel);
    if (parts.api) {
      const events = new QueueEvents(QUEUE, { connection: this.#connect(), prefix });
      this.#events = events;
      events.on('active', () => this.wake());
      events.on('completed', ({ jobId }) => host.endedElsewhere(jobId));
      events.on('failed', ({ jobId, failedReason }) => void this.#failed(host, jobId, failedReason));
      events.on('error', (error) => log.warn('BullMQ queue events failed', { error }));
      await events.waitUntilReady();
      this.#reconcileTimer = setInterval(() => {
        this.#reconcileDue = true;
        this.wake();
      }, RECONCILE_MS);
      this.#reconcileTimer.unref();
    }
    if (parts.runner) {
      this.#worker = new Worker<JobData>(
        QUEUE,
        (job) => this.#process(host, job.data.id, job.attemptsStarted),
        {
          connection: this.#connect(),
          prefix,
          concurrency: slots,
          maxStalledCount: MAX_ATTEMPTS - 1,
          maxStartedAttempts: MAX_ATTEMPTS,
          lockDuration: LOCK_MS,
          stalledInterval: STALLED_CHECK_MS,
        },
      );
      this.#worker.on('error', (error) => log.warn('BullMQ worker failed', { error }));
      await this.#worker.waitUntilReady();
    }
    if (parts.api && parts.runner) await this.#marks.start();
  }

  /** Only in a process that both takes calls and runs jobs (`--role all`); marked before it is stored. */
  async startHere(job: NewJob, now: number): Promise<JobStartedHere | undefined> {
    const { parts, store } = this.#deps;
    if (!parts.api || !parts.runner || this.#closed) return undefined;
    await this.#marks.mark(job.id);
    const record = await store.startNow(job, now).catch(async (error: unknown) => {
      await this.#marks.unmark(job.id);
      throw error;
    });
    if (record === undefined) {
      await this.#marks.unmark(job.id);
      return undefined;
    }
    this.#startedHere.add(job.id);
    return {
      record,
      // No BullMQ event tells the other processes of its end: readers waiting there hear of it as
      // of a cancel's, from the store.
      ended: () => {
        this.#startedHere.delete(job.id);
        Promise.all([this.#marks.unmark(job.id), this.canceled(job.id)]).catch((error: unknown) =>
          this.#deps.log.warn('telling of a job started here failed', { job_id: job.id, error }),
        );
      },
    };
  }

  /** Feeds the store's queued jobs into BullMQ, fairest first, while its waiting list is short. */
  wake(): void {
    const host = this.#host;
    if (host === undefined || !this.#deps.parts.api || this.#closed) return;
    if (this.#feeding) {
      this.#feedAgain = true;
      return;
    }
    this.#feeding = true;
    this.#feed(host)
      .catch((error: unknown) => {
        this.#deps.log.error('dispatching jobs failed', { error });
        this.#wakeLater(FEED_FAILED_RETRY_MS);
      })
      .finally(() => {
        this.#feeding = false;
      });
  }

  async canceled(id: string): Promise<void> {
    await this.#deps.redis.publish(this.#cancelChannel, id);
  }

  /**
   * BullMQ's jobs: nothing to do, the attempt throws and BullMQ gives the job to another worker. One
   * started here for its caller, who is being answered 503 as this process stops: canceled.
   */
  async interrupted(id: string): Promise<void> {
    if (this.#startedHere.has(id))
      await this.#deps.store.finish(id, { status: 'canceled' }, this.#deps.now());
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#reconcileTimer);
    // A worker takes no new job and resolves once the running ones ended (the runner interrupts
    // those still running when the grace is over).
    await this.#worker?.close();
    await this.#events?.close();
    await this.#queue.close();
    await this.#marks.stop();
    for (const connection of this.#connections) await connection.quit().catch(() => connection.disconnect());
  }

  #connect(): Redis {
    const connection = this.#deps.redis.duplicate();
    this.#connections.push(connection);
    return connection;
  }

  async #feed(host: DispatchHost): Promise<void> {
    const { redis, store, now } = this.#deps;
    do {
      this.#feedAgain = false;
      const token = randomBytes(8).toString('hex');
      if ((await redis.set(this.#lockKey, token, 'PX', FEED_LOCK_MS, 'NX')) === null) {
        this.#wakeLater(FEED_RETRY_MS);
        return;
      }
      try {
        if (this.#reconcileDue) {
          this.#reconcileDue = false;
          await this.#requeueStranded(host);
        }
        while (!this.#closed && (await this.#queue.getWaitingCount()) < DISPATCH_AHEAD) {
          const job = await store.claimNext(now());
          if (job === undefined) break;
          await this.#queue.add(job.operation, { id: job.id }, { jobId: job.id }).catch(async (error) => {
            await store.release(job.id);
            throw error;
          });
        }
      } finally {
        // Only our own lock: one that outlived FEED_LOCK_MS may be another dispatcher's by now.
        await redis.eval(
          "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
          1,
          this.#lockKey,
          token,
        );
      }
    } while (this.#feedAgain && !this.#closed);
  }

  #wakeLater(ms: number): void {
    setTimeout(() => this.wake(), ms).unref();
  }

  /**
   * Running jobs no BullMQ job carries (see the top), looked for while holding the feeding lock, so no
   * dispatcher is between marking and adding a job, unless its lock expired: STRANDED_MS covers that.
   */
  async #requeueStranded(host: DispatchHost): Promise<void> {
    const { store, now, log, strandedMs = STRANDED_MS } = this.#deps;
    const before = now() - strandedMs;
    const stranded: string[] = [];
    const orphaned: string[] = [];
    for (const id of await store.runningIds(before)) {
      const state = await this.#queue.getJobState(id);
      if (LIVE_STATES.has(state)) continue;
      const starter = await this.#marks.starter(id);
      if (starter === 'alive') continue;
      if (starter === 'gone') {
        orphaned.push(id);
        continue;
      }
      // A finished BullMQ job of that id left behind would make adding it again a no-op.
      if (state !== 'unknown') await this.#queue.remove(id);
      stranded.push(id);
    }
    await this.#cancelOrphaned(orphaned);
    if (stranded.length === 0) return;
    const { requeued, spent } = await store.requeue(stranded, before, MAX_ATTEMPTS);
    log.warn('running jobs no BullMQ job carried were taken back', { requeued, spent });
    for (const id of spent) {
      await host.interruptedEverywhere(id);
      // Its waiters in other API processes hear of its end as of a cancel's: from the store.
      await this.canceled(id);
    }
  }

  /** Jobs started by a process for its callers, which died: they went with it, and so did the inputs. */
  async #cancelOrphaned(ids: readonly string[]): Promise<void> {
    const { store, now, log } = this.#deps;
    for (const id of ids) {
      const ended = await store.finish(id, { status: 'canceled' }, now());
      await this.#marks.unmark(id);
      // Whoever reads it with `Prefer: wait` elsewhere hears of it as of a cancel.
      if (ended !== undefined) await this.canceled(id);
    }
    if (ids.length > 0) log.warn('jobs started by a process that died were canceled', { canceled: ids });
  }

  async #process(host: DispatchHost, id: string, started: number): Promise<string> {
    const { store, now } = this.#deps;
    // BullMQ runs it again (its last worker died): the store counts every start.
    const job = started > 1 ? await store.restart(id, now()) : await store.get(id);
    // Canceled (or forgotten) while it waited in BullMQ: nothing to run.
    if (job?.status !== 'running') return 'skipped';
    const [end] = await Promise.all([host.runJob(job, false), this.#stopIfCanceledMeanwhile(host, id)]);
    if (end.status === 'interrupted') throw new Error('the worker stopped before the job ended');
    if (end.status === 'failed') throw new UnrecoverableError(`${end.error.code}: ${end.error.message}`);
    return end.status;
  }

  /**
   * A cancel published while the store was read above reached this process before the job ran here,
   * and stopped nothing: the job, running here now, is read again, and stopped if it ended meanwhile.
   * A cancel published from now on reaches it directly. A failed read leaves it to run.
   */
  async #stopIfCanceledMeanwhile(host: DispatchHost, id: string): Promise<void> {
    const now = await this.#deps.store.get(id).catch(() => undefined);
    if (now !== undefined && now.status !== 'running') host.stop(id);
  }

  /**
   * A job BullMQ gave up on. Failures the job recorded are in the store already; a job whose workers
   * died or stopped on every attempt is recorded failed by whichever API process hears first.
   */
  async #failed(host: DispatchHost, id: string, reason: string): Promise<void> {
    await host
      .interruptedEverywhere(id)
      .catch((error: unknown) =>
        this.#deps.log.error('recording an interrupted job failed', { job_id: id, reason, error }),
      );
  }
}
