// Every bad input for merge, split and compress, with each engine pair forced:
// each is `400 invalid_input` with a message a person can act on (for merge, naming the file), the same
// verdict from all three operations (one inspection decides), never a 500, and no file is
// left on disk. The page cap is lowered so "too many pages" costs little. (The bad documents' cases:
// cases/bad-documents.ts.)
//
// PostScript before the header proves by its answer that Ghostscript never ran it: run, the drawing
// program would come back as a page reading POLYGLOT PS EXECUTED and the looping one as a 500 after
// the tool timeout; refused, both are a 400 that says why.
import { deepPageTreePdf, labelledPdf, manyPagesPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { badDocumentCases, PAGE_CAP, refusals } from './cases/bad-documents.js';
import { field, file, form } from './harness/form.js';
import { filesLeftSince, listFiles } from './harness/leftovers.js';
import { missing } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

type ErrorBody = { error: { code: string; message: string } };

const enginePairs = [
  ...(missing('qpdf', 'bad inputs with qpdf/Ghostscript') ||
  missing('ghostscript', 'bad inputs with qpdf/Ghostscript')
    ? []
    : [{ pdf: 'qpdf', compress: 'ghostscript' }]),
  { pdf: 'pdf-lib', compress: 'pdf-lib' },
];

describe.each(enginePairs)('engines $pdf / $compress', (engines) => {
  const ctx = useServer({
    env: {
      PDN_PDF_ENGINE: engines.pdf,
      PDN_COMPRESS_ENGINE: engines.compress,
      PDN_MAX_PAGES: String(PAGE_CAP),
    },
  });
  let key: string;
  let good: Uint8Array;
  let before: Set<string>;

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'bad-inputs', plan: 'enterprise' });
    good = await labelledPdf('good', 3);
    before = await listFiles(ctx.server);
  });

  const refused = refusals(ctx, () => key);

  badDocumentCases(ctx);

  describe('merge request shape', () => {
    it.each([
      ['one file', () => [file('files[]', good)], /2/],
      ['21 files', () => Array.from({ length: 21 }, () => file('files[]', good)), /20/],
      ['no files at all', () => [field('note', 'x')], /files\[\]/],
      ['files under the part name "file"', () => [file('file', good), file('file', good)], /files\[\]/],
      ['files under the part name "files"', () => [file('files', good), file('files', good)], /files\[\]/],
      [
        'text fields instead of files',
        () => [field('files[]', 'a.pdf'), field('files[]', 'b.pdf')],
        /files\[\]|file/,
      ],
    ])('%s is refused', async (_name, parts, mentions) => {
      expect(await refused('/api/v1/merge', ...parts())).toMatch(mentions);
    });

    it('a request that is not multipart is refused', async () => {
      const res = await ctx.call<ErrorBody>('/api/v1/merge', {
        key,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ files: ['a.pdf', 'b.pdf'] }),
      });
      expect(res.status).toBe(400);
    });
  });

  describe('split request shape and ranges (10-page document)', () => {
    let book: Uint8Array;
    beforeAll(async () => {
      book = await labelledPdf('book', 10);
    });

    it.each([
      ['no ranges', () => [file('file', book)], /ranges/],
      ['no file', () => [field('ranges', '1')], /file/],
      ['the file under "files[]"', () => [file('files[]', book), field('ranges', '1')], /file/],
    ])('%s is refused', async (_name, parts, mentions) => {
      expect(await refused('/api/v1/split', ...parts())).toMatch(mentions);
    });

    // Each bad item must be named in the message together with the page count.
    it.each([
      ['0', '0'],
      ['11', '11'],
      ['3-1', '3-1'],
      ['1-11', '1-11'],
      ['0-2', '0-2'],
      ['a', 'a'],
      ['1-', '1-'],
      ['-3', '-3'],
      ['1-2-3', '1-2-3'],
      ['1.5', '1.5'],
      ['+1', '+1'],
      ['0x1', '0x1'],
      ['1e1', '1e1'],
      ['٣', '٣'],
      ['99999999999999999999', '99999999999999999999'],
      ['2, 5-4 ,7', '5-4'],
    ])('ranges %j is refused, naming %j and the page count', async (ranges, item) => {
      const message = await refused('/api/v1/split', file('file', book), field('ranges', ranges));
      expect(message).toContain(item);
      expect(message).toMatch(/\b10\b/);
    });

    it.each([
      ['an empty list', ''],
      ['only whitespace', '   '],
      ['an empty item', '1,,2'],
      ['a trailing comma', '1,2,'],
    ])('ranges with %s are refused', async (_name, ranges) => {
      expect(await refused('/api/v1/split', file('file', book), field('ranges', ranges))).not.toBe('');
    });

    it('more than 100 ranges are refused, naming the cap', async () => {
      const ranges = Array.from({ length: 101 }, () => '1').join(',');
      expect(await refused('/api/v1/split', file('file', book), field('ranges', ranges))).toMatch(/100/);
    });
  });

  describe('compress request shape', () => {
    it.each([
      ['an unknown level', () => [file('file', good), field('level', 'ultra')], /low|medium|high/],
      ['an uppercase level', () => [file('file', good), field('level', 'HIGH')], /low|medium|high/],
      ['no file', () => [field('level', 'low')], /file/],
      ['the file under "document"', () => [file('document', good)], /file/],
    ])('%s is refused', async (_name, parts, mentions) => {
      expect(await refused('/api/v1/compress', ...parts())).toMatch(mentions);
    });
  });

  // Two measured traps: pdf-lib spent 236 s on 100,000 pages and overflowed its stack on a
  // deep page tree. The first must be refused by the page cap before any work; the second is a valid
  // one-page PDF, so either answer is fine as long as it is an answer and not a 500.
  describe('trap documents', () => {
    it.each(['/api/v1/merge', '/api/v1/split', '/api/v1/compress'])(
      '%s refuses 100,000 pages by the cap',
      async (path) => {
        const many = manyPagesPdf();
        const parts =
          path === '/api/v1/merge'
            ? [file('files[]', good), file('files[]', many, 'many.pdf')]
            : [file('file', many, 'many.pdf'), ...(path === '/api/v1/split' ? [field('ranges', '1')] : [])];
        expect(await refused(path, ...parts)).toMatch(new RegExp(`\\b${PAGE_CAP}\\b`));
      },
    );

    it.each(['/api/v1/merge', '/api/v1/split', '/api/v1/compress'])(
      '%s answers a 10,000-deep page tree',
      async (path) => {
        const deep = deepPageTreePdf();
        const parts =
          path === '/api/v1/merge'
            ? [file('files[]', good), file('files[]', deep, 'deep.pdf')]
            : [file('file', deep, 'deep.pdf'), ...(path === '/api/v1/split' ? [field('ranges', '1')] : [])];
        const res = await ctx.call(path, { key, body: form(...parts) });
        expect([200, 400]).toContain(res.status);
      },
    );
  });

  it('left no files behind and still serves', async () => {
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
    const res = await ctx.call('/api/v1/merge', {
      key,
      body: form(file('files[]', good), file('files[]', good)),
    });
    expect(res.status).toBe(200);
  });
});
