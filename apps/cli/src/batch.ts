// Runs one operation per input with bounded parallelism (`--concurrency N`, default 4).
// A failed item does not stop the batch; an error that will fail every later item too (an invalid
// key, a rate limit the SDK would not wait out) stops new work, and the rest are "not processed".

export type Outcome<T> =
  | { status: 'succeeded'; value: T }
  | { status: 'failed'; error: unknown }
  | { status: 'not_processed'; reason: unknown };

export interface BatchOptions {
  concurrency: number;
  /** True for an error after which starting more work is pointless. */
  stopsBatch: (error: unknown) => boolean;
  /** Aborting stops new work the same way (Ctrl-C). */
  signal?: AbortSignal | undefined;
  /** Called as each item settles, for progress. */
  onSettled?: (done: number, total: number) => void;
}

export async function runBatch<I, T>(
  items: readonly I[],
  work: (item: I, index: number) => Promise<T>,
  options: BatchOptions,
): Promise<Outcome<T>[]> {
  const outcomes = new Array<Outcome<T> | undefined>(items.length);
  let next = 0;
  let done = 0;
  let stopReason: { error: unknown } | undefined;

  const worker = async (): Promise<void> => {
    while (next < items.length && stopReason === undefined && !options.signal?.aborted) {
      const index = next++;
      try {
        outcomes[index] = { status: 'succeeded', value: await work(items[index] as I, index) };
      } catch (error) {
        outcomes[index] = failure(error, options.signal);
        if (options.stopsBatch(error)) stopReason ??= { error };
      }
      options.onSettled?.(++done, items.length);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency, items.length));
  await Promise.all(Array.from({ length: workers }, worker));

  const reason = stopReason?.error ?? options.signal?.reason;
  return Array.from(outcomes, (outcome) => outcome ?? { status: 'not_processed', reason });
}

/**
 * How an item that threw ended: failed, unless Ctrl-C stopped it (an upload or a wait in flight then
 * fails with an abort), which is no fault of the item: not processed, for the interruption.
 */
export function failure(error: unknown, signal: AbortSignal | undefined): Outcome<never> {
  return signal?.aborted ? { status: 'not_processed', reason: signal.reason } : { status: 'failed', error };
}
