// The in-process walk must never disagree with qpdf's: it either counts the pages qpdf's walk counts, or
// leaves the file to qpdf (a Doubt). Checked on generated good and bad files, on the real-world corpus,
// and on fuzzed mutations of both, with qpdf's walk (walkPages) as the judge.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deflateSync } from 'node:zlib';
import {
  deepPageTreePdf,
  encryptedPdf,
  lyingCountPdf,
  manyPagesPdf,
  pageTreeDagPdf,
  pageTreeLoopPdf,
  textPdf,
  truncatedPdf,
  zeroPagePdf,
} from '@pdn/fixtures';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { detectTools } from '../../tools.js';
import { type PageWalk, walkPages } from '../run-qpdf.js';
import { type PageTreeWalk, walkPageTree } from './page-tree-walk.js';
import { Doubt, PdfReader } from './pdf-syntax.js';
import { MAX_TOKENS } from './walk-budget.js';

// A guard against a hang on a loaded machine, not a speed assertion (speed is measured in bench/).
vi.setConfig({ testTimeout: 300_000 });

const run = promisify(execFile);
const { qpdf } = await detectTools();
const CORPUS_DIR = fileURLToPath(new URL('../../../../../../packages/fixtures/corpus/', import.meta.url));
const MAX_PAGES = 5000;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-page-walk-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The walk's answer, or undefined for a Doubt; any other exception fails the test. */
function walk(bytes: Uint8Array, maxPages = MAX_PAGES): PageTreeWalk | undefined {
  try {
    return walkPageTree(Buffer.from(bytes), maxPages);
  } catch (error) {
    if (error instanceof Doubt) return undefined;
    throw error;
  }
}

let qpdfRuns = 0;
async function qpdfWalk(bytes: Uint8Array): Promise<PageWalk> {
  if (qpdf === undefined) throw new Error('qpdf is not installed');
  const path = join(dir, `judged-${qpdfRuns++}.pdf`);
  await writeFile(path, bytes);
  try {
    return await walkPages(path, { qpdf, cwd: dir, timeoutMs: 120_000 });
  } finally {
    await rm(path, { force: true });
  }
}

/** qpdf rewrites `bytes` with `args` (e.g. into object and cross-reference streams). */
async function rewritten(bytes: Uint8Array, ...args: string[]): Promise<Uint8Array> {
  const [input, output] = [join(dir, 'rewrite-in.pdf'), join(dir, 'rewrite-out.pdf')];
  await writeFile(input, bytes);
  await run('qpdf', [...args, input, output]);
  return readFile(output);
}

describe('walkPageTree', () => {
  const table: [string, { given: () => Uint8Array | Promise<Uint8Array>; want: number | undefined }][] = [
    ['a pdf-lib file (object and cross-reference streams)', { given: () => textPdf({ pages: 7 }), want: 7 }],
    ['a /Count lie of 1 over 3 pages: the pages walked', { given: () => lyingCountPdf(3, 1), want: 3 }],
    ['zero pages: counted, for the caller to refuse', { given: zeroPagePdf, want: 0 }],
    ['a loop: left to qpdf', { given: pageTreeLoopPdf, want: undefined }],
    ['a node listed twice: left to qpdf', { given: () => pageTreeDagPdf(), want: undefined }],
    ['a tree nested 10,000 deep: left to qpdf', { given: () => deepPageTreePdf(10_000), want: undefined }],
    ['more pages than the cap: left to qpdf', { given: () => manyPagesPdf(MAX_PAGES + 1), want: undefined }],
    ['an encrypted file: left to qpdf', { given: encryptedPdf, want: undefined }],
    ['a truncated file: left to qpdf', { given: truncatedPdf, want: undefined }],
  ];
  it.each(table)('%s', async (_, { given, want }) => {
    expect(walk(await given())?.pageCount).toBe(want);
  });

  it.skipIf(qpdf === undefined)(
    'reads what qpdf writes: tables, and streams with a PNG predictor',
    async () => {
      const pdf = await textPdf({ pages: 12 });
      expect(walk(await rewritten(pdf, '--object-streams=disable'))).toEqual({
        pageCount: 12,
        rootCount: 12,
      });
      expect(walk(await rewritten(pdf, '--object-streams=generate'))).toEqual({
        pageCount: 12,
        rootCount: 12,
      });
    },
  );
});

/**
 * A PDF with a cross-reference stream (uncompressed, W [1 4 2]): `direct` objects by number, and
 * `compressed` ones in object stream `streamNum` at the given offsets into `streamBody`.
 */
