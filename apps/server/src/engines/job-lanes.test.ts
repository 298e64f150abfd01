import { describe, expect, it } from 'vitest';
import { CpuSlots } from './cpu-slots.js';
import { deferredTask, settle } from './deferred-tasks.js';
import { JobLanes } from './job-lanes.js';

/** A job holding one of `slots` until the returned `end` is called, with its lanes. */
function jobIn(slots: CpuSlots, signal = new AbortController().signal) {
  let end!: () => void;
  const held = slots.run(
    () =>
      new Promise<void>((resolve) => {
        end = resolve;
      }),
  );
  return {
    lanes: new JobLanes(slots, signal),
    end: () => {
      end();
      return held;
    },
  };
}

describe('JobLanes', () => {
  it('runs a job one tool at a time in its own slot when no slot is spare, the main line first', async () => {
    const slots = new CpuSlots(1);
    const job = jobIn(slots);
    const started: string[] = [];
    const render = deferredTask('render', started);
    const text = deferredTask('text', started);
    const rewrite = deferredTask('rewrite', started);
    const results = [
      job.lanes.beside(render.task),
      job.lanes.beside(text.task),
      job.lanes.main(rewrite.task),
    ];
    await settle();
    expect(started).toEqual(['render']);
    render.finish();
    await settle();
    expect(started).toEqual(['render', 'rewrite']);
    rewrite.finish();
    await settle();
    expect(started).toEqual(['render', 'rewrite', 'text']);
    text.finish();
    await expect(Promise.all(results)).resolves.toEqual(['render', 'text', 'rewrite']);
    await job.end();
  });

  it('runs side work beside the main line in a spare slot, and gives the slot back', async () => {
    const slots = new CpuSlots(2);
    const job = jobIn(slots);
    const started: string[] = [];
    const rewrite = deferredTask('rewrite', started);
    const render = deferredTask('render', started);
    const rewritten = job.lanes.main(rewrite.task);
    const rendered = job.lanes.beside(render.task);
    await settle();
    expect(started).toEqual(['rewrite', 'render']);
    render.finish();
    await expect(rendered).resolves.toBe('render');
    // The spare slot is free again: another job starts at once.
    const other = deferredTask('other job', started);
    const otherResult = slots.run(other.task);
    await settle();
    expect(started).toEqual(['rewrite', 'render', 'other job']);
    other.finish();
    rewrite.finish();
    await expect(Promise.all([rewritten, otherResult])).resolves.toEqual(['rewrite', 'other job']);
    await job.end();
  });

  it('lets a waiting job have a freed slot before side work', async () => {
    const slots = new CpuSlots(2);
    const job = jobIn(slots);
    const started: string[] = [];
    const busy = deferredTask('busy', started);
    const busyResult = slots.run(busy.task);
    const rewrite = deferredTask('rewrite', started);
    const rewritten = job.lanes.main(rewrite.task);
    const render = deferredTask('render', started);
    const rendered = job.lanes.beside(render.task);
    const next = deferredTask('next job', started);
    const nextResult = slots.run(next.task);
    busy.finish();
    await settle();
    expect(started).toEqual(['busy', 'rewrite', 'next job']);
    rewrite.finish();
    await settle();
    expect(started).toEqual(['busy', 'rewrite', 'next job', 'render']);
    render.finish();
    next.finish();
    await expect(Promise.all([busyResult, rewritten, rendered, nextResult])).resolves.toEqual([
      'busy',
      'rewrite',
      'render',
      'next job',
    ]);
    await job.end();
  });

  it('passes a failure on and keeps the lane going', async () => {
    const slots = new CpuSlots(1);
    const job = jobIn(slots);
    const started: string[] = [];
    const failing = deferredTask('failing', started);
    const after = deferredTask('after', started);
    const failed = job.lanes.main(failing.task);
    const afterResult = job.lanes.beside(after.task);
    failing.fail(new Error('tool crashed'));
    await expect(failed).rejects.toThrow('tool crashed');
    await settle();
    expect(started).toEqual(['failing', 'after']);
    after.finish();
    await expect(afterResult).resolves.toBe('after');
    await job.end();
  });

  it('never starts the turns still waiting when the job is aborted', async () => {
    const slots = new CpuSlots(1);
    const controller = new AbortController();
    const job = jobIn(slots, controller.signal);
    const started: string[] = [];
    const running = deferredTask('running', started);
    const waiting = deferredTask('waiting', started);
    const runningResult = job.lanes.main(running.task);
    const waitingResult = job.lanes.beside(waiting.task);
    controller.abort(new Error('client went away'));
    await expect(waitingResult).rejects.toThrow('client went away');
    await expect(job.lanes.beside(waiting.task)).rejects.toThrow('client went away');
    running.finish();
    await expect(runningResult).resolves.toBe('running');
    await settle();
    expect(started).toEqual(['running']);
    await job.end();
  });
});
