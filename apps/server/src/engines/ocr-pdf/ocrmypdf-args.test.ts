import { describe, expect, it } from 'vitest';
import { ocrmypdfArgs } from './ocrmypdf-args.js';

const base = {
  codes: 'eng',
  jobs: 2,
  maxImagePixels: 40_000_000,
  input: '/in.pdf',
  output: '/out.pdf',
};
const request = { language: 'eng', mode: 'skip', deskew: false, rotate: false, output: 'pdf' } as const;

describe('ocrmypdfArgs', () => {
  it('the defaults: skip text, a plain PDF, level 1, the sandwich renderer, our bounds', () => {
    expect(ocrmypdfArgs({ ...base, request })).toEqual([
      '--language',
      'eng',
      '--skip-text',
      '--output-type',
      'pdf',
      '--optimize',
      '1',
      '--pdf-renderer',
      'sandwich',
      '--jobs',
      '2',
      '--max-image-mpixels',
      '40',
      '--quiet',
      '/in.pdf',
      '/out.pdf',
    ]);
  });

  it('every option asked for', () => {
    const args = ocrmypdfArgs({
      ...base,
      request: { ...request, mode: 'redo', rotate: true, output: 'pdfa' },
      pages: '1-3,7',
      tesseractConfig: '/tsv.cfg',
    });
    for (const flag of ['--redo-ocr', '--rotate-pages', '--keep-temporary-files'])
      expect(args).toContain(flag);
    expect(args.join(' ')).toContain('--pages 1-3,7');
    expect(args.join(' ')).toContain('--output-type pdfa-2');
    expect(args.join(' ')).toContain('--tesseract-config /tsv.cfg');
  });

  it.each([
    ['force', '--force-ocr'],
    ['redo', '--redo-ocr'],
  ] as const)('mode %s is %s', (mode, flag) => {
    expect(ocrmypdfArgs({ ...base, request: { ...request, mode, deskew: mode === 'force' } })).toEqual(
      expect.arrayContaining([flag, ...(mode === 'force' ? ['--deskew'] : [])]),
    );
  });
});
