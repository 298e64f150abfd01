// The operations as jobs. A batch submits every input first, then collects: once a
// file is uploaded its work is the server's, so a dropped connection or a killed `pdn` loses no
// upload, and the run-state file (run-state.ts) lets `--resume` collect the jobs of an interrupted
// run instead of submitting them again. `--async` only submits, and reports the jobs.
import { randomUUID } from 'node:crypto';
import {
  ApiError,
  type Job,
  type JobStatus,
  NotFoundError,
  type Operation,
  type OperationParams,
  type OperationResults,
  TooManyJobsError,
} from '@pdn/sdk';
import { failure, type Outcome, runBatch } from './batch.js';
import type { Client, CommandContext } from './context.js';
import { describeInput, formatJobProgress } from './format.js';
import type { ItemSuccess, OutputReport } from './report.js';
import type { HumanView } from './reporter.js';
import { eachItem, type Operations, runOperations, stopsBatch } from './run-operations.js';
import { RunState } from './run-state.js';
import { isUnsent, markIfUnsent } from './unsent.js';

/** What a command adds to the job machinery: its parameters and what it does with a result. */
export interface JobSteps<I, O extends Operation> {
  operation: O;
  /** The spinner's word while the server works ("compressing"). */
  doing: string;
  /** What the job's progress counts, when it is worth saying ("pages"). */
  unit?: string;
  /** Checked before the upload, so a doomed item costs no call (e.g. its output exists). */
  prepare?: (item: I) => Promise<void>;
  /** The SDK parameters of `item`'s job, its upload included. */
  params: (item: I, progress: (phase: string) => void) => Promise<OperationParams[O]>;
  /** Writes or reports the result's outputs. */
  deliver: (
    item: I,
    result: OperationResults[O],
    progress: (phase: string) => void,
  ) => Promise<OutputReport[]>;
}

export interface JobFlags {
  /** --async: submit, report the jobs, collect nothing. */
  async?: boolean;
  /** --resume: collect the jobs the run-state file names rather than submit those inputs again. */
  resume?: boolean;
}

export interface JobRun<I, O extends Operation> extends Omit<Operations<I>, 'execute'> {
  /** What besides the inputs changes what the jobs make (level, ranges, language): with the inputs, it names the run. */
  options: Record<string, unknown>;
  /** Where the run-state file is kept: the folder outputs go to (`-o`), else the current one. */
  stateFolder: string;
  flags: JobFlags;
  steps: JobSteps<I, O>;
}

/** Runs a command whose items are jobs, reporting as every command does (run-operations.ts). */
export async function runJobs<I, O extends Operation>(
  ctx: CommandContext,
  client: Client,
  run: JobRun<I, O>,
): Promise<void> {
  const { command, items, input, skip, view, flags } = run;
  if (flags.async === true) {
    return runOperations(ctx, {
      command,
      items,
      input,
      ...(skip === undefined ? {} : { skip }),
      execute: submitOnly(ctx, client, run),
      view: submittedView,
    });
  }
  const state = RunState.for(run.stateFolder, {
    command,
    inputs: items.map((item) => input(item) ?? ''),
    options: run.options,
  });
  await openState(ctx, state, flags.resume === true);
  return runOperations(ctx, {
    command,
    items,
    input,
    // The interrupted run delivered these already: --resume does only what it left.
    skip: async (item) => (state.wasCollected(input(item)) ? { reason: 'collected' } : skip?.(item)),
    execute: submitThenCollect(ctx, client, run, state),
    view,
  });
}

/** Submits, and when the plan's cap on unfinished jobs is reached, waits for one of ours to end. */
async function submit<I, O extends Operation>(
  ctx: CommandContext,
  client: Client,
  steps: JobSteps<I, O>,
  item: I,
  unfinished: Job[],
  progress: (phase: string) => void,
  idempotencyKey?: string,
): Promise<Job<O>> {
  const signal = ctx.io.signal;
  const params = await steps.params(item, progress);
  for (;;) {
    try {
      return await client.pdn.jobs.submit(steps.operation, { ...params, signal, idempotencyKey });
    } catch (error) {
      const oldest = unfinished.shift();
      if (!(error instanceof TooManyJobsError) || oldest === undefined) throw error;
      progress('waiting for a job of this run to end before sending');
      await client.pdn.jobs.wait(oldest.id, { signal }).catch(() => signal.throwIfAborted());
    }
  }
}

/** --async: each input submitted, its job reported; nothing collected. */
function submitOnly<I, O extends Operation>(
  ctx: CommandContext,
  client: Client,
  { input, steps }: JobRun<I, O>,
): Operations<I>['execute'] {
  return eachItem(ctx, async (item, progress) => {
    const job = await submit(ctx, client, steps, item, [], progress);
    ctx.reporter.answered(input(item), job);
    return { requestId: job.requestId, data: { ...job }, outputs: [], jobId: job.id };
  });
}

