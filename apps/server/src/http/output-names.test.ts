import { describe, expect, it } from 'vitest';
import { asciiName, baseName, compressedName, partName } from './output-names.js';

describe('baseName', () => {
  const table: [string, { given: string; want: string }][] = [
    ['a plain name', { given: 'report.pdf', want: 'report' }],
    ['an uppercase extension', { given: 'REPORT.PDF', want: 'REPORT' }],
    ['no extension', { given: 'scan', want: 'scan' }],
    ['inner dots kept', { given: 'q3.final.pdf', want: 'q3.final' }],
    ['a unix path', { given: '../../etc/passwd.pdf', want: 'passwd' }],
    ['a windows path', { given: 'C:\\Users\\ada\\cv.pdf', want: 'cv' }],
    ['control characters and quotes', { given: 'a\u0000b\r\n"c".pdf', want: 'abc' }],
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
