import { describe, expect, it } from 'vitest';
import { followProgress, withoutProgress } from './ocrmypdf-progress.js';

describe('followProgress', () => {
  const cases: [string, { given: string[]; want: number[][] }][] = [
    [
      'a line per chunk',
      {
        given: ['pdn-progress 1 3\n', 'pdn-progress 2 3\n'],
        want: [
          [1, 3],
          [2, 3],
        ],
      },
    ],
    [
      'a line cut across chunks',
      {
        given: ['pdn-prog', 'ress 1 3\npdn-progress 2', ' 3\n'],
        want: [
          [1, 3],
          [2, 3],
        ],
      },
    ],
    ['other messages between', { given: ['WARNING: x\npdn-progress 1 2\nerror\n'], want: [[1, 2]] }],
    ['a line not yet ended', { given: ['pdn-progress 1 2'], want: [] }],
  ];
  it.each(cases)('%s', (_, { given, want }) => {
    const seen: number[][] = [];
    const feed = followProgress((done, total) => seen.push([done, total]));
    for (const chunk of given) feed(Buffer.from(chunk));
    expect(seen).toEqual(want);
  });
});

describe('withoutProgress', () => {
  it('keeps what OCRmyPDF said, without our lines', () => {
    expect(withoutProgress('pdn-progress 1 2\nInputFileError: bad\npdn-progress 2 2\n')).toBe(
      'InputFileError: bad\n',
    );
  });
});
