import { describe, expect, it } from 'vitest';
import { wordsOfTsv } from './tsv-words.js';

const TSV = [
  'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
  '1\t1\t0\t0\t0\t0\t0\t0\t796\t301\t-1\t',
  '4\t1\t1\t1\t1\t0\t36\t40\t700\t50\t-1\t',
  '5\t1\t1\t1\t1\t1\t36\t40\t80\t50\t96.512\tThe',
  '5\t1\t1\t1\t1\t2\t130\t41\t120\t49\t95\tquick',
  '5\t2\t1\t1\t1\t1\t10\t12\t30\t20\t-1\t ',
].join('\n');

describe('wordsOfTsv', () => {
  it('keeps the words (level 5 with text), with their boxes and confidences', () => {
    expect(wordsOfTsv(TSV)).toEqual([
      { text: 'The', confidence: 96.51, page: 1, left: 36, top: 40, width: 80, height: 50 },
      { text: 'quick', confidence: 95, page: 1, left: 130, top: 41, width: 120, height: 49 },
    ]);
  });

  it('takes the page from the caller when it reads one page at a time', () => {
    expect(wordsOfTsv(TSV, 3).map((word) => word.page)).toEqual([3, 3]);
  });
});
