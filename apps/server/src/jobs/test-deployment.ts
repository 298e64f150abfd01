// What the job queue suites stand on (job-queue.contract.ts and each queue's own tests): a real SQLite
// job store and data folder, real output and input stores, and processes put together as the server
// puts them (open-jobs.ts), with test operations whose end each case decides. Over BullMQ every process
// shares one queue on the real Redis under a key prefix of its own.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { DEFAULT_JOB_LOCK_MS } from '../backends/backend-config.js';
import { openSqliteForTest } from '../database/contract-harness.js';
import { createLogger, type Logger } from '../logger.js';
import type { Operation, Operations } from '../operations/index.js';
import { partsOf, type Role } from '../role.js';
import { openStorage, type Storage } from '../storage/index.js';
import { TEST_REDIS_URL, uniqueName } from '../test-services.js';
import { BullmqJobQueue } from './bullmq/bullmq-job-queue.js';
import { newJobId } from './index.js';
import type { Submission } from './job-queue.js';
import type { JobStore } from './job-store.js';
import { LocalJobQueue } from './local-job-queue.js';
import { type OpenedJobs, openJobs, type QueueParts } from './open-jobs.js';

export type QueueKind = 'local' | 'bullmq';

/** An operation that starts, then ends when the test says (or fails when its signal aborts). */
export function heldOperation() {
  const started: string[] = [];
  const releases: ((value: unknown) => void)[] = [];
  let onStop = () => {};
  /** Resolves when a run is stopped through its signal. */
  const stopped = new Promise<void>((resolve) => {
    onStop = resolve;
  });
  const operation: Operation = {
    name: 'ocr',
    run: (_inputs, params, work) =>
      new Promise((resolve, reject) => {
        started.push(String((params as { tag: string }).tag));
        releases.push(resolve);
        work.signal.addEventListener(
          'abort',
          () => {
            releases.splice(releases.indexOf(resolve), 1);
            onStop();
            reject(work.signal.reason);
          },
          { once: true },
        );
      }),
    resign: (result) => result,
  };
  /** Ends the oldest run still running with `value`. */
  const release = (value: unknown) => releases.shift()?.(value);
  return { operation, started, stopped, release };
}

/** Lets queued callbacks and I/O already done run. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Settles `check` until it holds, a few hundred turns at most (no timing: turns, not milliseconds). */
export async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let turn = 0; turn < 2_000; turn += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never came to pass: ${what}`);
}

export interface ProcessOptions {
  role?: Role;
  slots?: number;
  log?: Logger;
  /** The store as this process's queue reads it (default: the deployment's). */
  store?: JobStore;
  /** BullMQ only: how long a running job may lack a BullMQ job before it counts as stranded. */
  strandedMs?: number;
}

export class TestDeployment {
  readonly processes: OpenedJobs[] = [];
  readonly prefix = `${uniqueName('pdn-test')}:`;
  #redis: Redis | undefined;

  private constructor(
    readonly kind: QueueKind,
    readonly dataDir: string,
    readonly db: ReturnType<typeof openSqliteForTest>,
    readonly storage: Storage,
    readonly userId: number,
  ) {}

  static async open(kind: QueueKind): Promise<TestDeployment> {
    const dataDir = await mkdtemp(join(tmpdir(), 'pdn-jobs-'));
    const db = openSqliteForTest(dataDir);
    const storage = await openStorage({ dataDir, signingSecret: undefined, log: createLogger('quiet') });
    const userId = (await db.users.ensure('ada', 'premium')).user.id;
    return new TestDeployment(kind, dataDir, db, storage, userId);
  }

  get store(): JobStore {
    return this.db.jobs;
  }

  get redis(): Redis {
    this.#redis ??= new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    return this.#redis;
  }

  /** A process of the deployment running `operation` for every kind of job. */
  async process(operation: Operation, options: ProcessOptions = {}): Promise<OpenedJobs> {
    const role = options.role ?? 'all';
    const operations = {
      compress: operation,
      merge: operation,
      split: operation,
      ocr: operation,
    } as Operations;
    const store = options.store ?? this.store;
    const opened = await openJobs({
      store,
      inputs: this.storage.inputs,
      workDirs: this.storage.workDirs,
      downloads: this.storage.downloads,
      operations,
      parts: partsOf(role),
      slots: options.slots ?? 1,
      log: options.log ?? createLogger('quiet'),
      openQueue: (parts) => this.#queue(parts, options),
    });
    this.processes.push(opened);
    return opened;
  }

  #queue(parts: QueueParts, options: ProcessOptions) {
    if (this.kind === 'local') {
      if (parts.runs === undefined) throw new Error('a local queue runs its own jobs');
      return new LocalJobQueue({ ...parts, runs: parts.runs });
    }
    return new BullmqJobQueue({
      ...parts,
      redis: this.redis,
      requestRedis: this.redis,
      prefix: this.prefix,
      lockMs: DEFAULT_JOB_LOCK_MS,
      ...(options.strandedMs === undefined ? {} : { strandedMs: options.strandedMs }),
    });
  }

  /** A submission of `tag` (the test operations read it back), no files unless given. */
  submission(tag: string, mode: Submission['mode'] = 'async'): Submission {
    return { id: newJobId(), userId: this.userId, operation: 'ocr', mode, params: { tag }, files: [] };
  }

  async close(): Promise<void> {
    for (const process of this.processes.splice(0)) await process.close(0);
    if (this.#redis !== undefined) {
      const keys = await this.#redis.keys(`${this.prefix}*`);
      if (keys.length > 0) await this.#redis.del(...keys);
      await this.#redis.quit();
    }
    this.storage.close();
    await this.db.close();
    await rm(this.dataDir, { recursive: true, force: true });
  }
}
