import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  deepPageTreePdf,
  emptyFile,
  encryptedPdf,
  labelledPdf,
  lyingCountPdf,
  macBinaryPdf,
  manyPagesPdf,
  notAPdf,
  pageLabels,
  pageTreeDagPdf,
  pageTreeLoopPdf,
  postscriptPolyglotPdf,
  truncatedPdf,
  writeFixture,
  zeroPagePdf,
} from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InternalError, InvalidInputError } from '../../errors.js';
import { CpuSlots } from '../cpu-slots.js';
import { ToolAbortedError } from '../run-tool.js';
import { detectTools } from '../tools.js';
import type { EngineLog, InputFile, PageBudget, PdfEngine, WorkContext } from '../types.js';
import { createPdfEngine, type PdfEngineOptions } from './index.js';
import { runPdfLibTask } from './run-pdf-lib-task.js';

// pdf-lib needs seconds to parse the 100,000-page file, more when test files run in parallel: this
// is a guard against a hang, not a speed assertion (speed is measured in bench/).
vi.setConfig({ testTimeout: 60_000 });

const tools = await detectTools();
if (tools.qpdf === undefined)
  console.warn('qpdf is not installed: the qpdf engine tests are skipped (apt-get install qpdf)');

const CORPUS_DIR = fileURLToPath(new URL('../../../../../packages/fixtures/corpus/', import.meta.url));
const silent: EngineLog = { info: () => {}, warn: () => {} };
const MAX_PAGES = 50;
/** Never the limit, except in the tests about it. */
const BUDGET: PageBudget = { maxPages: 10_000, holder: 'the test plan' };

