// The shape every API command shares: run the items through the batch runner with progress, report
// each as it settles and all of them at the end (human or --json), and throw when any failed so
// bin.ts can pick the exit code.
import { setMaxListeners } from 'node:events';
import {
  AuthenticationError,
  ConnectionError,
  ConverterUnavailableError,
  InsufficientStorageError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
} from '@pdn/sdk';
import { failure, type Outcome, runBatch } from './batch.js';
import type { CommandContext } from './context.js';
import { OperationsFailedError } from './errors.js';
import { describeInput } from './format.js';
import {
  commandReport,
  errorReport,
  type ItemReport,
  type ItemSuccess,
  itemReport,
  type OutputReport,
  type SkipReason,
  skippedReport,
} from './report.js';
import type { HumanView } from './reporter.js';
import { isUnsent, markIfUnsent } from './unsent.js';

/** An input left out before any request, and the existing output when that is why. */
export interface Skip {
  reason: SkipReason;
  outputs?: OutputReport[];
}

export interface Operations<I> {
  command: string;
  items: readonly I[];
  /** The `input` field of each item's report. */
  input: (item: I) => ItemReport['input'];
  /** Decided for every item before the first request; a skipped item costs no call. */
  skip?: (item: I) => Promise<Skip | undefined>;
  /**
   * Runs the items not skipped, reporting through `hooks`: `eachItem(work)` for one call per item,
   * or `runJobs` (run-jobs.ts) to submit every item as a job, then collect them.
   */
  execute: (items: readonly I[], hooks: BatchHooks<I>) => Promise<Outcome<ItemSuccess>[]>;
  view: HumanView;
}

/** How an executor reports as it goes: each item's line as it settles, and the spinner. */
export interface BatchHooks<I> {
  settled(item: I, outcome: Outcome<ItemSuccess>): void;
  /** The spinner's text (after the files-done count): `phase` of `item`, e.g. "uploading" a.pdf. */
  progress(item: I, phase: string): void;
  /** Items settled so far, for the count. */
  done(count: number): void;
}

/**
 * The server cannot take the work, whatever the input: it is shutting down (503, still so after the
 * SDK's retries), its disk is full (507, which the SDK does not retry), or it has no converter for the
 * operation (501 converter_unavailable: every later file would get the same answer).
 */
export function serverUnavailable(error: unknown): boolean {
  return (
    error instanceof ServiceUnavailableError ||
    error instanceof InsufficientStorageError ||
    error instanceof ConverterUnavailableError
  );
}

/**
 * No HTTP answer at all, after the SDK's retries: the server is down or the base URL is wrong, and
 * every later file would fail the same way, so the batch stops at the first one. A timeout is not
 * one: it can be one slow file.
 */
export function serverUnreachable(error: unknown): boolean {
  return error instanceof ConnectionError && !(error instanceof TimeoutError);
}

/**
 * A 401 fails every later call too, and a RateLimitError reaching the CLI means the SDK would not
 * wait (Retry-After beyond its cap) or ran out of retries: starting more work would only burn calls
 * (the batch stops starting new work and reports which files were not processed). So does a
 * server that cannot work now or cannot be reached.
 */
export function stopsBatch(error: unknown): boolean {
  return (
    error instanceof AuthenticationError ||
    error instanceof RateLimitError ||
    serverUnavailable(error) ||
    serverUnreachable(error)
  );
}

/**
 * Abort listeners one item may hold on the Ctrl-C signal at once: its request or download stream in
 * the SDK, and the file being written. Node warns past 10 listeners (MaxListenersExceededWarning on
 * stderr), which `--concurrency 4` or more reaches without any leak.
 */
const listenersPerItem = 3;

export async function runOperations<I>(ctx: CommandContext, operations: Operations<I>): Promise<void> {
  const { command, items, input, view } = operations;
  setMaxListeners(Math.max(10, listenersPerItem * ctx.globals.concurrency), ctx.io.signal);
  const skips = await Promise.all(items.map((item) => operations.skip?.(item)));
  const results: (ItemReport | undefined)[] = items.map((item, index) => {
    const skip = skips[index];
    if (skip === undefined) return undefined;
    const report = skippedReport(input(item), skip.reason, skip.outputs);
    ctx.reporter.settled(command, report, view);
    return report;
  });
  const todo = items.filter((_, index) => skips[index] === undefined);
  const total = todo.length;
  let done = 0;
  // "compress 3/10 · downloading 1.2 MiB of a.pdf": files done, then the latest step of any file.
  const show = (text: string) =>
    ctx.reporter.progress(total > 1 ? `${command} ${done}/${total} · ${text}` : text);
  const hooks: BatchHooks<I> = {
    settled: (item, outcome) => ctx.reporter.settled(command, itemReport(input(item), outcome), view),
    progress: (item, phase) => show(`${phase} ${describeInput(input(item))}`.trim()),
    done: (count) => {
      done = count;
      show(`${count} done`);
    },
  };
  const outcomes = await operations.execute(todo, hooks);
  // Inputs whose work never reached the server (it could not be reached) were not tried: skipped,
  // and the command's own error says why; unless some answer was lost on the way (unsent.ts).
  const unreached = ctx.lostAnswers
    ? undefined
    : outcomes.map(unsentError).find((error) => error !== undefined);
  let next = 0;
  const report = commandReport(
    command,
    results.map((skipped, index) => {
      if (skipped !== undefined) return skipped;
      const outcome = outcomes[next++] as (typeof outcomes)[number];
      const item = input(items[index] as I);
      if (unreached !== undefined && unsentError(outcome) !== undefined)
        return skippedReport(item, 'server_unreachable');
      return itemReport(item, outcome);
    }),
    unreached === undefined ? null : errorReport(unreached),
  );
  ctx.reporter.finish(report, view);
  if (!report.ok) {
    const failures = outcomes.flatMap((outcome) => (outcome.status === 'failed' ? [outcome.error] : []));
    throw new OperationsFailedError(failures, report.summary.not_processed);
  }
}

/** The failure that kept an item's work from the server, if that is how it ended. */
function unsentError(outcome: Outcome<ItemSuccess>): unknown {
  if (outcome.status === 'failed' && isUnsent(outcome.error)) return outcome.error;
  if (outcome.status === 'not_processed' && isUnsent(outcome.reason)) return outcome.reason;
  return undefined;
}

/**
 * The executor of one call per item: `work` on each, `--concurrency` at a time, starting no new item
 * after a `stopsBatch` error or Ctrl-C.
 */
export function eachItem<I>(
  ctx: CommandContext,
  work: (item: I, progress: (phase: string) => void) => Promise<ItemSuccess>,
): Operations<I>['execute'] {
  return (todo, hooks) =>
    runBatch(
      todo,
      async (item) => {
        try {
          const value = await work(item, (phase) => hooks.progress(item, phase));
          hooks.settled(item, { status: 'succeeded', value });
          return value;
        } catch (error) {
          ctx.noteFailure(error);
          markIfUnsent(error);
          hooks.settled(item, failure(error, ctx.io.signal));
          throw error;
        }
      },
      {
        concurrency: ctx.globals.concurrency,
        stopsBatch,
        signal: ctx.io.signal,
        onSettled: (settled) => hooks.done(settled),
      },
    );
}