/** Every input submitted (or found again with --resume), then every job collected. */
function submitThenCollect<I, O extends Operation>(
  ctx: CommandContext,
  client: Client,
  run: JobRun<I, O>,
  state: RunState,
): Operations<I>['execute'] {
  const { input, steps, flags } = run;
  const signal = ctx.io.signal;
  return async (todo, hooks) => {
    const jobs = new Map<I, Job>();
    const unfinished: Job[] = [];
    /** Inputs whose submission never connected: their kept keys may go, if nothing else was lost. */
    const unsent: unknown[] = [];

    // Phase 1: every input becomes a job (or finds the one an interrupted run left).
    const submitted = await runBatch(
      todo,
      async (item) => {
        const progress = (phase: string) => hooks.progress(item, phase);
        try {
          const key = input(item);
          let job: Job | undefined = flags.resume === true ? await reattach(client, state, key) : undefined;
          if (job === undefined) {
            await steps.prepare?.(item);
            job = await submitRecorded(state, key, (idempotencyKey) =>
              submit(ctx, client, steps, item, unfinished, progress, idempotencyKey),
            );
            ctx.reporter.answered(key, job);
          }
          jobs.set(item, job);
          unfinished.push(job);
          return job;
        } catch (error) {
          ctx.noteFailure(error);
          markIfUnsent(error);
          if (isUnsent(error)) unsent.push(input(item));
          hooks.settled(item, failure(error, signal));
          throw error;
        }
      },
      { concurrency: ctx.globals.concurrency, stopsBatch, signal },
    );

    // Phase 2: collect them in the order given, `--concurrency` at a time.
    const ended = new Set<I>();
    const waiting = todo.filter((item) => jobs.has(item));
    const collected = await runBatch(
      waiting,
      async (item) => {
        const job = jobs.get(item) as Job<O>;
        const progress = (phase: string) => hooks.progress(item, phase);
        let status: JobStatus = job.status;
        try {
          const result = await job.wait({
            signal,
            onProgress: (seen) => {
              status = seen.status;
              progress(formatJobProgress(seen, steps.doing, steps.unit));
            },
          });
          ended.add(item);
          const outputs = await steps.deliver(item, result, progress);
          await state.collected(input(item));
          const value: ItemSuccess = {
            requestId: result.requestId,
            data: { ...result },
            outputs,
            jobId: job.id,
          };
          hooks.settled(item, { status: 'succeeded', value });
          return value;
        } catch (error) {
          // A job that failed or was canceled is done with; a run again submits its input afresh.
          if (status === 'failed' || status === 'canceled') {
            ended.add(item);
            await state.forget(input(item));
          }
          hooks.settled(item, failure(error, signal));
          throw error;
        }
      },
      { concurrency: ctx.globals.concurrency, stopsBatch, signal, onSettled: (done) => hooks.done(done) },
    );

    const left = [...jobs].flatMap(([item, job]) => (ended.has(item) ? [] : [job]));
    // A submission that never connected left nothing on the server to collect later.
    if (!ctx.lostAnswers) for (const key of unsent) await state.forget(key);
    await closeState(ctx, client, state, signal, left);
    const byItem = new Map(waiting.map((item, index) => [item, collected[index]]));
    return todo.map((item, index) => byItem.get(item) ?? (submitted[index] as Outcome<ItemSuccess>));
  };
}

/**
 * Submits `input` with an Idempotency-Key kept in the run-state file before the request leaves, and
 * records the job it answers. A run killed in between leaves the key, which the next `--resume` sends
 * again: the server answers with the job the first request made, if it made one, so no input runs
 * twice (openapi.yaml, "Idempotency"). An answer that is an error made no job, and frees the key.
 */
async function submitRecorded<O extends Operation>(
  state: RunState,
  input: unknown,
  send: (idempotencyKey: string) => Promise<Job<O>>,
): Promise<Job<O>> {
  const idempotencyKey = state.unansweredKey(input) ?? randomUUID();
  await state.submitting(input, idempotencyKey);
  let job: Job<O>;
  try {
    job = await send(idempotencyKey);
  } catch (error) {
    // Without an answer (connection lost, stopped) the server may have the job: the key stays.
    if (error instanceof ApiError) await state.forget(input);
    throw error;
  }
  await state.record(input, job.id);
  return job;
}

/** Without --resume, an earlier run's leftovers are named and set aside; with it, read. */
async function openState(ctx: CommandContext, state: RunState, resume: boolean): Promise<void> {
  const found = await state.load();
  if (resume) {
    ctx.reporter.notice(
      found
        ? `resuming: ${state.left} job(s) of the interrupted run are collected, not submitted again`
        : 'resuming: no interrupted run of this command was found here; submitting every input',
    );
  } else if (found) {
    ctx.reporter.notice(
      `an interrupted run of this command left ${state.left} job(s) in ${state.path}; submitting again (--resume would have collected them)`,
    );
    await state.clear();
  }
}

/**
 * The job an interrupted run submitted for `key`, if it can still give its result; a job the server
 * no longer knows, canceled, or whose outputs expired is forgotten, and the input submitted again.
 */
async function reattach(client: Client, state: RunState, key: unknown): Promise<Job | undefined> {
  const id = state.jobOf(key);
  if (id === undefined) return undefined;
  try {
    const job = await client.pdn.jobs.get(id);
    const gone = job.status === 'canceled' || job.expired;
    if (!gone) return job;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  await state.forget(key);
  return undefined;
}

/**
 * After the batch: Ctrl-C cancels the jobs not collected (it stops the work, as before jobs); a
 * run cut short otherwise (server unreachable, rate limit mid-collection) keeps the file for
 * `--resume`; a run with nothing left to collect removes it.
 */
async function closeState(
  ctx: CommandContext,
  client: Client,
  state: RunState,
  signal: AbortSignal,
  left: Job[],
): Promise<void> {
  if (signal.aborted) {
    await Promise.all(
      left.map((job) => client.pdn.jobs.cancel(job.id, { maxRetries: 0, timeout: 5_000 }).catch(() => {})),
    );
    await state.clear();
  } else if (state.left === 0) {
    await state.clear();
  } else {
    ctx.reporter.notice(
      `${state.left} job(s) go on on the server; run the same command with --resume to collect them (${state.path})`,
    );
  }
}

/** How `--async` shows a submitted job: its id, to give `pdn jobs wait`. */
const submittedView: HumanView = {
  essential: true,
  succeeded(item, style) {
    const job = item.data as Job;
    return `${style.green('✔')} ${describeInput(item.input)} → job ${style.bold(job.id)} (${job.status})`;
  },
};
