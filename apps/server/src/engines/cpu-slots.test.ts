import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { CpuSlots } from './cpu-slots.js';
import { deferredTask, settle } from './deferred-tasks.js';

describe('CpuSlots', () => {
  it('runs at most `concurrency` tasks at once and starts the rest in submission order', async () => {
    const slots = new CpuSlots(2);
    const started: string[] = [];
    const tasks = ['a', 'b', 'c', 'd'].map((name) => deferredTask(name, started));
    const results = tasks.map((j) => slots.run(j.task));
    await settle();
    expect(started).toEqual(['a', 'b']);

    tasks[1]?.finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);

    tasks[0]?.finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);

    tasks[2]?.finish();
    tasks[3]?.finish();
    await expect(Promise.all(results)).resolves.toEqual(['a', 'b', 'c', 'd']);
  });

  it('frees the slot of a task that fails, and passes its error on', async () => {
    const slots = new CpuSlots(1);
    const started: string[] = [];
    const first = deferredTask('first', started);
    const second = deferredTask('second', started);
    const firstResult = slots.run(first.task);
    const secondResult = slots.run(second.task);
    first.fail(new Error('tool crashed'));
    await expect(firstResult).rejects.toThrow('tool crashed');
    await settle();
    expect(started).toEqual(['first', 'second']);
    second.finish();
    await expect(secondResult).resolves.toBe('second');
  });

  it('turns a task that throws synchronously into a rejection and keeps going', async () => {
    const slots = new CpuSlots(1);
    const thrown = slots.run(() => {
      throw new Error('sync');
    });
    await expect(thrown).rejects.toThrow('sync');
    await expect(slots.run(async () => 'next')).resolves.toBe('next');
  });

  it('never starts a queued task whose signal aborts while it waits', async () => {
    const slots = new CpuSlots(1);
    const started: string[] = [];
    const running = deferredTask('running', started);
    const waiting = deferredTask('waiting', started);
    const after = deferredTask('after', started);
    const controller = new AbortController();
    const runningResult = slots.run(running.task);
    const waitingResult = slots.run(waiting.task, controller.signal);
    const afterResult = slots.run(after.task);

    controller.abort(new Error('client went away'));
    await expect(waitingResult).rejects.toThrow('client went away');
    running.finish();
    await settle();
    expect(started).toEqual(['running', 'after']);
    after.finish();
    await expect(Promise.all([runningResult, afterResult])).resolves.toEqual(['running', 'after']);
  });

  it('refuses a task whose signal has already aborted', async () => {
    const slots = new CpuSlots(1);
    const started: string[] = [];
    const task = deferredTask('task', started);
    await expect(slots.run(task.task, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    expect(started).toEqual([]);
  });

  it('does not abort a task that has already started', async () => {
    const slots = new CpuSlots(1);
    const started: string[] = [];
    const task = deferredTask('task', started);
    const controller = new AbortController();
    const result = slots.run(task.task, controller.signal);
    controller.abort();
    task.finish();
    await expect(result).resolves.toBe('task');
  });

  it('starts work that asked for a spare slot only when no task of run() is waiting', async () => {
    const slots = new CpuSlots(1);
    const started: string[] = [];
    const first = deferredTask('first', started);
    const spare = deferredTask('spare', started);
    const job = deferredTask('job', started);
    const results = [slots.run(first.task), slots.whenSpare(spare.task), slots.run(job.task)];
    first.finish();
    await settle();
    expect(started).toEqual(['first', 'job']);
    job.finish();
    await settle();
    expect(started).toEqual(['first', 'job', 'spare']);
    spare.finish();
    await expect(Promise.all(results)).resolves.toEqual(['first', 'spare', 'job']);
  });

  it('is spare only while a slot is free and no task waits for one', async () => {
    const slots = new CpuSlots(2);
    const spareAt: boolean[] = [slots.spare];
    const first = deferredTask('first', []);
    const second = deferredTask('second', []);
    const waiting = deferredTask('waiting', []);
    const results = [slots.run(first.task)];
    spareAt.push(slots.spare);
    results.push(slots.run(second.task), slots.whenSpare(waiting.task));
    spareAt.push(slots.spare);
    first.finish();
    await settle();
    // The freed slot went to the waiting task.
    spareAt.push(slots.spare);
    second.finish();
    await settle();
    spareAt.push(slots.spare);
    waiting.finish();
    await Promise.all(results);
    spareAt.push(slots.spare);
    expect(spareAt).toEqual([true, true, false, false, true, true]);
  });

  // A job's log lines and tool report live in its async context; the task that frees the slot is
  // another job's.
  it('runs a queued task in the context of the job that queued it, not the one that freed its slot', async () => {
    const slots = new CpuSlots(1);
    const job = new AsyncLocalStorage<string>();
    const first = deferredTask('first', []);
    const running = job.run('A', () => slots.run(first.task));
    const queued = job.run('B', () => slots.whenSpare(async () => job.getStore()));
    const inRun = job.run('C', () => slots.run(async () => job.getStore()));
    job.run('A', () => first.finish());
    await running;
    await expect(Promise.all([inRun, queued])).resolves.toEqual(['C', 'B']);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects concurrency %s', (concurrency) => {
    expect(() => new CpuSlots(concurrency)).toThrow(RangeError);
  });
});