function xrefStreamPdf(o: {
  direct: Record<number, string>;
  streamNum: number;
  streamBody: Buffer;
  streamDict?: string;
  compressed: { num: number; at: number }[];
}): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const length = () => parts.reduce((sum, part) => sum + part.length, 0);
  const rows = new Map<number, number[]>();
  for (const [num, body] of Object.entries(o.direct)) {
    rows.set(Number(num), [1, length(), 0]);
    parts.push(Buffer.from(`${num} 0 obj\n${body}\nendobj\n`));
  }
  const header = o.compressed.map(({ num, at }) => `${num} ${at}`).join(' ');
  const first = header.length + 1;
  const body = Buffer.concat([Buffer.from(`${header}\n`), o.streamBody]);
  rows.set(o.streamNum, [1, length(), 0]);
  const dict = o.streamDict ?? `/Length ${body.length}`;
  parts.push(
    Buffer.from(
      `${o.streamNum} 0 obj\n<< /Type /ObjStm /N ${o.compressed.length} /First ${first} ${dict} >>\nstream\n`,
    ),
  );
  parts.push(body, Buffer.from('\nendstream\nendobj\n'));
  for (const [index, { num }] of o.compressed.entries()) rows.set(num, [2, o.streamNum, index]);
  const size = Math.max(...rows.keys()) + 2;
  rows.set(size - 1, [1, length(), 0]);
  const table = Buffer.alloc(size * 7);
  for (let num = 0; num < size; num++) {
    const [type, second, third] = rows.get(num) ?? [0, 0, 65535];
    table.writeUInt8(type as number, num * 7);
    table.writeUInt32BE(second as number, num * 7 + 1);
    table.writeUInt16BE(third as number, num * 7 + 5);
  }
  const xrefAt = length();
  parts.push(
    Buffer.from(
      `${size - 1} 0 obj\n<< /Type /XRef /Size ${size} /W [1 4 2] /Root 1 0 R /Length ${table.length} >>\nstream\n`,
    ),
  );
  parts.push(table, Buffer.from(`\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/**
 * A plain file (a cross-reference table, no streams) of `pages` pages, each padded to about
 * `padBytes` with `pad` repeated in an array: all of it within the file and parse budgets.
 */
function paddedPagesPdf(pages: number, pad: string, padBytes: number): Buffer {
  const padding = `/Pad [${pad.repeat(Math.ceil(padBytes / pad.length))}]`;
  const parts: string[] = ['%PDF-1.7\n'];
  let length = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  const object = (num: number, text: string) => {
    offsets[num] = length;
    const written = `${num} 0 obj\n${text}\nendobj\n`;
    parts.push(written);
    length += written.length;
  };
  const kids = Array.from({ length: pages }, (_, i) => `${3 + i} 0 R`).join(' ');
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`);
  for (let i = 0; i < pages; i++) object(3 + i, `<< /Type /Page /Parent 2 0 R ${padding} >>`);
  const entries = offsets.slice(1).map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`);
  parts.push(`xref\n0 ${pages + 3}\n0000000000 65535 f \n${entries.join('')}`);
  parts.push(`trailer\n<< /Size ${pages + 3} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`);
  return Buffer.from(parts.join(''), 'latin1');
}

describe('walkPageTree spends a bounded effort on hostile files', () => {
  it('reads a plain file of padded pages (the builder below is sound)', () => {
    expect(walk(paddedPagesPdf(3, '/a ', 64))).toEqual({ pageCount: 3, rootCount: 3 });
  });

  // An attack: 8 MB of 4000 pages padded with names or reals held the event loop 1 to 3 s:
  // each token costs far more than a byte, so the tokens read are bounded, not only the bytes.
  it.each([
    ['names', '/a '],
    ['reals', '1.5 '],
  ])('gives up on 8 MB of pages padded with %s, having read at most its budget of tokens', (_, pad) => {
    const pdf = paddedPagesPdf(4000, pad, 2000);
    expect(pdf.length).toBeGreaterThan(7.5 * 1024 * 1024);
    const values = vi.spyOn(PdfReader.prototype, 'value');
    try {
      expect(walk(pdf)).toBeUndefined();
      expect(values.mock.calls.length).toBeLessThanOrEqual(MAX_TOKENS);
    } finally {
      values.mockRestore();
    }
  });

  const kids = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => `${from + i} 0 R`).join(' ');

  it('reads a page tree kept in an object stream (the builder below is sound)', () => {
    const pdf = xrefStreamPdf({
      direct: {
        1: '<< /Type /Catalog /Pages 2 0 R >>',
        2: `<< /Type /Pages /Kids [${kids(10, 3)}] /Count 3 >>`,
      },
      streamNum: 5,
      streamBody: Buffer.from('<< /Type /Page >>'),
      compressed: [10, 11, 12].map((num) => ({ num, at: 0 })),
    });
    expect(walk(pdf)).toEqual({ pageCount: 3, rootCount: 3 });
  });

  it('gives up on an object stream that inflates past the budget (a deflate bomb)', () => {
    const bomb = deflateSync(Buffer.alloc(80 * 1024 * 1024, 0x20));
    const pdf = xrefStreamPdf({
      direct: { 1: '<< /Type /Catalog /Pages 2 0 R >>', 2: '<< /Type /Pages /Kids [10 0 R] /Count 1 >>' },
      streamNum: 5,
      streamBody: bomb,
      streamDict: `/Filter /FlateDecode /Length ${bomb.length + 3}`,
      compressed: [{ num: 10, at: 0 }],
    });
    expect(walk(pdf)).toBeUndefined();
  });

  it('gives up when thousands of pages point at the same megabyte of an object stream', () => {
    const pages = 4000;
    const pdf = xrefStreamPdf({
      direct: { 1: '<< /Type /Catalog /Pages 2 0 R >>', 2: `<< /Type /Pages /Kids [${kids(10, pages)}] >>` },
      streamNum: 5,
      streamBody: Buffer.from(`<< /Type /Page /Pad [${'0 '.repeat(512 * 1024)}] >>`),
      compressed: Array.from({ length: pages }, (_, i) => ({ num: 10 + i, at: 0 })),
    });
    expect(walk(pdf)).toBeUndefined();
  });
});

describe.skipIf(qpdf === undefined)('walkPageTree against qpdf', () => {
  it('agrees with qpdf on every file of the real-world corpus it answers for, and answers for most', async () => {
    const names = (await readdir(CORPUS_DIR)).filter((name) => name.toLowerCase().endsWith('.pdf'));
    let answered = 0;
    for (const name of names) {
      const bytes = await readFile(join(CORPUS_DIR, name));
      const ours = walk(bytes);
      if (ours === undefined) continue;
      answered++;
      expect({ name, walk: await qpdfWalk(bytes) }).toEqual({ name, walk: { pageCount: ours.pageCount } });
    }
    // The files left to qpdf are damaged, encrypted, hybrid or looping ones: the fast path is for the
    // common case (66 of the 76 files when this was written).
    expect(answered).toBeGreaterThan(names.length * 0.75);
  });

  it('never throws anything but a Doubt on fuzzed files, and agrees with qpdf whenever it answers', async () => {
    const names = (await readdir(CORPUS_DIR)).filter((name) => name.toLowerCase().endsWith('.pdf'));
    const seeds = [
      await textPdf({ pages: 3 }),
      await rewritten(await textPdf({ pages: 3 }), '--object-streams=disable'),
      await rewritten(await textPdf({ pages: 3 }), '--object-streams=generate'),
      ...(await Promise.all(names.slice(0, 20).map((name) => readFile(join(CORPUS_DIR, name))))),
    ];
    // Edits land anywhere, or near the end, where the cross-reference and trailer are read first.
    const position = fc.oneof(
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0.97, max: 1, noNaN: true }),
    );
    const token = fc.constantFrom(
      '<<',
      '>>',
      '[',
      ']',
      '(',
      ')',
      '<',
      '/Kids',
      '/Type /Pages',
      '/Page',
      ' R',
      ' 0',
      '9999999999',
      ' obj',
      'endobj',
      'stream\n',
      'xref',
      'startxref',
      '%',
      '#',
    );
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('flip' as const), at: position, bit: fc.nat(7) }),
      fc.record({ kind: fc.constant('truncate' as const), at: position }),
      fc.record({ kind: fc.constant('insert' as const), at: position, text: token }),
      fc.record({
        kind: fc.constant('delete' as const),
        at: position,
        length: fc.integer({ min: 1, max: 64 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.nat(seeds.length - 1),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        async (seed, edits) => {
          let bytes = Buffer.from(seeds[seed] as Uint8Array);
          for (const edit of edits) {
            const at = Math.min(bytes.length - 1, Math.floor(edit.at * bytes.length));
            if (edit.kind === 'flip') bytes[at] = (bytes[at] as number) ^ (1 << edit.bit);
            if (edit.kind === 'truncate') bytes = bytes.subarray(0, at);
            if (edit.kind === 'insert')
              bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(edit.text), bytes.subarray(at)]);
            if (edit.kind === 'delete')
              bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + edit.length)]);
          }
          const ours = walk(bytes);
          if (ours !== undefined) expect(await qpdfWalk(bytes)).toEqual({ pageCount: ours.pageCount });
        },
      ),
      { numRuns: Number(process.env.PDN_FUZZ_RUNS ?? 300) },
    );
  });
});

/**
 * A file whose cross-reference leads to a one-page tree, with a second object 2 (a three-page tree)
 * written after the first, as a reader that rebuilds the cross-reference by scanning the file finds
 * it. `edit` then changes the table or the tail, each way qpdf 11.3 repairs and this walk did not.
 */
function hiddenTreePdf(
  edit: (tail: string) => string,
  root = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
): Buffer {
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  const object = (num: number, text: string) => {
    offsets[num] = body.length;
    body += `${num} 0 obj\n${text}\nendobj\n`;
  };
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, root);
  for (const num of [3, 4, 5]) object(num, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>');
  body += '2 0 obj\n<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>\nendobj\n';
  const entries = offsets.slice(1).map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`);
  const table = `xref\n0 6\n0000000000 65535 f \n${entries.join('')}trailer\n<< /Size 6 /Root 1 0 R >>\n`;
  return Buffer.from(body + edit(`${table}startxref\n${body.length}\n%%EOF\n`), 'latin1');
}

