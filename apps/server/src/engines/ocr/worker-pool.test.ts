// The pool's own rules, with workers that only count what happens to them (the real tesseract.js
// workers are exercised in index.test.ts).
import { describe, expect, it } from 'vitest';
import { registry } from '../../metrics.js';
import { ToolTimeoutError } from '../run-tool.js';
import { ANY_WORKER, PoolClosedError, WorkerPool } from './worker-pool.js';

class CountingWorker {
  static created = 0;
  readonly id: number;
  terminated = false;
  alive = true;
  constructor(readonly key = '') {
    CountingWorker.created += 1;
    this.id = CountingWorker.created;
  }
  async terminate(): Promise<void> {
    this.terminated = true;
  }
}

function poolOf(o: { size?: number; recycleAfter?: number; timeoutMs?: number; idleMs?: number } = {}) {
  const workers: CountingWorker[] = [];
  const logged: string[] = [];
  const pool = new WorkerPool<CountingWorker>({
    name: 'test',
    size: o.size ?? 1,
    recycleAfter: o.recycleAfter ?? 100,
    idleMs: o.idleMs ?? 60_000,
    timeoutMs: o.timeoutMs ?? 60_000,
    create: async (key) => {
      const worker = new CountingWorker(key);
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
  it('tells the metrics how many workers are alive, per pool', async () => {
    const { pool } = poolOf({ size: 2 });
    const alive = async () =>
      (await registry.getSingleMetric('pdn_ocr_workers')?.get())?.values.find(
        (value) => value.labels.pool === 'test',
      )?.value;
    await pool.run('eng', async () => 1, live());
    expect(await alive()).toBe(1);
    await pool.close();
    expect(await alive()).toBe(0);
  });

  it('creates no worker until a job needs one, then reuses it', async () => {
    const { pool, workers } = poolOf({ size: 2 });
    expect(workers).toHaveLength(0);
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push(await pool.run('eng', async (worker) => worker.id, live()));
    expect(workers).toHaveLength(1);
    expect(new Set(ids).size).toBe(1);
  });

  it('grows to its size under load and no further', async () => {
    const { pool, workers } = poolOf({ size: 2 });
    const jobs = [heldJob(), heldJob(), heldJob()];
    const results = jobs.map((job) => pool.run('eng', job.task, live()));
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
    for (let i = 0; i < 5; i += 1) ids.push(await pool.run('eng', async (worker) => worker.id, live()));
    expect(ids).toEqual([ids[0], ids[0], ids[2], ids[2], ids[4]]);
    expect(new Set(ids).size).toBe(3);
    expect(workers.filter((worker) => worker.terminated)).toHaveLength(2);
    expect(logged.filter((message) => message === 'OCR worker recycled')).toHaveLength(2);
  });

  it('never runs a job aborted while it waits', async () => {
    const { pool } = poolOf();
    const first = heldJob();
    const running = pool.run('eng', first.task, live());
    await first.onStart;
    const client = new AbortController();
    let ran = false;
    const waiting = pool.run(
      'eng',
      async () => {
        ran = true;
      },
      client.signal,
    );
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
    const running = pool.run('eng', job.task, client.signal);
    const worker = await job.onStart;
    client.abort(new Error('client went away'));
    await expect(running).rejects.toThrow('client went away');
    expect(worker.terminated).toBe(true);
    expect(await pool.run('eng', async (next) => next.id, live())).not.toBe(worker.id);
    expect(workers).toHaveLength(2);
  });

  it('stops a job that overruns its time and terminates its worker', async () => {
    const { pool } = poolOf({ timeoutMs: 20 });
    const job = heldJob();
    const running = pool.run('eng', job.task, live());
    const worker = await job.onStart;
    await expect(running).rejects.toBeInstanceOf(ToolTimeoutError);
    expect(worker.terminated).toBe(true);
  });

  it('retires a worker whose job failed', async () => {
    const { pool } = poolOf();
    let failed: CountingWorker | undefined;
    await expect(
      pool.run(
        'eng',
        async (worker) => {
          failed = worker;
          throw new Error('bad image');
        },
        live(),
      ),
    ).rejects.toThrow('bad image');
    expect(failed?.terminated).toBe(true);
    expect(await pool.run('eng', async (worker) => worker.id, live())).not.toBe(failed?.id);
  });

  it('keeps a worker whose job failed in a way keepsWorker calls intact', async () => {
    const workers: CountingWorker[] = [];
    const pool = new WorkerPool<CountingWorker>({
      name: 'keeping',
      size: 1,
      recycleAfter: 10,
      idleMs: 60_000,
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
      pool.run(
        'eng',
        async () => {
          throw new RangeError('the input was bad');
        },
        live(),
      ),
    ).rejects.toThrow('the input was bad');
    expect(await pool.run('eng', async (worker) => worker.id, live())).toBe(workers[0]?.id);
    expect(workers).toHaveLength(1);
  });

  it('passes on a failure to create a worker and tries again for the next job', async () => {
    let attempts = 0;
    const pool = new WorkerPool({
      name: 'flaky',
      size: 1,
      recycleAfter: 10,
      idleMs: 60_000,
      timeoutMs: 1000,
      create: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('could not start');
        return new CountingWorker();
      },
      log: { info: () => {}, warn: () => {} },
    });
    await expect(pool.run('eng', async () => 'never', live())).rejects.toThrow('could not start');
    expect(await pool.run('eng', async () => 'ran', live())).toBe('ran');
  });

  it('close() stops running and waiting jobs and terminates every worker', async () => {
    const { pool, workers } = poolOf();
    const job = heldJob();
    const running = pool.run('eng', job.task, live());
    await job.onStart;
    const waiting = pool.run('eng', async () => 'never', live());
    await pool.close();
    await expect(running).rejects.toBeInstanceOf(PoolClosedError);
    await expect(waiting).rejects.toBeInstanceOf(PoolClosedError);
    expect(workers.every((worker) => worker.terminated)).toBe(true);
    await expect(pool.run('eng', async () => 'never', live())).rejects.toBeInstanceOf(PoolClosedError);
  });

  it('bounds the workers of every key together, closing the least recently used idle one', async () => {
    const { pool, workers, logged } = poolOf({ size: 2 });
    const keyOf = (key: string) => pool.run(key, async (worker) => worker.key, live());
    expect(await keyOf('eng')).toBe('eng');
    expect(await keyOf('deu')).toBe('deu');
    expect(await keyOf('eng')).toBe('eng');
    // A third set: deu's worker is the least recently used.
    expect(await keyOf('fra')).toBe('fra');
    expect(pool.workers).toBe(2);
    expect(workers.find((worker) => worker.key === 'deu')?.terminated).toBe(true);
    expect(workers.find((worker) => worker.key === 'eng')?.terminated).toBe(false);
    expect(logged.filter((message) => message.includes('least recently used'))).toHaveLength(1);
    // Sixteen more sets in turn never hold more than two workers.
    for (let i = 0; i < 16; i += 1) await keyOf(`set${i}`);
    expect(pool.workers).toBe(2);
    expect(workers.filter((worker) => !worker.terminated)).toHaveLength(2);
  });

  it('makes a job of another key wait for a busy full pool, then closes an idle worker for it', async () => {
    const { pool } = poolOf({ size: 1 });
    const job = heldJob();
    const running = pool.run('eng', job.task, live());
    const eng = await job.onStart;
    const other = pool.run('deu', async (worker) => worker.key, live());
    job.release();
    await running;
    expect(await other).toBe('deu');
    expect(eng.terminated).toBe(true);
  });

  it('serves a job of any key on whatever worker is idle', async () => {
    const { pool, workers } = poolOf({ size: 1 });
    await pool.run('deu', async () => {}, live());
    expect(await pool.run(ANY_WORKER, async (worker) => worker.key, live())).toBe('deu');
    expect(workers).toHaveLength(1);
  });

  it('retires a worker that stayed idle for idleMs', async () => {
    const { pool, workers, logged } = poolOf({ idleMs: 20 });
    await pool.run('eng', async () => {}, live());
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(workers[0]?.terminated).toBe(true);
    expect(pool.workers).toBe(0);
    expect(logged).toContain('OCR worker retired after idling');
  });

  it('replaces an idle worker that died instead of handing it out', async () => {
    const { pool, workers } = poolOf();
    await pool.run('eng', async () => {}, live());
    const [first] = workers;
    if (first !== undefined) first.alive = false;
    expect(await pool.run('eng', async (worker) => worker.id, live())).not.toBe(first?.id);
    expect(pool.workers).toBe(1);
  });
});
