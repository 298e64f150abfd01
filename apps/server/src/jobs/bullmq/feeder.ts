// Feeds the store's queued jobs into BullMQ, fairest first (STYLE.md 27: a scheduler in front of one
// queue). BullMQ's open-source queue has no per-user groups, so the API processes hand it a job only
// when a worker has a slot for it (BullMQ's active and waiting jobs fewer than the live workers' slots,
// worker-registry.ts), claiming each in the fair order (fair-share.ts) at that moment:
// who goes next is decided when a slot frees, not earlier, so a user's long queue fed ahead never
// holds back another user, and a job waits in the store, where it can still be withdrawn, not in
// BullMQ. A freed slot waits for the feeder a moment (a job's end reaches it as BullMQ's queue
// event). One feeder feeds at a time (a Redis lock), so several API processes never overfill it. A
// synchronous call's job that finds a slot free and nothing queued in the store is fed as it is
// stored, under the same lock (startAtOnce): the fair order would have picked it next.
//
// A job the store marks running while no BullMQ job carries it (its feeder died between the two, or
// Redis lost the queue) would stay running forever: the feeder holding the lock looks for such jobs at
// start and every RECONCILE_MS, and puts those stranded longer than STRANDED_MS back in the store's
// queue (or fails them, their attempts spent). Jobs an `--role all` process started for its own
// callers carry no BullMQ job either: they are left to their process while it lives.
import { randomBytes } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { CoalescedRuns } from '../../coalesced-runs.js';
import type { Logger } from '../../logger.js';
import { claimUpTo } from '../fair-share.js';
import type { JobRecord, JobStore, NewJob } from '../job-store.js';
import { MAX_ATTEMPTS } from '../retention.js';
import type { StartedHereMarks } from './started-here-marks.js';

/** How long one feeder may hold the feeding lock (it lets go as soon as it is done). */
const FEED_LOCK_MS = 10_000;
/**
 * The share of the lock's life a feeder trusts it to be its own: the rest allows for the clocks of
 * this process and Redis running at slightly different rates, and for the delete's own trip to Redis.
 */
const LOCK_TRUSTED_SHARE = 0.9;
/** How soon a feeder that found another one feeding looks again, for jobs stored meanwhile. */
const FEED_RETRY_MS = 200;
/** How soon a feeder that found no worker with jobs queued looks again. */
const NO_WORKER_RETRY_MS = 1_000;
/** How soon feeding is tried again after PostgreSQL or Redis failed it. */
const FEED_FAILED_RETRY_MS = 1_000;
/** How often a feeder looks for running jobs no BullMQ job carries. */
const RECONCILE_MS = 60_000;
/**
 * How long a job may be running in the store with no BullMQ job before it counts as stranded: well
 * beyond FEED_LOCK_MS, the longest a live feeder takes between marking a job and adding it.
 */
const STRANDED_MS = 30_000;
/** BullMQ's states of a job some worker has or will have: any other leaves the job to nobody. */
const LIVE_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/**
 * What a BullMQ job carries: the store's job, and its record as the feeder claimed it, so that the
 * worker taking it at once need not read the store (bullmq-worker.ts). Jobs fed by an earlier version
 * carry the id alone.
 */
export interface FedJob {
  id: string;
  record?: JobRecord;
}

export interface FeederDeps {
  redis: Redis;
  queue: Queue<FedJob>;
  /** The feeding lock's key. */
  lockKey: string;
  store: JobStore;
  marks: StartedHereMarks;
  /** The live workers' slots. */
  capacity(): Promise<number>;
  log: Logger;
  now: () => number;
  /** Default FEED_LOCK_MS; tests shorten it. */
  lockMs?: number;
  /** Default STRANDED_MS; tests shorten it. */
  strandedMs?: number;
  /** What becomes of stranded jobs whose attempts are spent, and of jobs whose starting process died. */
  ends: {
    interruptedEverywhere(id: string): Promise<void>;
    orphaned(id: string): Promise<void>;
  };
}

export class Feeder {
  readonly #deps: FeederDeps;
  readonly #feeds = new CoalescedRuns(() => this.#feed());
  /** Set at start and every RECONCILE_MS: the next feed first requeues stranded jobs. */
  #reconcileDue = true;
  #reconcileTimer: NodeJS.Timeout | undefined;
  /** Set by a wake for a job just stored: the next feed knows that a job waits without asking. */
  #jobStored = false;
  /**
   * Whether jobs may still wait for a slot as far as this process knows: its last feed left some
   * queued for want of room, or went wrong. Only then does a freed slot (a job's end) make it feed.
   * Jobs another process left queued are that process's to feed on the next end; should it stop
   * first, a job stored anywhere, or the look for stranded jobs every RECONCILE_MS, feeds them.
   */
  #mayHaveQueued = true;
  #closed = false;

