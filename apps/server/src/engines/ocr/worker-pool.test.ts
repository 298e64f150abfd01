// The pool's own rules, with workers that only count what happens to them (the real tesseract.js
// workers are exercised in index.test.ts).
import { describe, expect, it } from 'vitest';
import { ToolTimeoutError } from '../run-tool.js';
import { PoolClosedError, WorkerPool } from './worker-pool.js';

class CountingWorker {
  static created = 0;
  readonly id: number;
  terminated = false;
  constructor() {
    CountingWorker.created += 1;
    this.id = CountingWorker.created;
  }
  async terminate(): Promise<void> {
    this.terminated = true;
  }
}

function poolOf(o: { size?: number; recycleAfter?: number; timeoutMs?: number } = {}) {
  const workers: CountingWorker[] = [];
  const logged: string[] = [];
  const pool = new WorkerPool<CountingWorker>({
    name: 'test',
    size: o.size ?? 1,
    recycleAfter: o.recycleAfter ?? 100,
    timeoutMs: o.timeoutMs ?? 60_000,
    create: async () => {
      const worker = new CountingWorker();
      workers.push(worker);
      return worker;
    },
    log: { info: (message) => logged.push(message), warn: (message) => logged.push(message) },
  });
  return { pool, workers, logged };
}

/** A job that runs until released, reporting which worker it got. */
function heldJob() {
  let release: () => void = () => {};
  let started: (worker: CountingWorker) => void = () => {};
  const onStart = new Promise<CountingWorker>((resolve) => {
    started = resolve;
  });
  const task = (worker: CountingWorker) =>
    new Promise<number>((resolve) => {
      started(worker);
      release = () => resolve(worker.id);
    });
  return { task, onStart, release: () => release() };
}

const live = () => new AbortController().signal;

describe('WorkerPool', () => {
  it('creates no worker until a job needs one, then reuses it', async () => {
    const { pool, workers } = poolOf({ size: 2 });
    expect(workers).toHaveLength(0);
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push(await pool.run(async (worker) => worker.id, live()));
    expect(workers).toHaveLength(1);
    expect(new Set(ids).size).toBe(1);
  });

  it('grows to its size under load and no further', async () => {
    const { pool, workers } = poolOf({ size: 2 });
    const jobs = [heldJob(), heldJob(), heldJob()];
    const results = jobs.map((job) => pool.run(job.task, live()));
    await Promise.all([jobs[0]?.onStart, jobs[1]?.onStart]);
    expect(workers).toHaveLength(2);
    jobs[0]?.release();
    // The third job gets the worker the first one freed.
    expect((await jobs[2]?.onStart)?.id).toBe(workers[0]?.id);
    jobs[1]?.release();
    jobs[2]?.release();
    await Promise.all(results);
    expect(workers).toHaveLength(2);
  });

  it('recycles a worker after recycleAfter jobs', async () => {
    const { pool, workers, logged } = poolOf({ recycleAfter: 2 });
    const ids = [];
    for (let i = 0; i < 5; i += 1) ids.push(await pool.run(async (worker) => worker.id, live()));
    expect(ids).toEqual([ids[0], ids[0], ids[2], ids[2], ids[4]]);
    expect(new Set(ids).size).toBe(3);
    expect(workers.filter((worker) => worker.terminated)).toHaveLength(2);
    expect(logged.filter((message) => message === 'OCR worker recycled')).toHaveLength(2);
  });

  it('never runs a job aborted while it waits', async () => {
    const { pool } = poolOf();
    const first = heldJob();
    const running = pool.run(first.task, live());
    await first.onStart;
    const client = new AbortController();
    let ran = false;
    const waiting = pool.run(async () => {
      ran = true;
    }, client.signal);
    client.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    first.release();
    await running;
    expect(ran).toBe(false);
    expect(pool.active).toBe(0);
  });

  it('terminates the worker of a job aborted while running, and replaces it', async () => {
    const { pool, workers } = poolOf();
    const job = heldJob();
    const client = new AbortController();
    const running = pool.run(job.task, client.signal);
    const worker = await job.onStart;
    client.abort(new Error('client went away'));
    await expect(running).rejects.toThrow('client went away');
    expect(worker.terminated).toBe(true);
    expect(await pool.run(async (next) => next.id, live())).not.toBe(worker.id);
    expect(workers).toHaveLength(2);
  });

  it('stops a job that overruns its time and terminates its worker', async () => {
    const { pool } = poolOf({ timeoutMs: 20 });
    const job = heldJob();
    const running = pool.run(job.task, live());
    const worker = await job.onStart;
    await expect(running).rejects.toBeInstanceOf(ToolTimeoutError);
    expect(worker.terminated).toBe(true);
  });

  it('retires a worker whose job failed', async () => {
    const { pool } = poolOf();
    let failed: CountingWorker | undefined;
    await expect(
      pool.run(async (worker) => {
        failed = worker;
        throw new Error('bad image');
      }, live()),
    ).rejects.toThrow('bad image');
    expect(failed?.terminated).toBe(true);
    expect(await pool.run(async (worker) => worker.id, live())).not.toBe(failed?.id);
  });

  it('keeps a worker whose job failed in a way keepsWorker calls intact', async () => {
    const workers: CountingWorker[] = [];
    const pool = new WorkerPool<CountingWorker>({
      name: 'keeping',
      size: 1,
      recycleAfter: 10,
      timeoutMs: 60_000,
      create: async () => {
        const worker = new CountingWorker();
        workers.push(worker);
        return worker;
      },
      keepsWorker: (error) => error instanceof RangeError,
      log: { info: () => {}, warn: () => {} },
    });
    await expect(
      pool.run(async () => {
        throw new RangeError('the input was bad');
      }, live()),
    ).rejects.toThrow('the input was bad');
    expect(await pool.run(async (worker) => worker.id, live())).toBe(workers[0]?.id);
    expect(workers).toHaveLength(1);
  });

  it('passes on a failure to create a worker and tries again for the next job', async () => {
    let attempts = 0;
    const pool = new WorkerPool({
      name: 'flaky',
      size: 1,
      recycleAfter: 10,
      timeoutMs: 1000,
      create: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('could not start');
        return new CountingWorker();
      },
      log: { info: () => {}, warn: () => {} },
    });
    await expect(pool.run(async () => 'never', live())).rejects.toThrow('could not start');
    expect(await pool.run(async () => 'ran', live())).toBe('ran');
  });

  it('close() stops running and waiting jobs and terminates every worker', async () => {
    const { pool, workers } = poolOf();
    const job = heldJob();
    const running = pool.run(job.task, live());
    await job.onStart;
    const waiting = pool.run(async () => 'never', live());
    await pool.close();
    await expect(running).rejects.toBeInstanceOf(PoolClosedError);
    await expect(waiting).rejects.toBeInstanceOf(PoolClosedError);
    expect(workers.every((worker) => worker.terminated)).toBe(true);
    await expect(pool.run(async () => 'never', live())).rejects.toBeInstanceOf(PoolClosedError);
  });
});
