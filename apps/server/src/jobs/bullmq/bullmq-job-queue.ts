// The shared backends' JobQueue (job-queue.ts): jobs pass from API processes to workers over BullMQ on
// Redis, imported only when the shared backends are chosen (backends/shared.ts). The job store stays
// the record of every job's state and result; BullMQ carries the work (feeder.ts feeds it in the
// store's fair order, bullmq-worker.ts runs it) and the news:
// - a job's end reaches the API processes as BullMQ's queue events (`completed`, `failed`), and its
//   waiters read it from the store;
// - a cancel, and the end of a job no BullMQ job carried, is published on a Redis channel every process
//   hears: the process running the job stops its tools, and waiters elsewhere read the store.
// A synchronous call an `--role all` process has a slot free for runs there at once, on its uploads
// where they are, without the bucket or BullMQ, when nothing is queued and the deployment has a slot
// free (the fair order would start it next anyway): a small merge on the shared backends costs little
// more than on the embedded ones. Elsewhere such a call's job is handed to BullMQ as it is stored
// (feeder.ts).
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { outageLog } from '../../backends/outage-log.js';
import type { Logger } from '../../logger.js';
import type { RoleParts } from '../../role.js';
import type { InputStore } from '../../storage/index.js';
import type { LocalJobEvents } from '../job-events.js';
import type { JobQueue, Submission } from '../job-queue.js';
import type { JobRuns } from '../job-runs.js';
import type { JobRecord, JobStore, NewJob } from '../job-store.js';
import { INTERRUPTED, MAX_ATTEMPTS } from '../retention.js';
import { storeSubmission } from '../store-submission.js';
import { type BullmqWorkers, startBullmqWorkers } from './bullmq-worker.js';
import { type FedJob, Feeder } from './feeder.js';
import { StartedHereMarks } from './started-here-marks.js';
import { WorkerRegistry } from './worker-registry.js';

/**
 * The one BullMQ queue of a deployment (under PDN_REDIS_KEY_PREFIX): the jobs' inputs are in the
 * bucket, so any worker runs any job, whatever its data folder.
 */
const QUEUE = 'jobs';

export interface BullmqJobQueueDeps {
  /** A client for BullMQ (maxRetriesPerRequest null); blocking connections are duplicated from it. */
  redis: Redis;
  /**
   * A client whose commands fail at once while Redis is away, for what a request waits on (the
   * workers' capacity, read by admission): BullMQ's own client waits for Redis to come back.
   */
  requestRedis: Redis;
  /** PDN_REDIS_KEY_PREFIX: BullMQ's keys and the ends channel live under it. */
  prefix: string;
  store: JobStore;
  inputs: InputStore;
  parts: RoleParts;
  /** This process's worker, where its role runs jobs. */
  runs?: JobRuns | undefined;
  events: LocalJobEvents;
  /** This worker's concurrency (PDN_JOB_CONCURRENCY). */
  slots: number;
  /** A running job's lock (PDN_JOB_LOCK_MS, backend-config.ts). */
  lockMs: number;
  log: Logger;
  now: () => number;
  /** How long a running job may lack a BullMQ job before it counts as stranded; tests shorten it. */
  strandedMs?: number;
}

/**
 * What a worker's BullMQ job returned: its run's status, with the job's record once ended. Workers of
 * an earlier version return the status alone.
 */
function completion(returnvalue: unknown): { status: string; record?: JobRecord } {
  if (typeof returnvalue === 'string') return { status: returnvalue };
  return (returnvalue ?? { status: 'unknown' }) as { status: string; record?: JobRecord };
}

export class BullmqJobQueue implements JobQueue {
  readonly #deps: BullmqJobQueueDeps;
  readonly events: LocalJobEvents;
  readonly #queue: Queue<FedJob>;
  readonly #bullPrefix: string;
  /** Cancels and ends no BullMQ event tells of; the name older processes publish their cancels on. */
  readonly #endsChannel: string;
  readonly #marks: StartedHereMarks;
  readonly #workers: WorkerRegistry;
  readonly #feeder: Feeder;
  /** The connections made here, closed last (BullMQ leaves those it was given open). */
  readonly #connections: Redis[] = [];
  #queueEvents: QueueEvents | undefined;
  #worker: BullmqWorkers | undefined;
  #closed = false;
  readonly #outage: ReturnType<typeof outageLog>;

