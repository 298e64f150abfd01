// The shape every API command shares: run the items through the batch runner with progress, report
// them (human or --json), and throw when any failed so bin.ts can pick the exit code.
import { setMaxListeners } from 'node:events';
import {
  AuthenticationError,
  InsufficientStorageError,
  RateLimitError,
  ServiceUnavailableError,
} from '@pdn/sdk';
import { runBatch } from './batch.js';
import type { CommandContext } from './context.js';
import { OperationsFailedError } from './errors.js';
import { describeInput } from './format.js';
import { commandReport, type ItemReport, type ItemSuccess, itemReport } from './report.js';
import type { HumanView } from './reporter.js';

export interface Operations<I> {
  command: string;
  items: readonly I[];
  /** The `input` field of each item's report. */
  input: (item: I) => ItemReport['input'];
  work: (item: I, progress: (phase: string) => void) => Promise<ItemSuccess>;
  view: HumanView;
}

/**
 * The server cannot take work now, whatever the input (issue #11): it is shutting down (503, still
 * so after the SDK's retries) or its disk is full (507, which the SDK does not retry).
 */
export function serverUnavailable(error: unknown): boolean {
  return error instanceof ServiceUnavailableError || error instanceof InsufficientStorageError;
}

/**
 * A 401 fails every later call too, and a RateLimitError reaching the CLI means the SDK would not
 * wait (Retry-After beyond its cap) or ran out of retries: starting more work would only burn calls
 * (issue #5: "stops starting new work and reports which files were not processed"). So does a
 * server that cannot work now.
 */
export function stopsBatch(error: unknown): boolean {
  return error instanceof AuthenticationError || error instanceof RateLimitError || serverUnavailable(error);
}

/**
 * Abort listeners one item may hold on the Ctrl-C signal at once: its request or download stream in
 * the SDK, and the file being written. Node warns past 10 listeners (MaxListenersExceededWarning on
 * stderr), which `--concurrency 4` or more reaches without any leak.
 */
const listenersPerItem = 3;

export async function runOperations<I>(ctx: CommandContext, operations: Operations<I>): Promise<void> {
  const { command, items, input, work, view } = operations;
  setMaxListeners(Math.max(10, listenersPerItem * ctx.globals.concurrency), ctx.io.signal);
  const total = items.length;
  let done = 0;
  // "compress 3/10 · downloading 1.2 MiB of a.pdf": files done, then the latest step of any file.
  const show = (text: string) =>
    ctx.reporter.progress(total > 1 ? `${command} ${done}/${total} · ${text}` : text);
  const outcomes = await runBatch(
    items,
    (item) => work(item, (phase) => show(`${phase} ${describeInput(input(item))}`)),
    {
      concurrency: ctx.globals.concurrency,
      stopsBatch,
      signal: ctx.io.signal,
      onSettled: (settled) => {
        done = settled;
        show(`${settled} done`);
      },
    },
  );
  const report = commandReport(
    command,
    outcomes.map((outcome, index) => itemReport(input(items[index] as I), outcome)),
  );
  ctx.reporter.finish(report, view);
  if (!report.ok) {
    const failures = outcomes.flatMap((outcome) => (outcome.status === 'failed' ? [outcome.error] : []));
    throw new OperationsFailedError(failures, report.summary.not_processed);
  }
}
