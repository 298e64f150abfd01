import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { labelledPdf, macBinaryPdf, postscriptPolyglotPdf, writeFixture } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../errors.js';
import { checkPdfBytes, classifyPrefix, type Prefix, pdfFromHeader } from './pdf-header.js';

const bytes = (text: string): Uint8Array => Buffer.from(text, 'latin1');

describe('classifyPrefix', () => {
  // [name, bytes before %PDF-, verdict]: only `text` and `postscript` are refused.
  const table: [string, Uint8Array, Prefix][] = [
    ['nothing', bytes(''), 'none'],
    ['line breaks and NULs', bytes('\r\n\0\0 \t\f'), 'white space'],
    ['a UTF-8 byte-order mark', bytes('\xef\xbb\xbf'), 'binary'],
    ['a MacBinary header', bytes('\0\x0areport.pdf\0\0PDF CARO\xde\xad\xbe\xef'), 'binary'],
    ['a PostScript program', bytes('%!PS-Adobe-3.0\n/a { a } def a\n'), 'postscript'],
    ['`%!` after binary bytes', bytes('\0\x01\x02%!\n{ } loop\n'), 'postscript'],
    ['a DOS EPS binary header', bytes('\xc5\xd0\xd3\xc6\x1e\0\0\0'), 'postscript'],
    ['PostScript without `%!`', bytes('/a { a } def a\n'), 'text'],
    ['`%%` comments, which Ghostscript runs as PostScript', bytes('%%BoundingBox: 0 0 1 1\n'), 'text'],
    ['an HTTP header', bytes('HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\n\r\n'), 'text'],
  ];
  it.each(table)('%s: %s', (_name, prefix, want) => {
    expect(classifyPrefix(prefix)).toBe(want);
  });
});

describe('checkPdfBytes and pdfFromHeader', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-pdf-header-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const input = async (name: string, content: Uint8Array) => ({
    path: await writeFixture(dir, name, content),
    label: `"${name}"`,
  });

  it('reads the header at 0 and hands tools the upload itself', async () => {
    const plain = await input('plain.pdf', await labelledPdf('A', 1));
    expect(await checkPdfBytes(plain)).toBe(0);
    expect(await pdfFromHeader(plain, 0)).toBe(plain.path);
  });

  it('hands tools a copy from the header on after a binary prefix', async () => {
    const wrapped = await input('mac.pdf', await macBinaryPdf());
    const offset = await checkPdfBytes(wrapped);
    expect(offset).toBe(128);
    const copy = await pdfFromHeader(wrapped, offset);
    expect(copy).not.toBe(wrapped.path);
    expect(await readFile(copy)).toEqual((await readFile(wrapped.path)).subarray(128));
  });

  it('refuses PostScript before the header, saying so, without running anything', async () => {
    const polyglot = await input('poly.pdf', await postscriptPolyglotPdf());
    const result = checkPdfBytes(polyglot);
    await expect(result).rejects.toBeInstanceOf(InvalidInputError);
    await expect(result).rejects.toThrow(
      '"poly.pdf" is not a plain PDF: it has PostScript (%!) before its %PDF- header, and only PDF is accepted.',
    );
  });
});
