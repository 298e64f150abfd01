// The pages of one document as units of work through the server's CPU slots: at most
// `concurrency` of its pages queued at once, so other requests' work takes its turn between pages
// instead of waiting behind a 300-page scan (the slots are first come, first served); progress a page
// at a time; the first failure stops the pages not yet started.
import type { CpuSlots } from '../cpu-slots.js';
import type { OcrPdfProgress } from './types.js';

export interface PageLanes {
  cpuSlots: CpuSlots;
  concurrency: number;
}

export async function readInLanes<R>(
  pages: readonly number[],
  lanes: PageLanes,
  jobSignal: AbortSignal,
  onProgress: OcrPdfProgress,
  readOne: (page: number, signal: AbortSignal) => Promise<R>,
): Promise<Map<number, R>> {
  const stop = new AbortController();
  const signal = AbortSignal.any([jobSignal, stop.signal]);
  const reads = new Map<number, R>();
  const waiting = [...pages];
  onProgress(0, pages.length);
  const lane = async () => {
    for (let page = waiting.shift(); page !== undefined; page = waiting.shift()) {
      await lanes.cpuSlots.run(async () => {
        reads.set(page, await readOne(page, signal));
        onProgress(reads.size, pages.length);
      }, signal);
    }
  };
  const running = Array.from({ length: Math.max(1, Math.min(lanes.concurrency, pages.length)) }, () =>
    lane().catch((error: unknown) => {
      stop.abort(error);
      throw error;
    }),
  );
  const settled = await Promise.allSettled(running);
  const failed = settled.find((result) => result.status === 'rejected');
  // The first failure, not the aborts it caused in the other lanes.
  if (failed !== undefined) throw stop.signal.reason ?? (failed as PromiseRejectedResult).reason;
  return reads;
}