  constructor(deps: BullmqJobQueueDeps) {
    this.#deps = deps;
    this.#outage = outageLog(deps.log, "Redis (BullMQ's own connections)");
    this.events = deps.events;
    this.#bullPrefix = `${deps.prefix}bull`;
    this.#queue = new Queue(QUEUE, {
      connection: deps.redis,
      prefix: this.#bullPrefix,
      defaultJobOptions: { attempts: MAX_ATTEMPTS, removeOnComplete: true, removeOnFail: true },
    });
    // The queue passes on its connection's errors; BullMQ prints an error nobody listens for raw on
    // stderr, so an outage would reach the log as a stack trace instead of one warning.
    this.#queue.on('error', this.#outage.failed);
    this.#endsChannel = `${this.#bullPrefix}:${QUEUE}:cancels`;
    this.#marks = new StartedHereMarks(deps.redis, `${this.#bullPrefix}:${QUEUE}:`);
    const runsHere = deps.parts.runner && deps.runs !== undefined;
    this.#workers = new WorkerRegistry(
      deps.requestRedis,
      `${this.#bullPrefix}:${QUEUE}:workers`,
      runsHere ? deps.slots : undefined,
    );
    this.#feeder = new Feeder({
      redis: deps.redis,
      queue: this.#queue,
      lockKey: `${this.#bullPrefix}:${QUEUE}:feeding`,
      store: deps.store,
      marks: this.#marks,
      capacity: () => this.#workers.capacity(),
      log: deps.log,
      now: deps.now,
      ...(deps.strandedMs === undefined ? {} : { strandedMs: deps.strandedMs }),
      ends: {
        interruptedEverywhere: (id) => this.#interruptedEverywhere(id),
        orphaned: (id) => this.#orphaned(id),
      },
    });
  }

  async start(): Promise<void> {
    const { parts, runs, log } = this.#deps;
    const subscriber = this.#connect();
    subscriber.on('message', (_channel: string, id: string) => void this.#heardEnd(id));
    await subscriber.subscribe(this.#endsChannel);
    if (parts.api) {
      const events = new QueueEvents(QUEUE, { connection: this.#connect(), prefix: this.#bullPrefix });
      this.#queueEvents = events;
      events.on('completed', ({ jobId, returnvalue }) => {
        const told = completion(returnvalue);
        // A long job that handed its slot on is queued again in the store: a job to feed, not an end.
        if (told.status === 'handed-on') {
          this.#feeder.wake(true);
          return;
        }
        this.#feeder.wake();
        this.events.emit({ id: jobId, told: told.record });
      });
      events.on('failed', ({ jobId }) => {
        this.#feeder.wake();
        this.#interruptedEverywhere(jobId).catch((error: unknown) =>
          log.error('recording an interrupted job failed', { job_id: jobId, error }),
        );
      });
      events.on('error', this.#outage.failed);
      await events.waitUntilReady();
      this.#feeder.start();
    }
    if (parts.runner && runs !== undefined) {
      const { store, inputs, slots, lockMs, now } = this.#deps;
      this.#worker = await startBullmqWorkers({
        connection: this.#connect(),
        prefix: this.#bullPrefix,
        queueName: QUEUE,
        store,
        inputs,
        runs,
        slots,
        lockMs,
        log,
        failed: this.#outage.failed,
        now,
      });
      await this.#workers.start();
    }
    if (parts.api && parts.runner) await this.#marks.start();
  }

  async add(submission: Submission): Promise<JobRecord> {
    const { store, inputs, now } = this.#deps;
    if (submission.mode === 'sync') {
      const started = await this.#startHere(submission);
      if (started !== undefined) return started;
    }
    // A synchronous call's job starts at once when it can: its caller is waiting. An asynchronous
    // one is held to its user's cap on unfinished jobs, which only the store's count can tell.
    const startAtOnce =
      submission.mode === 'sync' ? (job: NewJob) => this.#feeder.startAtOnce(job) : undefined;
    const record = await storeSubmission(store, inputs, submission, now(), startAtOnce);
    if (record.status === 'queued') this.#feeder.wake(true);
    return record;
  }

  async cancel(id: string): Promise<JobRecord | undefined> {
    const { store, now } = this.#deps;
    const ended = await store.finish(id, { status: 'canceled' }, now());
    if (ended === undefined) return store.get(id);
    // Fed and waiting for a worker: taken out, for a worker that did not hear of the cancel would run
    // it as fed (bullmq-worker.ts). One a worker holds already is that worker's to stop.
    if (ended.startedAt !== null) await this.#queue.remove(id);
    await this.#ended(ended);
    return ended;
  }

  async withdraw(id: string): Promise<JobRecord | undefined> {
    const ended = await this.#deps.store.withdraw(id, this.#deps.now());
    if (ended !== undefined) await this.#ended(ended);
    return ended;
  }

  capacity(): Promise<number> {
    return this.#workers.capacity();
  }

  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    this.#feeder.close();
    // Every step runs even when one before it failed (a Redis command timing out on a busy machine
    // while the process stops): a BullMQ worker left open keeps renewing its locks, and its timers
    // kept the process alive for good after its connections had closed.
    const step = async (what: string, run: () => Promise<unknown> | undefined) => {
      try {
        await run();
      } catch (error) {
        this.#deps.log.warn(`stopping the job queue: ${what} failed`, { error });
      }
    };
    await step('leaving the list of workers', () => this.#workers.stop());
    // A worker takes no new job and resolves once the running ones ended; the runs interrupt those
    // still running when the grace is over.
    const workerClosed = step('closing the BullMQ workers', () => this.#worker?.close());
    await step('ending the running jobs', () => this.#deps.runs?.close(graceMs));
    await workerClosed;
    await step('closing the queue events', () => this.#queueEvents?.close());
    await step('closing the queue', () => this.#queue.close());
    await step('withdrawing the started-here marks', () => this.#marks.stop());
    for (const connection of this.#connections) await connection.quit().catch(() => connection.disconnect());
  }

  #connect(): Redis {
    const connection = this.#deps.redis.duplicate();
    // Each connection's errors go into the log once per outage, never raw on stderr (an ioredis
    // client without a listener prints every failed reconnection).
    connection.on('error', this.#outage.failed);
    connection.on('ready', this.#outage.recovered);
    this.#connections.push(connection);
    return connection;
  }

  /** A job ended or canceled through another process: stopped if it runs here, its waiters told. */
  async #heardEnd(id: string): Promise<void> {
    await this.#deps.runs?.stop(id);
    this.events.emit({ id });
  }

  /** A job this process ended without running it: stopped wherever it runs, told everywhere. */
  async #ended(record: JobRecord): Promise<void> {
    await this.#deps.runs?.stop(record.id);
    await this.#deps.inputs.remove(record.id);
    await this.#deps.redis.publish(this.#endsChannel, record.id);
    this.events.emit({ id: record.id, record });
  }

  /**
   * With a slot free here and nothing queued, the call's job is stored running and run here at once on
   * its uploads where they are (see the top); marked first, so the feeder never takes it for lost.
   */
  async #startHere(submission: Submission): Promise<JobRecord | undefined> {
    const { parts, runs, store, now, log } = this.#deps;
    if (!parts.api || !parts.runner || runs === undefined || this.#closed) return undefined;
    const release = runs.reserve();
    if (release === undefined) return undefined;
    const { id, userId, operation, params, requestId, files } = submission;
    try {
      const stored = files.map((file, index) => ({
        stored: String(index),
        name: file.name,
        size: file.size,
      }));
      const input = { files: stored, params };
      const job: NewJob = { id, userId, operation, mode: 'sync', input, requestId };
      // Of the deployment's slots, not only this process's: a job fed to BullMQ may wait for the
      // slot this process has free.
      const slots = await this.#workers.capacity();
      await this.#marks.mark(id);
      const record = await store.startNow(job, now(), slots).catch(async (error: unknown) => {
        await this.#marks.unmark(id);
        throw error;
      });
      if (record === undefined) {
        await this.#marks.unmark(id);
        return undefined;
      }
      release();
      const source = {
        inputs: { fetch: async () => [...files] },
        storedInputs: false,
        // Its caller is being answered 503 as this process stops: nobody will take it up.
        interrupted: async () => void (await store.finish(id, { status: 'canceled' }, now())),
      };
      runs
        .run(record, source)
        .catch(() => {})
        .finally(() => {
          // No BullMQ event tells the other processes of its end: waiters there hear of it as of a cancel's.
          Promise.all([this.#marks.unmark(id), this.#deps.redis.publish(this.#endsChannel, id)]).catch(
            (error: unknown) => log.warn('telling of a job started here failed', { job_id: id, error }),
          );
        });
      return record;
    } finally {
      release();
    }
  }

  /**
   * Every attempt at job `id` was interrupted (its workers died or stopped): recorded failed by the
   * first process to hear, unless it had ended; the others' waiters read it from the store.
   */
  async #interruptedEverywhere(id: string): Promise<void> {
    const { store, now, log } = this.#deps;
    const ended = await store.finish(id, { status: 'failed', error: INTERRUPTED }, now());
    if (ended === undefined) {
      this.events.emit({ id });
      return;
    }
    log.warn('a job was interrupted on every attempt', { job_id: id });
    await this.#ended(ended);
  }

  /** A job started by a process for its callers, which died: they went with it, and so did the inputs. */
  async #orphaned(id: string): Promise<void> {
    const { store, now } = this.#deps;
    const ended = await store.finish(id, { status: 'canceled' }, now());
    await this.#marks.unmark(id);
    if (ended !== undefined) await this.#ended(ended);
  }
}
