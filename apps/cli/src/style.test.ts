import { describe, expect, it } from 'vitest';
import { type ColourFacts, colourEnabled, createStyle } from './style.js';

describe('colourEnabled', () => {
  const cases: [string, { given: ColourFacts; want: boolean }][] = [
    ['a terminal', { given: { env: {}, isTTY: true, json: false }, want: true }],
    ['a pipe', { given: { env: {}, isTTY: false, json: false }, want: false }],
    ['NO_COLOR on a terminal', { given: { env: { NO_COLOR: '1' }, isTTY: true, json: false }, want: false }],
    [
      'an empty NO_COLOR is unset (no-color.org)',
      { given: { env: { NO_COLOR: '' }, isTTY: true, json: false }, want: true },
    ],
    ['--json on a terminal', { given: { env: {}, isTTY: true, json: true }, want: false }],
    [
      'FORCE_COLOR on a pipe',
      { given: { env: { FORCE_COLOR: '1' }, isTTY: false, json: false }, want: true },
    ],
    [
      'FORCE_COLOR=0 on a terminal',
      { given: { env: { FORCE_COLOR: '0' }, isTTY: true, json: false }, want: false },
    ],
    [
      'NO_COLOR beats FORCE_COLOR',
      { given: { env: { NO_COLOR: '1', FORCE_COLOR: '1' }, isTTY: true, json: false }, want: false },
    ],
    [
      '--json beats FORCE_COLOR',
      { given: { env: { FORCE_COLOR: '1' }, isTTY: false, json: true }, want: false },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(colourEnabled(given)).toBe(want);
  });

  it('a disabled style writes no escape codes', () => {
    expect(createStyle(false).red('x')).toBe('x');
    expect(createStyle(true).red('x')).toBe('\u001b[31mx\u001b[39m');
  });
});
