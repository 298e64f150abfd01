// The expected wait of a new synchronous call, from the queue as it stands: tables of queues and what
// a call of user 1 (Premium unless said) would wait, each job taking the given time.
import { describe, expect, it } from 'vitest';
import type { Plan } from '../accounts/plans.js';
import type { UnfinishedJobs } from '../jobs/job-store.js';
import { expectedWaitMs, meanDurationMs, type QueueState, QueueWait } from './queue-wait.js';

const job = (
  userId: number,
  status: 'queued' | 'running',
  count: number,
  operation: UnfinishedJobs['operation'] = 'merge',
  plan: Plan = 'premium',
): UnfinishedJobs => ({
  userId,
  plan,
  operation,
  mode: 'sync',
  status,
  count,
});

const MEANS = { merge: 100, compress: 1_000, ocr_pdf: 10_000 } as Record<string, number>;

const state = (unfinished: UnfinishedJobs[], slots = 2, uploading: [number, number][] = []): QueueState => ({
  unfinished,
  uploading: new Map(uploading),
  slots,
  meanMs: (operation) => MEANS[operation] ?? 1_000,
});

const cases: [string, { given: QueueState; want: number; plan?: Plan }][] = [
  ['an idle server', { given: state([]), want: 0 }],
  ['a slot still free', { given: state([job(2, 'running', 1)]), want: 0 }],
  // Two merges half done: 2 x 50 ms of work left over 2 slots.
  ['every slot busy, nothing queued', { given: state([job(2, 'running', 2)]), want: 50 }],
  // One of user 2's jobs starts before user 1's first: (100 + 100) / 2.
  [
    "another user's long queue: only one of its jobs goes first",
    { given: state([job(2, 'running', 2), job(2, 'queued', 50)]), want: 100 },
  ],
  // User 1's own 3 queued jobs go first, and up to 4 of user 2's: (100 + 300 + 400) / 2.
  [
    'its own queue, and as many turns of another user plus one',
    { given: state([job(2, 'running', 2), job(1, 'queued', 3), job(2, 'queued', 10)]), want: 400 },
  ],
  // Long jobs ahead weigh more: two OCR jobs half done and one queued ahead, over 2 slots.
  [
    'long jobs running and queued',
    { given: state([job(2, 'running', 2, 'ocr_pdf'), job(3, 'queued', 1, 'ocr_pdf')]), want: 10_000 },
  ],
  // Calls admitted here and still uploading will queue: one of user 3's four goes first.
  ['calls uploading here', { given: state([job(2, 'running', 2)], 2, [[3, 4]]), want: 100 }],
  ['no worker at all', { given: state([], 0), want: Number.POSITIVE_INFINITY }],
  // An Enterprise user starts 8 jobs to a Free user's one: 8 of its merges go first, (100 + 800) / 2.
  [
    "a Free caller behind an Enterprise user's queue",
    {
      given: state([
        job(2, 'running', 2, 'merge', 'enterprise'),
        job(2, 'queued', 20, 'merge', 'enterprise'),
      ]),
      plan: 'free',
      want: 450,
    },
  ],
  // Its 3 own jobs go first, then its fourth: a Free user starts one job to its 8, (100 + 300 + 100) / 2.
  [
    "an Enterprise caller's own queue behind a Free user's",
    {
      given: state([
        job(2, 'running', 2, 'merge', 'free'),
        job(1, 'queued', 3, 'merge', 'enterprise'),
        job(2, 'queued', 10, 'merge', 'free'),
      ]),
      plan: 'enterprise',
      want: 250,
    },
  ],
];

describe('expectedWaitMs', () => {
  it.each(cases)('%s', (_name, { given, want, plan = 'premium' }) => {
    expect(expectedWaitMs(given, { userId: 1, plan }, 'merge')).toBe(want);
  });
});

describe('meanDurationMs', () => {
  const measured = (meanMs: number, count: number) => ({ operation: 'merge' as const, meanMs, count });
  it('takes the typical figure until jobs of the kind ran, then draws toward what they took', () => {
    expect(meanDurationMs(100, undefined)).toBe(100);
    // A server's first few slow jobs move it little; many jobs speak for themselves.
    expect(meanDurationMs(100, measured(400, 5))).toBe(200);
    expect(meanDurationMs(100, measured(50, 990))).toBeCloseTo(50.5);
  });
});

describe('QueueWait', () => {
  it('reads the durations of recent jobs only for a call that would wait', async () => {
    let unfinished = [job(2, 'running', 1)];
    let reads = 0;
    const queueWait = new QueueWait({
      store: {
        unfinishedCounts: async () => unfinished,
        recentDurations: async () => {
          reads += 1;
          return [{ operation: 'merge', meanMs: 1_100, count: 10 }];
        },
      },
      capacity: async () => 2,
    });
    const caller = { userId: 1, plan: 'premium' as const };
    expect(await queueWait.expectedMs(caller, 'merge', new Map())).toBe(0);
    expect(reads).toBe(0);
    // Both slots busy: two merges half done, each of the measured mean drawn toward 100 ms (600 ms).
    unfinished = [job(2, 'running', 2)];
    expect(await queueWait.expectedMs(caller, 'merge', new Map())).toBe(300);
    expect(reads).toBe(1);
  });
});
