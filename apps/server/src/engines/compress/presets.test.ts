import { describe, expect, it } from 'vitest';
import { ghostscriptArgs, hasLegacyInterpreter } from './presets.js';

describe('hasLegacyInterpreter', () => {
  // [version as `gs --version` prints it, whether -dNEWPDF=false still selects the old interpreter]
  it.each([
    ['9.56.1', true],
    ['10.00.0', true],
    ['10.01.2', true],
    ['10.02.0', false],
    ['10.05.1', false],
    ['11.0', false],
  ])('%s -> %s', (version, want) => {
    expect(hasLegacyInterpreter(version)).toBe(want);
  });
});

describe('ghostscriptArgs', () => {
  // [level, -dPDFSETTINGS, image dpi]: the presets README.md's measurement picked.
  it.each([
    ['low', '/printer', 300],
    ['medium', '/ebook', 150],
    ['high', '/ebook', 72],
  ] as const)('%s uses %s with images at %s dpi', (level, settings, dpi) => {
    const args = ghostscriptArgs(level, '/in/a.pdf', 'out.pdf', { legacyInterpreter: false });
    expect(args).toContain(`-dPDFSETTINGS=${settings}`);
    expect(args).toContain(`-dColorImageResolution=${dpi}`);
    expect(args).toContain(`-dGrayImageResolution=${dpi}`);
    expect(args).toContain('-dSAFER');
    expect(args).not.toContain('-dNEWPDF=false');
    // The input goes to the PDF interpreter by name, never to `run`, which executes PostScript (#11.1).
    expect(args.slice(-4)).toEqual([
      '-sPDNInputFile=/in/a.pdf',
      '--permit-file-read=/in/a.pdf',
      '-c',
      'PDNInputFile (r) file runpdf',
    ]);
  });

  it.each([
    ['low', false],
    ['medium', true],
    ['high', true],
  ] as const)('%s forces JPEG for colour and grey images: %s', (level, forced) => {
    const args = ghostscriptArgs(level, '/in/a.pdf', 'out.pdf', { legacyInterpreter: false });
    expect(args.includes('-dColorImageFilter=/DCTEncode')).toBe(forced);
    expect(args.includes('-dGrayImageFilter=/DCTEncode')).toBe(forced);
  });

  it('selects the legacy interpreter only when asked', () => {
    expect(ghostscriptArgs('medium', '/in/a.pdf', 'out.pdf', { legacyInterpreter: true })).toContain(
      '-dNEWPDF=false',
    );
  });
});
