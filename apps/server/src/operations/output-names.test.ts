import { describe, expect, it } from 'vitest';
import { asciiName, baseName, compressedName, partName, withoutControls } from './output-names.js';

describe('baseName', () => {
  const table: [string, { given: string; want: string }][] = [
    ['a plain name', { given: 'report.pdf', want: 'report' }],
    ['an uppercase extension', { given: 'REPORT.PDF', want: 'REPORT' }],
    ['no extension', { given: 'scan', want: 'scan' }],
    ['inner dots kept', { given: 'q3.final.pdf', want: 'q3.final' }],
    ['a unix path', { given: '../../etc/passwd.pdf', want: 'passwd' }],
    ['a windows path', { given: 'C:\\Users\\ada\\cv.pdf', want: 'cv' }],
    ['control characters and quotes', { given: 'a\u0000b\r\n"c".pdf', want: 'abc' }],
    // A right-to-left override shows `invoice\u202Efdp.exe` as "invoiceexe.pdf".
    ['a right-to-left override', { given: 'invoice\u202Efdp.exe.pdf', want: 'invoicefdp.exe' }],
    [
      'every bidi embedding, override and isolate',
      { given: 'a\u202A\u202B\u202C\u202Db\u2066\u2067\u2068\u2069c', want: 'abc' },
    ],
    ['bidi marks', { given: 'a\u200E\u200Fb\u061Cc', want: 'abc' }],
    ['zero-width and BOM format characters', { given: 'a\u200Bb\u200Dc\uFEFFd\u00ADe', want: 'abcde' }],
    ['C1 controls', { given: 'a\u0085b\u009Bc', want: 'abc' }],
    ['line and paragraph separators', { given: 'a\u2028b\u2029c', want: 'abc' }],
    ['an interlinear annotation and a tag character', { given: 'a\uFFF9b\u{E0041}c', want: 'abc' }],
    ['nothing left but controls', { given: '\u202E\u202E.pdf', want: 'document' }],
    ['only dots', { given: '...', want: 'document' }],
    ['empty', { given: '', want: 'document' }],
    ['just the extension', { given: '.pdf', want: 'document' }],
    ['unicode kept', { given: 'Übersicht.pdf', want: 'Übersicht' }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect(baseName(given)).toBe(want);
  });

  it('caps very long names', () => {
    expect(baseName(`${'x'.repeat(500)}.pdf`)).toHaveLength(100);
  });

  // Found by the fuzzer: cutting at 100 UTF-16 units split the pair of U+1F600, and the
  // download's `filename*` could not encode the half left, a 500.
  it('counts code points, never cutting a character in two', () => {
    const name = baseName(`${'a'.repeat(99)}\u{1F600}\u{1F600}.pdf`);
    expect([...name]).toHaveLength(100);
    expect(name).toBe(`${'a'.repeat(99)}\u{1F600}`);
  });

  it('drops a lone surrogate', () => {
    expect(withoutControls('a\uD83Db\uDE00c')).toBe('abc');
  });
});

describe('output names', () => {
  it('follow openapi.yaml', () => {
    expect(compressedName('report.pdf')).toBe('report.compressed.pdf');
    expect(partName('report.pdf', '3-5')).toBe('report.pages-3-5.pdf');
    expect(partName('', '7')).toBe('document.pages-7.pdf');
  });
});

describe('asciiName', () => {
  const table: [string, { given: string; want: string }][] = [
    ['ASCII as is', { given: 'report.pages-3-5.pdf', want: 'report.pages-3-5.pdf' }],
    ['accents dropped', { given: 'Übersicht résumé.pdf', want: 'Ubersicht resume.pdf' }],
    ['other scripts replaced', { given: 'отчёт.pdf', want: '_____.pdf' }],
    ['astral characters as one each', { given: '📄.pdf', want: '_.pdf' }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect(asciiName(given)).toBe(want);
  });
});