describe('walkPageTree leaves to qpdf every file qpdf reads another way', () => {
  // What qpdf 11.3 finds in each: 3 pages where it rebuilds the cross-reference. The 21-byte entries
  // qpdf reads as this walk did, but Ghostscript 10.00 rebuilds that table and draws 3 pages: a file
  // read two ways is qpdf's to judge.
  const table: [string, (tail: string) => string, number][] = [
    ['startxref more than 1054 bytes from the end', (tail) => `${tail}${' '.repeat(1100)}`, 3],
    ['`xref` run into its first subsection', (tail) => tail.replace('xref\n0', 'xref0'), 3],
    ['a comment after `xref`', (tail) => tail.replace('xref\n', 'xref %c\n'), 3],
    ['a comment between entries', (tail) => tail.replace('65535 f \n', '65535 f \n%c\n'), 3],
    ['21-byte entries', (tail) => tail.replaceAll(' n \n', ' n  \n'), 1],
  ];
  it('reads the untouched file (the builder is sound)', async () => {
    const pdf = hiddenTreePdf((tail) => tail);
    expect(walk(pdf)).toEqual({ pageCount: 1, rootCount: 1 });
    if (qpdf !== undefined) expect(await qpdfWalk(pdf)).toEqual({ pageCount: 1 });
  });
  it.each(table)('%s', async (_, edit, qpdfPages) => {
    const pdf = hiddenTreePdf(edit);
    expect(walk(pdf)).toBeUndefined();
    if (qpdf !== undefined) expect(await qpdfWalk(pdf)).toEqual({ pageCount: qpdfPages });
  });

  it('a trailer dictionary followed by `stream` (qpdf finds no trailer)', async () => {
    // Found by the fuzz test above (seed -328018986): `stream` inserted after the trailer's `>>`.
    const pdf = hiddenTreePdf((tail) => tail.replace('/Root 1 0 R >>\n', '/Root 1 0 R >>stream\n'));
    expect(walk(pdf)).toBeUndefined();
    if (qpdf !== undefined) expect(await qpdfWalk(pdf)).not.toEqual({ pageCount: 1 });
  });

  it('a /Pages node that is a stream (qpdf takes it for a page)', async () => {
    const root = '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /Length 2 >>\nstream\nxx\nendstream';
    const pdf = hiddenTreePdf((tail) => tail, root);
    expect(walk(pdf)).toBeUndefined();
    if (qpdf !== undefined) expect(await qpdfWalk(pdf)).not.toEqual({ pageCount: 2 });
  });

  it('a startxref one byte into its stream, on `1 0 obj` inside `31 0 obj` (qpdf takes it for the catalog)', async () => {
    // Found by the fuzz test above (seed -1836777689): a byte deleted before the stream did the same.
    const original = await readFile(join(CORPUS_DIR, 'chrome-138-print.pdf'));
    expect(walk(original)).toEqual({ pageCount: 1, rootCount: 1 });
    const pdf = Buffer.from(
      original.toString('latin1').replace('startxref\n49015', 'startxref\n49016'),
      'latin1',
    );
    expect(pdf.equals(original)).toBe(false);
    expect(walk(pdf)).toBeUndefined();
    if (qpdf !== undefined) expect(await qpdfWalk(pdf)).not.toEqual({ pageCount: 1 });
  });

  it('an object stream listing one object twice (qpdf reads the last, the index names the first)', async () => {
    const pdf = xrefStreamPdf({
      direct: { 1: '<< /Type /Catalog /Pages 2 0 R >>' },
      streamNum: 5,
      streamBody: Buffer.from(
        '<< /Type /Pages /Kids [10 0 R] >>\n<< /Type /Pages /Kids [10 0 R 11 0 R 12 0 R] >>\n' +
          '<< /Type /Page >>',
      ),
      compressed: [{ num: 2, at: 0 }, { num: 2, at: 34 }, ...[10, 11, 12].map((num) => ({ num, at: 82 }))],
    });
    expect(walk(pdf)).toBeUndefined();
    if (qpdf !== undefined) expect(await qpdfWalk(pdf)).toEqual({ pageCount: 3 });
  });
});