  constructor(deps: FeederDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#reconcileTimer = setInterval(() => {
      this.#reconcileDue = true;
      this.wake();
    }, RECONCILE_MS);
    this.#reconcileTimer.unref();
    this.wake();
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#reconcileTimer);
  }

  /**
   * A job was stored queued (`jobStored`), or a worker's slot freed: hands out jobs while workers have
   * slots.
   */
  wake(jobStored = false): void {
    if (this.#closed) return;
    if (jobStored) this.#jobStored = true;
    this.#feeds.request().catch((error: unknown) => {
      this.#deps.log.error('dispatching jobs failed', { error });
      this.#mayHaveQueued = true;
      this.#wakeLater(FEED_FAILED_RETRY_MS);
    });
  }

  /**
   * Stores `job` running and hands it to a worker at once, when a worker has a slot free and no job is
   * queued in the store: the fair order would feed it next anyway, and it skips the read of who has
   * work and the claim. Undefined, with nothing stored, when it must queue instead (no free slot, a
   * job queued, another feeder at work).
   */
  async startAtOnce(job: NewJob): Promise<JobRecord | undefined> {
    if (this.#closed) return undefined;
    const { store, queue, now } = this.#deps;
    return this.#locked(async () => {
      // The store's running jobs are those fed (running or waiting in BullMQ) and those started by
      // the processes their callers came to: every slot taken.
      const record = await store.startNow(job, now(), await this.#deps.capacity());
      if (record === undefined) return undefined;
      try {
        await queue.add(record.operation, { id: record.id, record }, { jobId: record.id });
      } catch (error) {
        // Redis failed it: queued, and fed as any job stored meanwhile once Redis is back (the caller
        // wakes the feeder for a queued job).
        await store.release(record.id, record.queuedAt);
        this.#deps.log.warn('a job stored to start at once is queued instead', { job_id: job.id, error });
        return { ...record, status: 'queued', attempts: record.attempts - 1 };
      }
      return record;
    });
  }

  async #feed(): Promise<void> {
    const jobStored = this.#jobStored;
    this.#jobStored = false;
    // Most wakes are a job's end with nothing left waiting: neither the store nor Redis is asked.
    if (!jobStored && !this.#reconcileDue && !this.#mayHaveQueued) return;
    const fed = await this.#locked(async () => {
      await this.#feedLocked();
      return true;
    });
    if (fed === undefined) {
      // Another feeder is at it, and may have read the queue before this process's job was stored.
      if (jobStored) this.#jobStored = true;
      this.#wakeLater(FEED_RETRY_MS);
    }
  }

  /** `step` run holding the feeding lock; undefined, without running it, when another feeder holds it. */
  async #locked<T>(step: () => Promise<T>): Promise<T | undefined> {
    const { redis, lockKey, lockMs = FEED_LOCK_MS } = this.#deps;
    const token = randomBytes(8).toString('hex');
    // Counted from before the lock was asked for, so never less than Redis's own count of its life.
    const asked = performance.now();
    if ((await redis.set(lockKey, token, 'PX', lockMs, 'NX')) === null) return undefined;
    try {
      return await step();
    } finally {
      // While the connection is up a command goes out at once, not into the client's queue for a
      // Redis that is away (it could be sent after the lock expired and another feeder took it).
      if (redis.status === 'ready' && performance.now() - asked < lockMs * LOCK_TRUSTED_SHARE) {
        // It cannot have expired yet, so it is still ours: one command, where the checked release is
        // three on every synchronous call (the script, its read and its delete).
        await redis.del(lockKey);
      } else {
        // Only our own lock: one that outlived FEED_LOCK_MS may be another feeder's by now.
        await redis.eval(
          "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
          1,
          lockKey,
          token,
        );
      }
    }
  }

  async #feedLocked(): Promise<void> {
    const { store, queue, now } = this.#deps;
    if (this.#reconcileDue) {
      this.#reconcileDue = false;
      await this.#requeueStranded();
    }
    const users = await store.usersWithWork();
    const queued = users.reduce((sum, user) => sum + user.queued, 0);
    this.#mayHaveQueued = queued > 0;
    if (this.#closed || queued === 0) return;
    const capacity = await this.#deps.capacity();
    if (capacity === 0) {
      // No worker yet (or any more): no end will come to wake the feeder, so it looks again.
      this.#wakeLater(NO_WORKER_RETRY_MS);
      return;
    }
    const claimed = await claimUpTo(store, now(), capacity, capacity - (await this.#handedOut()), users);
    this.#mayHaveQueued = claimed.length < queued;
    for (const [index, job] of claimed.entries()) {
      await queue.add(job.operation, { id: job.id, record: job }, { jobId: job.id }).catch(async (error) => {
        // They never left the queue: they wait on from when they joined.
        for (const left of claimed.slice(index)) await store.release(left.id, left.queuedAt);
        throw error;
      });
    }
  }

  /** Jobs BullMQ has given a worker or holds for the next free one. */
  async #handedOut(): Promise<number> {
    const counts = await this.#deps.queue.getJobCounts('active', 'waiting');
    return (counts.active ?? 0) + (counts.waiting ?? 0);
  }

  #wakeLater(ms: number): void {
    setTimeout(() => this.wake(), ms).unref();
  }

  /**
   * Running jobs no BullMQ job carries (see the top), looked for while holding the feeding lock, so no
   * feeder is between marking and adding a job, unless its lock expired: STRANDED_MS covers that.
   */
  async #requeueStranded(): Promise<void> {
    const { store, queue, marks, now, log, ends, strandedMs = STRANDED_MS } = this.#deps;
    const before = now() - strandedMs;
    const stranded: string[] = [];
    const orphaned: string[] = [];
    for (const id of await store.runningIds(before)) {
      const state = await queue.getJobState(id);
      if (LIVE_STATES.has(state)) continue;
      const starter = await marks.starter(id);
      if (starter === 'alive') continue;
      if (starter === 'gone') {
        orphaned.push(id);
        continue;
      }
      // A finished BullMQ job of that id left behind would make adding it again a no-op.
      if (state !== 'unknown') await queue.remove(id);
      stranded.push(id);
    }
    for (const id of orphaned) await ends.orphaned(id);
    if (orphaned.length > 0)
      log.warn('jobs started by a process that died were canceled', { canceled: orphaned });
    if (stranded.length === 0) return;
    const { requeued, spent } = await store.requeue(stranded, before, MAX_ATTEMPTS, now());
    log.warn('running jobs no BullMQ job carried were taken back', { requeued, spent });
    for (const id of spent) await ends.interruptedEverywhere(id);
  }
}
