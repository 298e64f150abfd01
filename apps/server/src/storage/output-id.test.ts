// A job's outputs are keyed by the job (STYLE.md 17): an attempt run again, on this process or
// another, derives the same keys and overwrites what the first attempt stored instead of adding beside it
// (the stores' own overwrite is in output-store.contract.ts).
import { describe, expect, it } from 'vitest';
import { newOutputId, OUTPUT_ID_PATTERN, outputIdFor } from './output-id.js';

describe('outputIdFor', () => {
  const table: [string, { given: [string, number][]; same: boolean }][] = [
    [
      'one job, one index, derived twice',
      {
        given: [
          ['job_a', 0],
          ['job_a', 0],
        ],
        same: true,
      },
    ],
    [
      'one job, its next output',
      {
        given: [
          ['job_a', 0],
          ['job_a', 1],
        ],
        same: false,
      },
    ],
    [
      'another job, the same index',
      {
        given: [
          ['job_a', 0],
          ['job_b', 0],
        ],
        same: false,
      },
    ],
    [
      'ids that would join alike',
      {
        given: [
          ['job_1', 11],
          ['job_11', 1],
        ],
        same: false,
      },
    ],
  ];

  it.each(table)('%s', (_name, { given, same }) => {
    const [first, second] = given.map(([job, index]) => outputIdFor(job, index));
    expect(first === second).toBe(same);
  });

  it('names an output as a drawn id does: what the download URL and the stores accept', () => {
    for (const id of [outputIdFor('job_a', 0), outputIdFor('job_a', 19), newOutputId()])
      expect(id).toMatch(OUTPUT_ID_PATTERN);
  });
});
