import { describe, expect, it } from 'vitest';
import { rasterDpi } from './raster-resolution.js';

const LETTER = [612, 792] as const;

describe('rasterDpi', () => {
  const cases: [
    string,
    { size: readonly [number, number]; ppi: number | undefined; cap: number; want: number },
  ][] = [
    ['a 200 dpi scan at its own resolution', { size: LETTER, ppi: 200, cap: 40e6, want: 200 }],
    ['a vector page at 300', { size: LETTER, ppi: undefined, cap: 40e6, want: 300 }],
    ['a 72 ppi photo raised to 150', { size: LETTER, ppi: 72, cap: 40e6, want: 150 }],
    ['a 1200 dpi scan lowered to 600', { size: LETTER, ppi: 1200, cap: 40e6, want: 600 }],
    ['a poster lowered under the pixel cap', { size: [7200, 7200], ppi: 300, cap: 40e6, want: 63 }],
  ];
  it.each(cases)('%s', (_, { size, ppi, cap, want }) => {
    const dpi = rasterDpi(size[0], size[1], ppi, cap);
    expect(dpi).toBe(want);
    expect(((size[0] * dpi) / 72) * ((size[1] * dpi) / 72)).toBeLessThanOrEqual(cap);
  });
});
