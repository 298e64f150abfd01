import { describe, expect, it } from 'vitest';
import { skewDegrees } from './skew.js';

const line = (slope: string) =>
  `<span class='ocr_line' title="bbox 1 2 3 4; baseline ${slope} -12; x_size 40">`;

describe('skewDegrees', () => {
  const cases: [string, { given: string; want: number | undefined }][] = [
    ['no line', { given: '<div class="ocr_page"></div>', want: undefined }],
    ['straight lines', { given: line('0') + line('0'), want: 0 }],
    ['lines running down to the right', { given: line('0.033') + line('0.032') + line('0.034'), want: 1.89 }],
    [
      'lines running up, one stray rule',
      { given: line('-0.017') + line('-0.018') + line('0.5'), want: -0.97 },
    ],
  ];
  it.each(cases)('%s', (_, { given, want }) => {
    const got = skewDegrees(given);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toBeCloseTo(want, 2);
  });
});
