import { describe, expect, it } from 'vitest';
import { ghostscriptArgs, hasLegacyInterpreter, interpreterOrder, postscriptString } from './presets.js';

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
    const args = ghostscriptArgs(level, '/in/a.pdf', 'out.pdf', 'default', 3);
    expect(args).toContain(`-dPDFSETTINGS=${settings}`);
    expect(args).toContain(`-dColorImageResolution=${dpi}`);
    expect(args).toContain(`-dGrayImageResolution=${dpi}`);
    expect(args).toContain('-dSAFER');
    expect(args).not.toContain('-dNEWPDF=false');
    // The input goes to the PDF interpreter by name, never to `run`, which executes PostScript.
    expect(args.slice(-3)).toEqual([
      '--permit-file-read=/in/a.pdf',
      '-c',
      `/FirstPage 1 def /LastPage 3 def ${postscriptString('/in/a.pdf')} (r) file runpdf`,
    ]);
  });

  it.each([
    ['low', false],
    ['medium', true],
    ['high', true],
  ] as const)('%s forces JPEG for colour and grey images: %s', (level, forced) => {
    const args = ghostscriptArgs(level, '/in/a.pdf', 'out.pdf', 'default', 3);
    expect(args.includes('-dColorImageFilter=/DCTEncode')).toBe(forced);
    expect(args.includes('-dGrayImageFilter=/DCTEncode')).toBe(forced);
  });

  // By default Ghostscript passes JPEGs through and downsamples only above 1.5x the target.
  it.each([
    ['low', false],
    ['medium', true],
    ['high', true],
  ] as const)('%s re-encodes JPEGs and downsamples above 1.0x its resolution: %s', (level, reencodes) => {
    const args = ghostscriptArgs(level, '/in/a.pdf', 'out.pdf', 'default', 3);
    expect(args.includes('-dPassThroughJPEGImages=false')).toBe(reencodes);
    for (const kind of ['Color', 'Gray', 'Mono']) {
      expect(args.includes(`-d${kind}ImageDownsampleThreshold=1.0`)).toBe(reencodes);
    }
  });

  it.each(['low', 'medium', 'high'] as const)('%s never turns pages', (level) => {
    expect(ghostscriptArgs(level, '/in/a.pdf', 'out.pdf', 'default', 3)).toContain('-dAutoRotatePages=/None');
  });

  // Found by the fuzzer: the legacy interpreter believes a root /Count of 2^32 over one page.
  it.each(['default', 'legacy'] as const)(
    'writes only the pages walked, with the %s interpreter',
    (interpreter) => {
      const args = ghostscriptArgs('low', '/in/a.pdf', 'out.pdf', interpreter, 3);
      expect(args.at(-1)).toBe(
        `/FirstPage 1 def /LastPage 3 def ${postscriptString('/in/a.pdf')} (r) file runpdf`,
      );
    },
  );

  // The ladder stops after a refusal for lost text or structure at `high` (ghostscript-engine.ts):
  // sound only while `medium`'s run differs from `high`'s in image resolution alone.
  it('high differs from medium only in the colour and grey image resolution', () => {
    const high = ghostscriptArgs('high', '/in/a.pdf', 'out.pdf', 'default', 3);
    const medium = ghostscriptArgs('medium', '/in/a.pdf', 'out.pdf', 'default', 3);
    const differing = (a: string[], b: string[]) => a.filter((arg) => !b.includes(arg));
    expect(differing(high, medium)).toEqual(['-dColorImageResolution=72', '-dGrayImageResolution=72']);
    expect(differing(medium, high)).toEqual(['-dColorImageResolution=150', '-dGrayImageResolution=150']);
  });

  it('selects the legacy interpreter only when asked', () => {
    expect(ghostscriptArgs('medium', '/in/a.pdf', 'out.pdf', 'legacy', 3)).toContain('-dNEWPDF=false');
  });
});

describe('interpreterOrder', () => {
  // [legacy interpreter available, composite fonts prefer it, order to try]
  it.each([
    [false, false, ['default']],
    [false, true, ['default']],
    [true, false, ['default', 'legacy']],
    [true, true, ['legacy', 'default']],
  ] as const)('available %s, preferred %s -> %j', (available, preferred, want) => {
    expect(interpreterOrder(available, preferred)).toEqual(want);
  });
});
