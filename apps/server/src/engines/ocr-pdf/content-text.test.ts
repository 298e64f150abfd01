import { describe, expect, it } from 'vitest';
import { type TextToRemove, withoutText } from './content-text.js';

const cases: [string, { given: string; which: TextToRemove; want: string }][] = [
  [
    'an invisible layer goes, visible text stays',
    {
      given: 'BT /F1 9 Tf (seen) Tj 3 Tr (hidden) Tj ET',
      which: 'invisible',
      want: 'BT /F1 9 Tf (seen) Tj 3 Tr  ET',
    },
  ],
  [
    'the mode is restored by Q',
    { given: 'q 3 Tr BT (a) Tj ET Q BT (b) Tj ET', which: 'invisible', want: 'q 3 Tr BT  ET Q BT (b) Tj ET' },
  ],
  [
    'TJ arrays, strings with parentheses, escapes and operator-like words',
    {
      given: '3 Tr BT [(x \\) Tj \\() (y)] TJ (a (nested) Tj) Tj 0 Tr (keep) Tj ET',
      which: 'invisible',
      want: '3 Tr BT   0 Tr (keep) Tj ET',
    },
  ],
  [
    '\' and " keep their line moves',
    { given: '3 Tr BT (a) \' 1 2 (b) " ET', which: 'invisible', want: '3 Tr BT T* 1 Tw 2 Tc T* ET' },
  ],
  [
    'all text, for drawing the page without it',
    { given: 'q /Im0 Do Q BT <414243> Tj ET', which: 'all', want: 'q /Im0 Do Q BT  ET' },
  ],
  [
    'an inline image whose data looks like operators',
    {
      given: 'BI /W 2 /H 1 ID (x) Tj\x00 EI 3 Tr BT (z) Tj ET',
      which: 'invisible',
      want: 'BI /W 2 /H 1 ID (x) Tj\x00 EI 3 Tr BT  ET',
    },
  ],
  [
    'comments and dictionaries',
    {
      given: '% (c) Tj\n/P <</MCID 0>> BDC 3 Tr BT (v) Tj ET EMC',
      which: 'invisible',
      want: '% (c) Tj\n/P <</MCID 0>> BDC 3 Tr BT  ET EMC',
    },
  ],
  ['a form called in mode 3', { given: 'BT (f) Tj ET', which: 'invisible', want: 'BT  ET' }],
];

describe('withoutText', () => {
  it.each(cases)('%s', (name, { given, which, want }) => {
    expect(withoutText(given, which, name === 'a form called in mode 3' ? 3 : 0)).toBe(want);
  });
});
