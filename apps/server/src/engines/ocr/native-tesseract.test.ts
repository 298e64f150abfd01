import { describe, expect, it } from 'vitest';
import { meanWordConfidence } from './native-tesseract.js';

const HEADER =
  'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
const row = (level: number, conf: number, text: string) =>
  `${level}\t1\t1\t1\t1\t1\t0\t0\t10\t10\t${conf}\t${text}`;

describe('meanWordConfidence', () => {
  const cases: [string, { given: string[]; want: number }][] = [
    ['no rows (no text found)', { given: [HEADER], want: 0 }],
    ['only layout rows', { given: [HEADER, row(1, -1, ''), row(4, -1, '')], want: 0 }],
    [
      'the mean of the word rows, rounded',
      { given: [HEADER, row(2, -1, ''), row(5, 96.5, 'The'), row(5, 90, 'fox')], want: 93 },
    ],
    ['words without text left out', { given: [HEADER, row(5, 95, 'ok'), row(5, 0, ' ')], want: 95 }],
    ['a trailing newline', { given: [HEADER, row(5, 80, 'word'), ''], want: 80 }],
  ];
  it.each(cases)('reads %s', (_name, { given, want }) => {
    expect(meanWordConfidence(given.join('\n'))).toBe(want);
  });
});
