import { describe, expect, it } from 'vitest';
import { type Outcome, runBatch } from './batch.js';

class Fatal extends Error {}

/** Work that fails for items named "bad" and stops the batch for "fatal". */
async function work(item: string): Promise<string> {
  await Promise.resolve();
  if (item === 'bad') throw new Error('bad input');
  if (item === 'fatal') throw new Fatal('stop');
  return item.toUpperCase();
}

const statuses = (outcomes: Outcome<string>[]) => outcomes.map((outcome) => outcome.status);

describe('runBatch', () => {
  const cases: [string, { items: string[]; concurrency: number; want: Outcome<string>['status'][] }][] = [
    [
      'all succeed',
      { items: ['a', 'b', 'c'], concurrency: 2, want: ['succeeded', 'succeeded', 'succeeded'] },
    ],
    [
      'goes on past a failure',
      { items: ['a', 'bad', 'c'], concurrency: 1, want: ['succeeded', 'failed', 'succeeded'] },
    ],
    [
      'a stopping error leaves the rest not processed',
      {
        items: ['a', 'fatal', 'c', 'd'],
        concurrency: 1,
        want: ['succeeded', 'failed', 'not_processed', 'not_processed'],
      },
    ],
    [
      'work already started when the batch stops still finishes',
      { items: ['fatal', 'b', 'c'], concurrency: 2, want: ['failed', 'succeeded', 'not_processed'] },
    ],
    ['no items', { items: [], concurrency: 4, want: [] }],
  ];
  it.each(cases)('%s', async (_name, { items, concurrency, want }) => {
    const outcomes = await runBatch(items, work, {
      concurrency,
      stopsBatch: (error) => error instanceof Fatal,
    });
    expect(statuses(outcomes)).toEqual(want);
  });

  it('keeps results in input order and never runs more than N at once', async () => {
    let running = 0;
    let peak = 0;
    const items = Array.from({ length: 10 }, (_, i) => `item${i}`);
    const outcomes = await runBatch(
      items,
      async (item, index) => {
        running++;
        peak = Math.max(peak, running);
        // Later items finish first, so order must come from the index, not completion.
        await new Promise((resolve) => setTimeout(resolve, (10 - index) * 2));
        running--;
        return item;
      },
      { concurrency: 3, stopsBatch: () => false },
    );
    expect(peak).toBe(3);
    expect(outcomes.map((outcome) => (outcome.status === 'succeeded' ? outcome.value : null))).toEqual(items);
  });

  it('tells not-processed items why, and stops on abort', async () => {
    const controller = new AbortController();
    const reason = new Error('interrupted');
    const outcomes = await runBatch(
      ['a', 'b', 'c'],
      async (item) => {
        controller.abort(reason);
        return item;
      },
      { concurrency: 1, stopsBatch: () => false, signal: controller.signal },
    );
    expect(outcomes).toEqual([
      { status: 'succeeded', value: 'a' },
      { status: 'not_processed', reason },
      { status: 'not_processed', reason },
    ]);
  });

  it('an item cut short by the abort (an upload in flight) is not processed, not failed', async () => {
    const controller = new AbortController();
    const reason = new Error('interrupted');
    const outcomes = await runBatch(
      ['a', 'b'],
      async () => {
        controller.abort(reason);
        throw new Error('Request was aborted');
      },
      { concurrency: 1, stopsBatch: () => false, signal: controller.signal },
    );
    expect(outcomes).toEqual([
      { status: 'not_processed', reason },
      { status: 'not_processed', reason },
    ]);
  });
});
