import { describe, expect, it } from 'vitest';
import { UsageError } from './errors.js';
import {
  compressedName,
  isOwnOutputName,
  isSearchableName,
  type OutputTarget,
  ocrTextName,
  outputPath,
  outputTarget,
  searchableName,
  sharedPaths,
  splitPartName,
  stem,
  textBeside,
} from './output-naming.js';

describe('outputTarget', () => {
  const cases: [
    string,
    { option: string | undefined; outputCount: number; isDirectory: boolean; want: OutputTarget },
  ][] = [
    [
      'no -o: next to each input',
      { option: undefined, outputCount: 3, isDirectory: false, want: { kind: 'beside' } },
    ],
    [
      '- for one output: stdout',
      { option: '-', outputCount: 1, isDirectory: false, want: { kind: 'stdout' } },
    ],
    [
      'a file name for one output',
      { option: 'out.pdf', outputCount: 1, isDirectory: false, want: { kind: 'file', path: 'out.pdf' } },
    ],
    [
      'an existing directory',
      { option: 'out', outputCount: 1, isDirectory: true, want: { kind: 'dir', dir: 'out' } },
    ],
    [
      'a trailing slash means a directory',
      { option: 'new/', outputCount: 1, isDirectory: false, want: { kind: 'dir', dir: 'new/' } },
    ],
    [
      'several outputs: always a directory',
      { option: 'out', outputCount: 2, isDirectory: false, want: { kind: 'dir', dir: 'out' } },
    ],
  ];
  it.each(cases)('%s', (_name, { option, outputCount, isDirectory, want }) => {
    expect(outputTarget(option, { outputCount, isDirectory })).toEqual(want);
  });

  it('refuses stdout for several outputs', () => {
    expect(() => outputTarget('-', { outputCount: 2, isDirectory: false })).toThrow(UsageError);
  });
});

describe('outputPath', () => {
  const cases: [string, { target: OutputTarget; input: string; name: string; want: string }][] = [
    [
      'beside a nested input',
      {
        target: { kind: 'beside' },
        input: 'docs/a.pdf',
        name: 'a.compressed.pdf',
        want: 'docs/a.compressed.pdf',
      },
    ],
    [
      'beside stdin is the working folder',
      { target: { kind: 'beside' }, input: '-', name: 'stdin.compressed.pdf', want: 'stdin.compressed.pdf' },
    ],
    [
      'in a directory',
      {
        target: { kind: 'dir', dir: 'out/' },
        input: 'docs/a.pdf',
        name: 'a.compressed.pdf',
        want: 'out/a.compressed.pdf',
      },
    ],
    [
      'a named file',
      { target: { kind: 'file', path: 'x.pdf' }, input: 'a.pdf', name: 'a.compressed.pdf', want: 'x.pdf' },
    ],
    ['stdout', { target: { kind: 'stdout' }, input: 'a.pdf', name: 'a.compressed.pdf', want: '-' }],
  ];
  it.each(cases)('%s', (_name, { target, input, name, want }) => {
    expect(outputPath(target, input, name)).toBe(want);
  });
});

describe('names', () => {
  const cases: [string, { got: string; want: string }][] = [
    ['stem drops the last extension', { got: stem('dir/report.pdf'), want: 'report' }],
    ['stem keeps inner dots', { got: stem('v1.2.final.PDF'), want: 'v1.2.final' }],
    ['stem of a name without extension', { got: stem('README'), want: 'README' }],
    ['stem of a dotfile', { got: stem('.hidden.pdf'), want: '.hidden' }],
    ['stem of stdin', { got: stem('-'), want: 'stdin' }],
    ['compressed', { got: compressedName('a/report.pdf'), want: 'report.compressed.pdf' }],
    ['split part of a range', { got: splitPartName('book.pdf', '1-3'), want: 'book.pages-1-3.pdf' }],
    ['split part of a page', { got: splitPartName('book.pdf', '7'), want: 'book.pages-7.pdf' }],
    ['ocr text', { got: ocrTextName('scans/page 1.png'), want: 'page 1.txt' }],
    ['searchable PDF of a PDF', { got: searchableName('scans/letter.pdf'), want: 'letter.ocr.pdf' }],
    ['searchable PDF of an image', { got: searchableName('fax.tiff'), want: 'fax.ocr.pdf' }],
    ['searchable PDF of stdin', { got: searchableName('-'), want: 'stdin.ocr.pdf' }],
    ['text beside the searchable PDF', { got: textBeside('out/letter.ocr.pdf'), want: 'out/letter.ocr.txt' }],
    ['text beside -o FILE without .pdf', { got: textBeside('out/letter'), want: 'out/letter.txt' }],
  ];
  it.each(cases)('%s', (_name, { got, want }) => {
    expect(got).toBe(want);
  });
});

describe('sharedPaths', () => {
  const cases: [string, { paths: string[]; want: string[] }][] = [
    ['distinct', { paths: ['a', 'b'], want: [] }],
    [
      'a clash is reported once',
      { paths: ['out/x.pdf', 'out/y.pdf', 'out/x.pdf', 'out/x.pdf'], want: ['out/x.pdf'] },
    ],
    ['stdout is not a file', { paths: ['-', '-'], want: [] }],
  ];
  it.each(cases)('%s', (_name, { paths, want }) => {
    expect(sharedPaths(paths)).toEqual(want);
  });
});

describe('isOwnOutputName', () => {
  const cases: [string, boolean][] = [
    ['a.compressed.pdf', true],
    ['dir/A.COMPRESSED.PDF', true],
    ['book.pages-3.pdf', true],
    ['book.pages-1-10.pdf', true],
    ['a.pdf', false],
    ['compressed.pdf', false],
    ['book.pages-x.pdf', false],
    ['a.compressed.pdf.bak', false],
  ];
  it.each(cases)('%s: %s', (name, want) => {
    expect(isOwnOutputName(name)).toBe(want);
  });
});

describe('isSearchableName', () => {
  const cases: [string, boolean][] = [
    ['a.ocr.pdf', true],
    ['dir/A.OCR.PDF', true],
    ['a.pdf', false],
    ['ocr.pdf', false],
    ['a.ocr.pdf.bak', false],
  ];
  it.each(cases)('%s: %s', (name, want) => {
    expect(isSearchableName(name)).toBe(want);
  });
});
