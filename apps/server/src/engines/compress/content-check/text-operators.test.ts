import { describe, expect, it } from 'vitest';
import { countTextOperators } from './text-operators.js';

// [name, { given: content stream, want: text-showing operators }]
const table: [string, { given: string; want: number }][] = [
  ['empty', { given: '', want: 0 }],
  ['one of each', { given: 'BT /F1 12 Tf (a) Tj [(b) 2 (c)] TJ (d) \' 1 2 (e) " ET', want: 4 }],
  ['no whitespace before the operator', { given: 'BT(a)Tj[(b)]TJ ET', want: 2 }],
  ['operators inside strings do not count', { given: '(x) Tj (Tj TJ \\) Tj) Tj', want: 2 }],
  ['nested parentheses', { given: '(a (b) Tj c) Tj', want: 1 }],
  ['hex strings', { given: '<54 6a> Tj <</Tj 1>> BDC', want: 1 }],
  ['names are not operators', { given: '/Tj /TJ Do', want: 0 }],
  ['comments', { given: '% (a) Tj\n(b) Tj', want: 1 }],
  ['drawing only', { given: 'q 1 0 0 1 0 0 cm /Im1 Do Q 0 0 m 10 10 l S', want: 0 }],
  ['inline image data holding the bytes Tj', { given: 'BI /W 2 /H 1 ID \x00Tj\xff EI (t) Tj', want: 1 }],
];

describe('countTextOperators', () => {
  it.each(table)('%s', (_name, { given, want }) => {
    expect(countTextOperators(Buffer.from(given, 'latin1'))).toBe(want);
  });
});
