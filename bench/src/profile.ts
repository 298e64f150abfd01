// How much the bench measures. `--quick` is the CI smoke test: every scenario (but those
// that start deployments of their own, Scenario.fullOnly) runs once on small inputs so a broken
// scenario fails CI, but its figures are not the published ones.
import type { CorpusFile } from './corpus.js';

export interface Profile {
  name: 'full' | 'quick';
  /** Measured repetitions per timed case (after one warm-up). */
  runs: number;
  textPages: readonly number[];
  photoPages: number;
  /** Camera JPEGs at 96 ppi: pages and pixel size of each photo. */
  camera: { pages: number; width: number; height: number };
  scanPages: number;
  screenshotPages: number;
  /** The kinds of compression input made; every kind when absent. */
  compressKinds?: readonly CorpusFile['kind'][];
  fontPages: number;
  /**
   * `runs`: the merge's own repetitions. A merge pair takes well under a second, and its ratio sits near
   * its 1.5 target, where the median of 5 moved by ±10% between runs on a busy machine.
   */
  merge: { files: number; pagesEach: number; runs: number };
  split: { pages: number; ranges: number };
  ocrImages: number;
  /** Page counts of the generated scans OCR of documents makes searchable. */
  ocrPdfPages: readonly number[];
  /** Pages PDF to images draws of each PDF (the first ones); every page when absent. */
  drawnPages?: number;
  /** Office documents converted (the first of the fixtures' samples); every one when absent. */
  officeDocuments?: number;
  /**
   * Conversions timed each way per Office document. A pair takes a tenth of a second, and with 5 the
   * per-document ratios moved by ±20% between runs on a busy machine.
   */
  officeRuns: number;
  /** Copies of the English sample stacked into the throughput page (3 lines each). */
  ocrPageRepeats: number;
  loadSeconds: number;
  autocannonSeconds: number;
  memory: { mergeFiles: number; megabytesEach: number; sdkUploadMegabytes: number; ocrSoakRequests: number };
  /** Rate-limit decisions per each of 50 clients, and small merges per backend. */
  shared: { decisionsPerClient: number; merges: number };
  /** Rounds of the mixed workload (a compress, a merge, a split) per worker setup. */
  scaleOutRounds: number;
  /** Small merges timed each way (job path, synchronous path) for the job overhead. */
  jobRuns: number;
  /**
   * Sharing the server: seconds of the crowd (and of its 2-client baseline) and of the overload, the
   * pages of each long OCR job of the hog, the other user's merges timed beside it.
   */
  sharing: { crowdSeconds: number; overloadSeconds: number; hogPages: number; hogMerges: number };
  /** Another user's jobs whose webhooks are timed, idle and beside the stalled receivers. */
  webhookJobs: number;
  /**
   * Early answers counted for network errors; outages of Redis and of PostgreSQL a synchronous
   * compression of `photoPages` photo pages waits through.
   */
  lostAnswers: { earlyAnswers: number; outages: number; photoPages: number };
  /** What a call costs the shared backends: calls of each kind counted, seconds each idle process is watched. */
  backendCost: { calls: number; idleSeconds: number };
  /** The shared path against embedded: merges each side in a run, and runs per condition. */
  sharedLatency: { samples: number; runs: number };
}

export const FULL: Profile = {
  name: 'full',
  runs: 5,
  textPages: [10, 100, 500],
  photoPages: 4,
  // Four 4-megapixel photos at JPEG quality 90, 3 MB (four camera JPEGs at 96 ppi, 4.4 MB).
  camera: { pages: 4, width: 2400, height: 1800 },
  scanPages: 3,
  screenshotPages: 3,
  fontPages: 20,
  merge: { files: 20, pagesEach: 50, runs: 25 },
  split: { pages: 500, ranges: 10 },
  ocrImages: 6,
  officeRuns: 15,
  ocrPdfPages: [10, 50],
  ocrPageRepeats: 12,
  loadSeconds: 15,
  autocannonSeconds: 5,
  memory: { mergeFiles: 20, megabytesEach: 20, sdkUploadMegabytes: 500, ocrSoakRequests: 120 },
  shared: { decisionsPerClient: 200, merges: 40 },
  scaleOutRounds: 4,
  // Enough for a p99 that is not the single worst run.
  jobRuns: 300,
  sharing: { crowdSeconds: 60, overloadSeconds: 60, hogPages: 20, hogMerges: 10 },
  webhookJobs: 10,
  lostAnswers: { earlyAnswers: 1000, outages: 5, photoPages: 120 },
  backendCost: { calls: 50, idleSeconds: 10 },
  sharedLatency: { samples: 500, runs: 3 },
};

export const QUICK: Profile = {
  name: 'quick',
  runs: 1,
  textPages: [10],
  photoPages: 1,
  camera: { pages: 1, width: 800, height: 600 },
  scanPages: 1,
  screenshotPages: 1,
  // One text, one photo and one scan: every code path of the compression scenarios, a third of the time.
  compressKinds: ['text', 'photo-jpeg', 'scan'],
  fontPages: 2,
  merge: { files: 3, pagesEach: 5, runs: 1 },
  split: { pages: 20, ranges: 3 },
  // One language and one page: the OCR scenarios' code paths, not their figures, are what CI runs.
  ocrImages: 1,
  ocrPdfPages: [1],
  // Two pages: the scenario's code path, not its figures (all ten pages took 40 s on a busy machine).
  drawnPages: 2,
  // Two documents: the scenario's code path (all thirteen, each with a cold LibreOffice, took 43 s).
  officeDocuments: 2,
  officeRuns: 1,
  ocrPageRepeats: 1,
  loadSeconds: 2,
  autocannonSeconds: 1,
  memory: { mergeFiles: 2, megabytesEach: 2, sdkUploadMegabytes: 20, ocrSoakRequests: 4 },
  shared: { decisionsPerClient: 5, merges: 2 },
  scaleOutRounds: 1,
  jobRuns: 3,
  sharing: { crowdSeconds: 3, overloadSeconds: 3, hogPages: 2, hogMerges: 2 },
  webhookJobs: 2,
  lostAnswers: { earlyAnswers: 50, outages: 1, photoPages: 3 },
  backendCost: { calls: 5, idleSeconds: 2 },
  sharedLatency: { samples: 20, runs: 1 },
};