// [engine, skip]: both engines answer the same table; qpdf's rows need qpdf installed.
const engines: ['qpdf' | 'pdf-lib', boolean][] = [
  ['qpdf', tools.qpdf === undefined],
  ['pdf-lib', false],
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-pdf-engines-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function upload(
  name: string,
  bytes: Uint8Array | Promise<Uint8Array>,
  label = name,
): Promise<InputFile> {
  return { path: await writeFixture(join(dir, 'uploads'), name, await bytes), label };
}

async function newJob(signal = new AbortController().signal): Promise<WorkContext> {
  return { workDir: await mkdtemp(join(dir, 'job-')), signal };
}

/** An engine with its own single CPU slot; `changes` replaces the options a test is about. */
function engineFor(
  choice: PdfEngineOptions['choice'],
  changes: Partial<Omit<PdfEngineOptions, 'choice'>> = {},
): PdfEngine {
  return createPdfEngine({
    choice,
    tools,
    cpuSlots: new CpuSlots(1),
    maxPages: MAX_PAGES,
    timeoutMs: 60_000,
    log: silent,
    ...changes,
  });
}

describe.each(engines)('%s engine', (choice, skip) => {
  let engine: PdfEngine;
  beforeAll(() => {
    engine = engineFor(choice, { cpuSlots: new CpuSlots(2) });
  });

  it.skipIf(skip)('names itself', () => {
    expect(engine.info.name).toBe(choice);
    expect(engine.info.version).toMatch(/^\d+\.\d+/);
  });

  it.skipIf(skip)('merges in upload order with exact page counts', async () => {
    const inputs = [
      await upload('b.pdf', labelledPdf('B', 2), 'file 1 (b.pdf)'),
      await upload('a.pdf', labelledPdf('A', 3), 'file 2 (a.pdf)'),
      await upload('c.pdf', labelledPdf('C', 1), 'file 3 (c.pdf)'),
      await upload('b-again.pdf', labelledPdf('B', 2), 'file 4 (b-again.pdf)'),
    ];
    const job = await newJob();
    const output = await engine.merge(inputs, job, BUDGET);
    expect(output.path).toBe(join(job.workDir, 'merged.pdf'));
    expect(output.pageCount).toBe(8);
    expect(output.size).toBe((await stat(output.path)).size);
    expect(await pageLabels(await readFile(output.path))).toEqual([
      'B-1',
      'B-2',
      'A-1',
      'A-2',
      'A-3',
      'C-1',
      'B-1',
      'B-2',
    ]);
  });

  it.skipIf(skip)('splits into one part per range, in the order given', async () => {
    const input = await upload('doc.pdf', labelledPdf('D', 6));
    const job = await newJob();
    const parts = await engine.split(input, ' 4-6 , 1,2-2,1-6, 4-6', job, BUDGET);
    expect(parts.map(({ pages, pageCount }) => ({ pages, pageCount }))).toEqual([
      { pages: '4-6', pageCount: 3 },
      { pages: '1', pageCount: 1 },
      { pages: '2', pageCount: 1 },
      { pages: '1-6', pageCount: 6 },
      { pages: '4-6', pageCount: 3 },
    ]);
    const labels = await Promise.all(parts.map(async (part) => pageLabels(await readFile(part.path))));
    expect(labels).toEqual([
      ['D-4', 'D-5', 'D-6'],
      ['D-1'],
      ['D-2'],
      ['D-1', 'D-2', 'D-3', 'D-4', 'D-5', 'D-6'],
      ['D-4', 'D-5', 'D-6'],
    ]);
    for (const part of parts) expect(part.size).toBe((await stat(part.path)).size);
    expect(new Set(parts.map((part) => part.path)).size).toBe(parts.length);
  });

  it.skipIf(skip)('merges and splits a page tree nested 10,000 deep', async () => {
    const deep = await upload('deep.pdf', deepPageTreePdf(10_000));
    const other = await upload('one.pdf', labelledPdf('O', 1));
    expect((await engine.merge([other, deep], await newJob(), BUDGET)).pageCount).toBe(2);
    expect((await engine.split(deep, '1', await newJob(), BUDGET)).map((part) => part.pageCount)).toEqual([
      1,
    ]);
  });

  // [name, bytes, message fragment]: each bad file is the second of three inputs, so the message
  // must name it, and nothing may be written for it.
  const badInputs: [string, () => Uint8Array | Promise<Uint8Array>, RegExp][] = [
    ['not a PDF', notAPdf, /is not a PDF/],
    ['empty', emptyFile, /is empty/],
    ['truncated', truncatedPdf, /is damaged or truncated/],
    ['encrypted', encryptedPdf, /is encrypted/],
    ['zero pages', zeroPagePdf, /has no pages/],
    [
      'over the page cap',
      () => labelledPdf('X', MAX_PAGES + 1),
      /has 51 pages; this server accepts at most 50/,
    ],
    ['100,000 pages', () => manyPagesPdf(100_000), /has 100000 pages/],
    ['a page tree nested 100,000 deep', () => deepPageTreePdf(100_000), /nested too deeply/],
    ['more pages than its root claims', () => lyingCountPdf(MAX_PAGES + 1, 1), /has 51 pages/],
    ['a page tree with a loop', pageTreeLoopPdf, /its page tree has a loop/],
    ['a page tree listing a node twice', () => pageTreeDagPdf(40), /its page tree has a loop/],
    ['PostScript before its PDF', () => postscriptPolyglotPdf(), /has PostScript \(%!\) before its %PDF-/],
  ];

  it.skipIf(skip).each(badInputs)(
    'refuses to merge a file that is %s, naming it',
    async (name, bytes, message) => {
      const label = `file 2 (${name}.pdf)`;
      const inputs = [
        await upload('first.pdf', labelledPdf('A', 1), 'file 1 (first.pdf)'),
        await upload(`${name}.pdf`, bytes(), label),
        await upload('third.pdf', labelledPdf('C', 1), 'file 3 (third.pdf)'),
      ];
      const job = await newJob();
      const result = engine.merge(inputs, job, BUDGET);
      await expect(result).rejects.toBeInstanceOf(InvalidInputError);
      await expect(result).rejects.toThrow(message);
      await expect(result).rejects.toThrow(label);
      expect(await readdir(job.workDir)).toEqual([]);
    },
  );

  it.skipIf(skip)('names the first of two bad files in upload order', async () => {
    const inputs = [
      await upload('good.pdf', labelledPdf('A', 1), 'file 1 (good.pdf)'),
      await upload('loop.pdf', pageTreeLoopPdf(), 'file 2 (loop.pdf)'),
      await upload('none.pdf', zeroPagePdf(), 'file 3 (none.pdf)'),
    ];
    const result = engine.merge(inputs, await newJob(), BUDGET);
    await expect(result).rejects.toThrow(/file 2 \(loop\.pdf\) cannot be read: its page tree has a loop/);
  });

  it.skipIf(skip)('merges files that together have more pages than one file may', async () => {
    const inputs = [
      await upload('p1.pdf', labelledPdf('P', MAX_PAGES - 1)),
      await upload('p2.pdf', labelledPdf('Q', MAX_PAGES)),
    ];
    expect((await engine.merge(inputs, await newJob(), BUDGET)).pageCount).toBe(2 * MAX_PAGES - 1);
  });

  it.skipIf(skip).each(badInputs)('refuses to split a file that is %s', async (name, bytes, message) => {
    const input = await upload(`${name}.pdf`, bytes());
    const job = await newJob();
    const result = engine.split(input, '1', job, BUDGET);
    await expect(result).rejects.toBeInstanceOf(InvalidInputError);
    await expect(result).rejects.toThrow(message);
    await expect(result).rejects.toThrow(`${name}.pdf`);
    expect(await readdir(job.workDir)).toEqual([]);
  });

  it.skipIf(skip)('refuses invalid ranges with the document page count, writing nothing', async () => {
    const input = await upload('ranges.pdf', labelledPdf('R', 4));
    const job = await newJob();
    const result = engine.split(input, '1-2,3-9', job, BUDGET);
    await expect(result).rejects.toBeInstanceOf(InvalidInputError);
    await expect(result).rejects.toThrow(
      'Invalid page range "3-9": page 9 is past the end of the document (the document has 4 pages).',
    );
    expect(await readdir(job.workDir)).toEqual([]);
  });

  it.skipIf(skip)('merges and splits a PDF behind a binary (MacBinary) header', async () => {
    const wrapped = await upload('mac.pdf', macBinaryPdf());
    const other = await upload('one.pdf', labelledPdf('O', 1));
    const merged = await engine.merge([wrapped, other], await newJob(), BUDGET);
    expect(await pageLabels(await readFile(merged.path))).toEqual(['M-1', 'M-2', 'O-1']);
    const [part] = await engine.split(wrapped, '2', await newJob(), BUDGET);
    expect(await pageLabels(await readFile(part?.path ?? ''))).toEqual(['M-2']);
  });

  it.skipIf(skip)('counts the pages in the tree, not the /Count the file claims', async () => {
    const liar = await upload('liar.pdf', lyingCountPdf(3, 1));
    const other = await upload('two.pdf', labelledPdf('T', 2));
    expect((await engine.merge([liar, other], await newJob(), BUDGET)).pageCount).toBe(5);
    const parts = await engine.split(liar, '1,2-3', await newJob(), BUDGET);
    expect(parts.map((part) => part.pageCount)).toEqual([1, 2]);
  });

  // The plan's page budget is checked once the page counts are known, before any
  // tool writes: nothing lands in the job folder.
  const small: PageBudget = { maxPages: 5, holder: 'the Free plan' };

  it.skipIf(skip)('refuses a merge over the page budget before writing anything', async () => {
    const inputs = [
      await upload('m1.pdf', labelledPdf('M', 3), 'file 1 (m1.pdf)'),
      await upload('m2.pdf', labelledPdf('N', 3), 'file 2 (m2.pdf)'),
    ];
    const job = await newJob();
    await expect(engine.merge(inputs, job, small)).rejects.toThrow(
      'The 2 files have 6 pages in all; the Free plan allows at most 5 pages written per request.',
    );
    expect(await readdir(job.workDir)).toEqual([]);
    const exact = await engine.merge(inputs, await newJob(), { ...small, maxPages: 6 });
    expect(exact.pageCount).toBe(6);
  });

  it.skipIf(skip)('refuses a split over the page budget before writing anything', async () => {
    const input = await upload('budget.pdf', labelledPdf('B', 4));
    const job = await newJob();
    await expect(engine.split(input, '1-4,1-2', job, small)).rejects.toThrow(
      'The 2 ranges ask for 6 pages in all; the Free plan allows at most 5 pages written per request.',
    );
    expect(await readdir(job.workDir)).toEqual([]);
    expect(await engine.split(input, '1-4,1', await newJob(), small)).toHaveLength(2);
  });

  it.skipIf(skip)('does not start a job whose request was already aborted', async () => {
    const inputs = [await upload('x.pdf', labelledPdf('X', 1)), await upload('y.pdf', labelledPdf('Y', 1))];
    const controller = new AbortController();
    controller.abort(new ToolAbortedError('test'));
    const job = await newJob(controller.signal);
    await expect(engine.merge(inputs, job, BUDGET)).rejects.toBeInstanceOf(ToolAbortedError);
    expect(await readdir(job.workDir)).toEqual([]);
  });

  it.skipIf(skip)('stops a running job when its request is aborted', async () => {
    const inputs = [
      await upload('r1.pdf', labelledPdf('R', 40)),
      await upload('r2.pdf', labelledPdf('S', 40)),
    ];
    const controller = new AbortController();
    const job = await newJob(controller.signal);
    // The job has started (a CPU slot was free) and is reading its first file when this aborts.
    const result = engine.merge(inputs, job, BUDGET);
    controller.abort();
    await expect(result).rejects.toBeInstanceOf(ToolAbortedError);
  });

  it.skipIf(skip)('stops a job whose tool runs past the timeout, as an internal error', async () => {
    const slow = engineFor(choice, { timeoutMs: 1 });
    const inputs = [
      await upload('s1.pdf', labelledPdf('S', 40)),
      await upload('s2.pdf', labelledPdf('T', 40)),
    ];
    await expect(slow.merge(inputs, await newJob(), BUDGET)).rejects.toBeInstanceOf(InternalError);
  });
});

// A PDF encrypted with an owner password only (permissions) opens without a password: qpdf decrypts
// it, pdf-lib cannot. The fixture is made with qpdf itself, since pdf-lib cannot encrypt.
describe.skipIf(tools.qpdf === undefined)('a PDF that opens without a password', () => {
  let input: InputFile;
  beforeAll(async () => {
    const plain = await writeFixture(join(dir, 'uploads'), 'plain.pdf', await labelledPdf('P', 3));
    const path = join(dir, 'uploads', 'owner-only.pdf');
    const made = spawnSync('qpdf', ['--encrypt', '', 'owner-secret', '256', '--', plain, path]);
    expect(made.status).toBe(0);
    input = { path, label: 'owner-only.pdf' };
  });

  it('is split by qpdf into parts that carry no encryption', async () => {
    const engine = engineFor('qpdf');
    const parts = await engine.split(input, '2-3', await newJob(), BUDGET);
    expect(parts.map((part) => part.pageCount)).toEqual([2]);
    // --requires-password: exit 2 means "not encrypted" (3 would be "encrypted, no password needed").
    expect(spawnSync('qpdf', ['--requires-password', parts[0]?.path ?? '']).status).toBe(2);
    expect(await pageLabels(await readFile(parts[0]?.path ?? ''))).toEqual(['P-2', 'P-3']);
  });

  it('is refused by pdf-lib, which cannot decrypt', async () => {
    const engine = engineFor('pdf-lib');
    await expect(engine.split(input, '1', await newJob(), BUDGET)).rejects.toThrow(
      'owner-only.pdf is encrypted, and this server cannot read encrypted PDFs.',
    );
  });
});

/**
 * A corpus file with, for each edit, the `occurrence`th (from 0) match of `pattern` replaced: the
 * e2e fuzzer's findings, made again by hand on the file it mutated.
 */
async function corpusFileWith(name: string, edits: readonly [RegExp, number, string][]): Promise<Buffer> {
  let text = await readFile(join(CORPUS_DIR, name), 'latin1');
  for (const [pattern, occurrence, replacement] of edits) {
    const match = [...text.matchAll(new RegExp(pattern, 'g'))][occurrence];
    if (match?.index === undefined) throw new Error(`${name} has no match ${occurrence} of ${pattern}`);
    text = text.slice(0, match.index) + replacement + text.slice(match.index + match[0].length);
  }
  return Buffer.from(text, 'latin1');
}

// Found by the e2e fuzzer: a real file (pdf.js corpus, written by Ghostscript) whose trailer says
// /Size 99999999999999999999. The page walk needs no /Size and passes it; qpdf then fails with an
// error that names no file, which must still be blamed on the input, never answered 500.
describe.skipIf(tools.qpdf === undefined)('a PDF whose trailer /Size no integer holds', () => {
  it('is refused by qpdf as damaged, naming it, in a merge and in a split', async () => {
    const bytes = await corpusFileWith('ghostscript-stencil.pdf', [
      [/\/Size \d+/, 0, '/Size 99999999999999999999'],
    ]);
    const label = 'file 2 (size.pdf)';
    const engine = engineFor('qpdf');
    const inputs = [await upload('first.pdf', labelledPdf('A', 1)), await upload('size.pdf', bytes, label)];
    await expect(engine.merge(inputs, await newJob(), BUDGET)).rejects.toThrow(
      `${label} is damaged or truncated`,
    );
    await expect(engine.split(inputs[1] as InputFile, '1', await newJob(), BUDGET)).rejects.toThrow(
      `${label} is damaged or truncated`,
    );
  });
});

// Found by the e2e fuzzer (pdf-lib compress): a real file (pdf.js corpus, written by ImageMagick) whose
// second page names the catalog as its /Parent. pdf-lib climbs /Parent for inherited attributes and
// threw a TypeError (500); the page tree check refuses it first, naming the file.
describe('a PDF whose page names a /Parent that is no /Pages node', () => {
  it('is refused by pdf-lib as damaged, naming it', async () => {
    const lying = await corpusFileWith('imagemagick-six-images.pdf', [
      [/\/Parent 2 0 R/, 1, '/Parent 1 0 R'],
    ]);
    const input = await upload('parent.pdf', lying, 'file 1 (parent.pdf)');
    await expect(engineFor('pdf-lib').split(input, '1', await newJob(), BUDGET)).rejects.toThrow(
      'file 1 (parent.pdf) is damaged or truncated',
    );
  });
});

// Found by the e2e fuzzer (pdf-lib compress): a real file (pdf.js corpus, written by Acrobat) whose
// second /Size says 2147483647 and whose second startxref says 0. pdf-lib follows it until its worker
// runs out of heap: the worker's limit holds, and the answer names the file (400), not the server (500).
describe('a PDF on which pdf-lib runs out of memory', () => {
  it('is refused, naming it', { timeout: 120_000 }, async () => {
    const lying = await corpusFileWith('acrobat-acroform.pdf', [
      [/\/Size \d+/, 1, '/Size 2147483647'],
      [/startxref\s+\d+/, 1, 'startxref\n0'],
    ]);
    const input = await upload('xref.pdf', lying, 'file 1 (xref.pdf)');
    const job = await newJob();
    // The engine's split, with a heap of 64 MiB rather than 2 GiB: filling 2 GiB took 30-60 s here,
    // 64 MiB a second.
    const split = runPdfLibTask(
      'split',
      { input, ranges: '1', maxPages: MAX_PAGES, budget: BUDGET, workDir: job.workDir },
      { timeoutMs: 100_000, blame: input.label, heapMb: 64 },
    );
    await expect(split).rejects.toThrow('file 1 (xref.pdf) cannot be processed');
  });
});

describe('createPdfEngine', () => {
  it.skipIf(tools.qpdf === undefined)('picks qpdf on auto when it is installed, and logs the choice', () => {
    const logged: [string, Record<string, unknown> | undefined][] = [];
    const log: EngineLog = { info: (message, fields) => logged.push([message, fields]), warn: () => {} };
    const engine = engineFor('auto', { log });
    expect(engine.info).toEqual({ name: 'qpdf', version: tools.qpdf?.version });
    expect(logged).toEqual([
      [
        `PDF engine: qpdf ${tools.qpdf?.version}`,
        { choice: 'auto', engine: 'qpdf', version: tools.qpdf?.version },
      ],
    ]);
  });

  it('picks pdf-lib on auto when qpdf is not installed, and warns that it is missing', () => {
    const warned: string[] = [];
    const log: EngineLog = { info: () => {}, warn: (message) => warned.push(message) };
    expect(engineFor('auto', { tools: {}, log }).info.name).toBe('pdf-lib');
    expect(warned).toEqual([expect.stringMatching(/^PDF engine: pdf-lib /)]);
  });

  it('uses pdf-lib when forced, even with qpdf installed', () => {
    expect(engineFor('pdf-lib').info.name).toBe('pdf-lib');
  });

  it('refuses to start when qpdf is forced but not installed', () => {
    expect(() => engineFor('qpdf', { tools: {} })).toThrow(/qpdf was not found on PATH/);
  });
});
