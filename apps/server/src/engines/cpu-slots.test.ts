import { describe, expect, it } from 'vitest';
import { JobQueue } from './job-queue.js';

/** A job the test finishes by hand, recording when it started. */
function deferredJob(name: string, started: string[]) {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const job = () => {
    started.push(name);
    return done;
  };
  return { job, finish: () => finish(name), fail: (error: Error) => fail(error) };
}

/** Lets queued promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('JobQueue', () => {
  it('runs at most `concurrency` jobs at once and starts the rest in submission order', async () => {
    const queue = new JobQueue(2);
    const started: string[] = [];
    const jobs = ['a', 'b', 'c', 'd'].map((name) => deferredJob(name, started));
    const results = jobs.map((j) => queue.run(j.job));
    await settle();
    expect(started).toEqual(['a', 'b']);

    jobs[1]?.finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);

    jobs[0]?.finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);

    jobs[2]?.finish();
    jobs[3]?.finish();
    await expect(Promise.all(results)).resolves.toEqual(['a', 'b', 'c', 'd']);
  });

  it('frees the slot of a job that fails, and passes its error on', async () => {
    const queue = new JobQueue(1);
    const started: string[] = [];
    const first = deferredJob('first', started);
    const second = deferredJob('second', started);
    const firstResult = queue.run(first.job);
    const secondResult = queue.run(second.job);
    first.fail(new Error('tool crashed'));
    await expect(firstResult).rejects.toThrow('tool crashed');
    await settle();
    expect(started).toEqual(['first', 'second']);
    second.finish();
    await expect(secondResult).resolves.toBe('second');
  });

  it('turns a job that throws synchronously into a rejection and keeps going', async () => {
    const queue = new JobQueue(1);
    const thrown = queue.run(() => {
      throw new Error('sync');
    });
    await expect(thrown).rejects.toThrow('sync');
    await expect(queue.run(async () => 'next')).resolves.toBe('next');
  });

  it('never starts a queued job whose signal aborts while it waits', async () => {
    const queue = new JobQueue(1);
    const started: string[] = [];
    const running = deferredJob('running', started);
    const waiting = deferredJob('waiting', started);
    const after = deferredJob('after', started);
    const controller = new AbortController();
    const runningResult = queue.run(running.job);
    const waitingResult = queue.run(waiting.job, controller.signal);
    const afterResult = queue.run(after.job);

    controller.abort(new Error('client went away'));
    await expect(waitingResult).rejects.toThrow('client went away');
    running.finish();
    await settle();
    expect(started).toEqual(['running', 'after']);
    after.finish();
    await expect(Promise.all([runningResult, afterResult])).resolves.toEqual(['running', 'after']);
  });

  it('refuses a job whose signal has already aborted', async () => {
    const queue = new JobQueue(1);
    const started: string[] = [];
    const job = deferredJob('job', started);
    await expect(queue.run(job.job, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    expect(started).toEqual([]);
  });

  it('does not abort a job that has already started', async () => {
    const queue = new JobQueue(1);
    const started: string[] = [];
    const job = deferredJob('job', started);
    const controller = new AbortController();
    const result = queue.run(job.job, controller.signal);
    controller.abort();
    job.finish();
    await expect(result).resolves.toBe('job');
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects concurrency %s', (concurrency) => {
    expect(() => new JobQueue(concurrency)).toThrow(RangeError);
  });
});
