import { describe, expect, it } from 'vitest';
import { serialize, xrefAndTrailer } from './pdf-objects.js';

describe('serialize', () => {
  it.each([
    [12, '12'],
    [0.1 + 0.2, '0.3'],
    ['/DeviceRGB', '/DeviceRGB'],
    [[1, '/Name', [2]], '[1 /Name [2]]'],
    [
      { Type: '/Page', MediaBox: [0, 0, 595.2756, 841.8898] },
      '<</Type /Page /MediaBox [0 0 595.2756 841.8898]>>',
    ],
  ])('%j', (given, want) => {
    expect(serialize(given)).toBe(want);
  });

  it('refuses a number PDF cannot write', () => {
    expect(() => serialize(Number.NaN)).toThrow('finite');
  });
});

describe('xrefAndTrailer', () => {
  it('writes 20-byte entries, the free head first (PDF 32000-1 7.5.4)', () => {
    const text = xrefAndTrailer(
      new Map([
        [1, 15],
        [2, 120],
      ]),
      3,
      1,
      300,
    );
    const entries = text.split('\n').slice(2, 5);
    expect(entries.map((line) => `${line}\n`.length)).toEqual([20, 20, 20]);
    expect(text).toContain('0000000015 00000 n \n0000000120 00000 n \n');
    expect(text.endsWith('trailer\n<</Size 3 /Root 1 0 R>>\nstartxref\n300\n%%EOF\n')).toBe(true);
  });
});
