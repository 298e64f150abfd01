import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cameraPdf,
  embeddedFontPdf,
  emptyFile,
  encryptedPdf,
  imageMagickSixImagesPdf,
  infoIsPageTreePdf,
  lyingCountPdf,
  photoPdf,
  postscriptAsPdf,
  scanPdf,
  textPdf,
  truncatedPdf,
  writeFixture,
  zeroPagePdf,
} from '@pdn/fixtures';
import { PDFDocument, PDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../errors.js';
import { CpuSlots } from '../cpu-slots.js';
import { PDF_LIB_WORKER_URL } from '../pdf/run-pdf-lib-task.js';
import { runTool, ToolAbortedError } from '../run-tool.js';
import { tempFolders } from '../temp-folders.js';
import { detectTools } from '../tools.js';
import type { CompressEngine, CompressionLevel, CompressOutput, EngineLog } from '../types.js';
import { CONTENT_FLOORS } from './content-check/floors.js';
import { comparePgmFiles } from './content-check/pgm.js';
import { createCompressEngine } from './index.js';
import { hasLegacyInterpreter } from './presets.js';
import { pdfwriteGhostscripts } from './test-ghostscripts.js';

const tools = await detectTools();
const CORPUS = new URL('../../../../../packages/fixtures/corpus/', import.meta.url);
const hasGs = tools.ghostscript !== undefined;
if (!hasGs) {
  console.warn(
    'Ghostscript is not installed: Ghostscript compress tests are skipped (apt-get install ghostscript)',
  );
}
if (!existsSync(PDF_LIB_WORKER_URL)) {
  throw new Error('The pdf-lib worker runs from dist/: build @pdn/server before running these tests');
}

// Real tools on real files: seconds, not milliseconds. No test asserts a duration: the bench shows speed.
const SLOW = { timeout: 120_000 };
const quietLog = { info: () => {}, warn: () => {} };
/** One engine per choice for the whole file, as a server has: each keeps Ghostscripts waiting. */
const engines = new Map<'ghostscript' | 'pdf-lib', CompressEngine>();
const engineFor = (choice: 'ghostscript' | 'pdf-lib'): CompressEngine => {
  const made =
    engines.get(choice) ??
    createCompressEngine({
      choice,
      tools,
      cpuSlots: new CpuSlots(2),
      maxPages: 5000,
      timeoutMs: 120_000,
      folders: tempFolders,
      log: quietLog,
    });
  engines.set(choice, made);
  return made;
};

// The kinds of PDF every level is tried on, generated once: [bytes, pages].
const corpus = {
  text: [await textPdf({ pages: 3 }), 3],
  photo: [await photoPdf({ pages: 2 }), 2],
  scan: [await scanPdf({ pages: 1 }), 1],
} as const;
type Kind = keyof typeof corpus;
const levels: CompressionLevel[] = ['low', 'medium', 'high'];
const cases = (['text', 'photo', 'scan'] as const).flatMap((kind) =>
  levels.map((level) => [kind, level] as const),
);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-compress-'));
});
afterAll(async () => {
  await Promise.all([...engines.values()].map((engine) => engine.close()));
  await rm(dir, { recursive: true, force: true });
});

/** Runs one compression in a fresh work folder, like a request does; `warnings` are its log's. */
async function compress(engine: CompressEngine, name: string, bytes: Uint8Array, level: CompressionLevel) {
  const path = await writeFixture(dir, `${name}.pdf`, bytes);
  const workDir = await mkdtemp(join(dir, 'job-'));
  const signal = new AbortController().signal;
  const warnings: string[] = [];
  const log: EngineLog = {
    info: () => {},
    warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`),
  };
  const output = await engine.compress({ path, label: `${name}.pdf` }, level, { workDir, signal, log });
  return { output, inputSize: bytes.length, inputPath: path, warnings };
}

// poppler renders independently of Ghostscript, so it can tell whether what Ghostscript wrote looks like
// the input, as a person opening both would.
const hasPdftoppm = spawnSync('pdftoppm', ['-v']).status === 0;
if (!hasPdftoppm)
  console.warn('pdftoppm is not installed: the pictures of compressed pages are not compared');

/**
 * Every page of `output` within the content floor of the same page of `input`, both rendered by poppler
 * 400 pixels long whatever the page size (ImageMagick's pages are 0.05 inches: 2x2 pixels at 40 dpi).
 */
async function expectSamePictures(input: string, output: string, pages: number) {
  const render = async (pdf: string, prefix: string) => {
    const result = await runTool('pdftoppm', ['-scale-to', '400', '-gray', pdf, join(dir, prefix)], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const digits = String(pages).length;
    return Array.from({ length: pages }, (_, i) =>
      join(dir, `${prefix}-${String(i + 1).padStart(digits, '0')}.pgm`),
    );
  };
  const prefix = `poppler-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const [before, after] = [await render(input, `${prefix}-in`), await render(output, `${prefix}-out`)];
  for (const [index, page] of before.entries()) {
    const { psnrDb } = await comparePgmFiles(page, after[index] as string);
    expect(psnrDb, `page ${index + 1}`).toBeGreaterThanOrEqual(CONTENT_FLOORS.psnrDb);
  }
}

/** Valid by a parser other than the one that wrote it where possible: qpdf --check, and pdf-lib. */
async function expectValidPdf(output: CompressOutput, pages: number) {
  if (tools.qpdf !== undefined) {
    const check = await runTool(tools.qpdf.path, ['--check', output.path], { cwd: dir, timeoutMs: 60_000 });
    expect(check.exitCode, check.stderr).toBe(0);
  }
  const doc = await PDFDocument.load(await readFile(output.path));
  expect(doc.getPageCount()).toBe(pages);
  expect(output.pageCount).toBe(pages);
  expect(output.size).toBe((await stat(output.path)).size);
}

/** Compresses `bytes` at `first`, then that output at `again`: expects it back unchanged as `original`. */
async function expectOriginalOnSecondPass(
  engine: CompressEngine,
  name: string,
  bytes: Uint8Array,
  first: CompressionLevel,
  again: CompressionLevel,
) {
  const once = await compress(engine, `${name}-once`, bytes, first);
  const onceBytes = await readFile(once.output.path);
  const twice = await compress(engine, `${name}-again`, onceBytes, again);
  expect(twice.output.method).toBe('original');
  expect(twice.output.size).toBe(onceBytes.length);
  expect(await readFile(twice.output.path)).toEqual(onceBytes);
}

describe.skipIf(!hasGs)('Ghostscript engine', () => {
  const engine = engineFor('ghostscript');

  it.each(cases)('compresses %s at %s to a valid PDF no larger than the input', SLOW, async (kind, level) => {
    const [bytes, pages] = corpus[kind];
    const { output, inputSize } = await compress(engine, `gs-${kind}-${level}`, bytes, level);
    await expectValidPdf(output, pages);
    expect(output.size).toBeLessThanOrEqual(inputSize);
  });

  // What the engine must achieve: a photo-heavy PDF at `high` well under half its size. Scans and text shrink
  // too (the measurement in README.md).
  const shrinks: [Kind, CompressionLevel, number][] = [
    ['photo', 'high', 0.2],
    ['photo', 'medium', 0.5],
    ['scan', 'high', 0.5],
    ['text', 'medium', 0.9],
  ];
  it.each(shrinks)('shrinks %s at %s below %s of its size', SLOW, async (kind, level, ratio) => {
    const { output, inputSize } = await compress(
      engine,
      `gs-shrink-${kind}-${level}`,
      corpus[kind][0],
      level,
    );
    expect(output.method).toMatch(/^ghostscript/);
    expect(output.size / inputSize).toBeLessThan(ratio);
  });

  it.skipIf(tools.qpdf === undefined)(
    'falls back to qpdf alone when Ghostscript cannot shrink the file (300 dpi JPEGs at low)',
    SLOW,
    async () => {
      const { output, inputSize } = await compress(engine, 'gs-photo-low-qpdf', corpus.photo[0], 'low');
      expect(output.method).toBe('qpdf');
      expect(output.size).toBeLessThan(inputSize);
    },
  );

  it('returns the input unchanged as `original` when no method makes it smaller', SLOW, async () => {
    // `high` leaves 100 dpi images; `low` asks for 300 dpi, so nothing it does can beat that file.
    await expectOriginalOnSecondPass(engine, 'gs', corpus.photo[0], 'high', 'low');
  });

  // Four camera JPEGs at 96 ppi once came back 0.02% smaller from every preset, because Ghostscript
  // passes JPEGs through and only downsamples above 1.5x the target. `medium` re-encodes them; `high`
  // also downsamples them to 72 dpi.
  const camera = cameraPdf({ pages: 2, width: 1600, height: 1200, ppi: 96, seed: 9 });
  it.each([
    ['medium', 0.3],
    ['high', 0.15],
  ] as const)('shrinks camera JPEGs at 96 ppi at %s below %s of their size', SLOW, async (level, ratio) => {
    const { output, inputSize, inputPath } = await compress(
      engine,
      `gs-camera-${level}`,
      await camera,
      level,
    );
    expect(output.method).toMatch(/^ghostscript/);
    expect(output.size / inputSize).toBeLessThan(ratio);
    if (hasPdftoppm) await expectSamePictures(inputPath, output.path, 2);
  });
});

// What is known to fail is not paid for, and what is lossless is not rendered: a form goes to qpdf's
// rewrite without a Ghostscript run (pdfwrite drops form fields, so the check refused every rewrite of
// such a file), and qpdf's rewrite of a file it read without repairs is proven by its page count and
// structure alone. The engine's `compressed` log line says which phases ran.
describe.skipIf(!hasGs || tools.qpdf === undefined)('Ghostscript engine on a form', () => {
  it(
    "answers Acrobat's form with qpdf's rewrite, neither rewritten by Ghostscript nor rendered",
    SLOW,
    async () => {
      const path = fileURLToPath(new URL('acrobat-acroform.pdf', CORPUS));
      const workDir = await mkdtemp(join(dir, 'job-'));
      const logged: Record<string, unknown>[] = [];
      const log: EngineLog = {
        info: (message, fields) => {
          if (message === 'compressed') logged.push(fields ?? {});
        },
        warn: () => {},
      };
      const engine = engineFor('ghostscript');
      const output = await engine.compress({ path, label: 'form.pdf' }, 'medium', {
        workDir,
        signal: new AbortController().signal,
        log,
      });
      expect(output.method).toBe('qpdf');
      await expectValidPdf(output, 1);
      expect(logged).toEqual([expect.objectContaining({ ghostscript_ms: 0, reference_ms: undefined })]);
      if (hasPdftoppm) await expectSamePictures(path, output.path, 1);
    },
  );
});

// What the input's images say Ghostscript cannot beat is not rewritten by it: a JBIG2 scan, which pdfwrite
// can only write as larger CCITT, and at `low` a Canon scan's JPEG under a Flate layer, which pdfwrite
// would write as the bare JPEG, 8 times the bytes, go straight to qpdf's rewrite (how finely the images
// are drawn is read by pdfimages). And a lying root /Count, which qpdf keeps, is corrected in qpdf's
// rewrite, so its proof (the page count) passes.
describe.skipIf(!hasGs || tools.qpdf === undefined)('Ghostscript engine, answered by qpdf alone', () => {
  const scans = [
    ['tiff2pdf-jbig2-skewed.pdf', 'low', 1],
    ['tiff2pdf-jbig2-skewed.pdf', 'high', 1],
    ['canon-scan.pdf', 'low', 1],
  ] as const;
  // [corpus file, level, pages]
  it.each([
    ...(tools.pdfimages === undefined ? [] : scans),
    ['page-count-lie.pdf', 'low', 1],
    ['page-count-lie.pdf', 'medium', 1],
    ['page-count-lie.pdf', 'high', 1],
  ] as const)('answers %s at %s with qpdf, without a Ghostscript run', SLOW, async (name, level, pages) => {
    const path = fileURLToPath(new URL(name, CORPUS));
    const workDir = await mkdtemp(join(dir, 'job-'));
    const logged: Record<string, unknown>[] = [];
    const log: EngineLog = {
      info: (message, fields) => {
        if (message === 'compressed') logged.push(fields ?? {});
      },
      warn: () => {},
    };
    const output = await engineFor('ghostscript').compress({ path, label: name }, level, {
      workDir,
      signal: new AbortController().signal,
      log,
    });
    expect(output.method).toBe('qpdf');
    expect(output.size).toBeLessThan((await stat(path)).size);
    await expectValidPdf(output, pages);
    expect(logged).toEqual([expect.objectContaining({ ghostscript_ms: 0, ghostscript_skipped: level })]);
    // poppler believes the lying input's /Count, and refuses to draw it.
    if (hasPdftoppm && name !== 'page-count-lie.pdf') await expectSamePictures(path, output.path, pages);
  });
});

// Two real-world traps: Ghostscript 10.00's new interpreter blanks the first (saying so) and drops
// the images of the second (silently). Whatever this Ghostscript does with them, the answer must look
// like the input, and a refused rewrite must be in the log.
describe.skipIf(!hasGs)('Ghostscript engine on files Ghostscript 10.00 misreads', () => {
  const engine = engineFor('ghostscript');
  const legacy = hasLegacyInterpreter(tools.ghostscript?.version ?? '');
  // [name, { bytes, pages }]
  const traps = {
    'a trailer /Info pointing at the page tree (py-pdf cmyk-image.pdf)': {
      bytes: infoIsPageTreePdf,
      pages: 1,
    },
    "ImageMagick's six images in mislabelled ICC colour spaces": { bytes: imageMagickSixImagesPdf, pages: 6 },
  };
  const cases = Object.keys(traps).flatMap((name) => levels.map((level) => [name, level] as const));
  it.each(cases)('%s at %s: the answer looks like the input', SLOW, async (name, level) => {
    const { bytes, pages } = traps[name as keyof typeof traps];
    const slug = `trap-${name.replaceAll(/\W+/g, '-').slice(0, 30)}-${level}`;
    const { output, inputPath, warnings } = await compress(engine, slug, await bytes(), level);
    await expectValidPdf(output, pages);
    if (hasPdftoppm) await expectSamePictures(inputPath, output.path, pages);
    // Where the legacy interpreter exists, the file the default one blanks is compressed by it, which
    // the structure's /Info says goes first: the default one is not tried.
    if (legacy && bytes === infoIsPageTreePdf && level !== 'low') {
      expect(warnings.join('\n')).not.toMatch(/Couldn't initialise file/);
      expect(output.method).toMatch(/^ghostscript/);
    }
  });
});

describe('pdf-lib engine', () => {
  const engine = engineFor('pdf-lib');

  // With no renderer, the output's structure is compared with the input's; pdf-lib's lossless
  // rewrite keeps it, so nothing is refused on these.
  it.each([
    ['six-images', imageMagickSixImagesPdf],
    ['info-is-page-tree', infoIsPageTreePdf],
  ] as const)('keeps every image and text operator of %s', SLOW, async (name, bytes) => {
    const { output, warnings } = await compress(engine, `lib-${name}`, await bytes(), 'medium');
    expect(['pdf-lib', 'original']).toContain(output.method);
    expect(warnings).toEqual([]);
  });

  it.each(cases)('compresses %s at %s to a valid PDF no larger than the input', SLOW, async (kind, level) => {
    const [bytes, pages] = corpus[kind];
    const { output, inputSize } = await compress(engine, `lib-${kind}-${level}`, bytes, level);
    await expectValidPdf(output, pages);
    expect(['pdf-lib', 'original']).toContain(output.method);
    expect(output.size).toBeLessThanOrEqual(inputSize);
  });

  it('drops unreferenced objects, and the metadata at medium', SLOW, async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    doc.setTitle('Kept at low');
    // An orphan referenced from nowhere; random bytes, so deflating cannot hide it.
    doc.context.register(PDFRawStream.of(doc.context.obj({}), randomBytes(50_000)));
    const bytes = await doc.save();
    const low = await compress(engine, 'lib-orphan-low', bytes, 'low');
    const medium = await compress(engine, 'lib-orphan-medium', bytes, 'medium');
    expect(low.output.method).toBe('pdf-lib');
    expect(low.output.size).toBeLessThan(bytes.length / 10);
    expect((await PDFDocument.load(await readFile(low.output.path))).getTitle()).toBe('Kept at low');
    expect((await PDFDocument.load(await readFile(medium.output.path))).getTitle()).toBeUndefined();
  });

  // Found by the fuzz suite: the output keeps the input's page tree, and kept a /Count that lied,
  // which poppler refuses. The pages really there are counted instead.
  it.each([
    ['/Count 65535 over 3 pages', 65_535],
    ['/Count 1 over 3 pages', 1],
  ])('writes the true page count where the input says %s', SLOW, async (_name, claimed) => {
    // An orphan of random bytes for pdf-lib to drop, so its output beats the input (not `original`).
    const doc = await PDFDocument.load(lyingCountPdf(3, claimed));
    doc.context.register(PDFRawStream.of(doc.context.obj({}), randomBytes(50_000)));
    const { output } = await compress(engine, `lib-lying-${claimed}`, await doc.save(), 'low');
    expect(output.method).toBe('pdf-lib');
    const written = await PDFDocument.load(await readFile(output.path));
    expect(written.catalog.Pages().Count().asNumber()).toBe(3);
    await expectValidPdf(output, 3);
  });

  it('returns the input unchanged as `original` when its own output cannot be beaten', SLOW, async () => {
    await expectOriginalOnSecondPass(engine, 'lib', corpus.text[0], 'medium', 'medium');
  });
});

// Found by the fuzzer: white space before `%PDF-` is accepted, but a download starts at the
// header, so `original` hands back the input from there. A one-page PDF that small no tool shrinks.
const SMALLEST_PDF = Buffer.from(
  [
    '%PDF-1.4',
    '1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj',
    '2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj',
    '3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>> endobj',
    'xref',
    '0 4',
    '0000000000 65535 f ',
    '0000000009 00000 n ',
    '0000000054 00000 n ',
    '0000000105 00000 n ',
    'trailer <</Size 4/Root 1 0 R>>',
    'startxref',
    '170',
    '%%EOF',
    '',
  ].join('\n'),
  'latin1',
);
describe.each([
  ['Ghostscript', 'ghostscript', !hasGs],
  ['pdf-lib', 'pdf-lib', false],
] as const)('%s engine on a PDF after white space', (_name, choice, skip) => {
  it.skipIf(skip)('returns it from its %PDF- header on as `original`', SLOW, async () => {
    const bytes = Buffer.concat([Buffer.from('   \n'), SMALLEST_PDF]);
    const { output } = await compress(engineFor(choice), `${choice}-after-white-space`, bytes, 'low');
    expect(output.method).toBe('original');
    expect(await readFile(output.path)).toEqual(SMALLEST_PDF);
    expect(output.size).toBe(SMALLEST_PDF.length);
  });
});

// Found by the fuzzer: a damaged file whose only stream is object 2^31-1. qpdf walks its
// page tree, but cannot rewrite it ("max object id is too high to create new objects"): that was a 500.
const MAX_OBJECT_ID_PDF = Buffer.from(
  [
    '%PDF-1.4',
    '1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj',
    '2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj',
    '3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Contents 2147483647 0 R>> endobj',
    '2147483647 0 obj <</Length 8>> stream',
    '0 0 m S',
    'endstream endobj',
    'trailer <</Size 4/Root 1 0 R>>',
    '%%EOF',
    '',
  ].join('\n'),
  'latin1',
);
describe.skipIf(!hasGs || tools.qpdf === undefined)(
  'Ghostscript engine on a file qpdf cannot rewrite',
  () => {
    it('answers without the qpdf candidate', SLOW, async () => {
      const { output } = await compress(
        engineFor('ghostscript'),
        'gs-max-object-id',
        MAX_OBJECT_ID_PDF,
        'low',
      );
      expect(['ghostscript', 'original']).toContain(output.method);
      expect(output.pageCount).toBe(1);
    });
  },
);

// [name, bytes, message]: inputs Ghostscript must never see. Each is refused before any tool rewrites it.
const badInputs: [string, () => Uint8Array | Promise<Uint8Array>, RegExp][] = [
  ['an empty file', emptyFile, /is empty/],
  ['PostScript renamed .pdf', postscriptAsPdf, /is not a PDF/],
  ['a password-encrypted PDF', encryptedPdf, /is encrypted/],
  ['a PDF with no pages', zeroPagePdf, /has no pages/],
  ['a truncated PDF', truncatedPdf, /is damaged or truncated/],
];
describe.each([
  ['Ghostscript', 'ghostscript', !hasGs],
  ['pdf-lib', 'pdf-lib', false],
] as const)('%s engine on bad input', (_name, choice, skip) => {
  it.skipIf(skip).each(badInputs)('refuses %s with InvalidInputError', SLOW, async (name, bytes, message) => {
    const path = await writeFixture(dir, `${choice}-bad-${name.replaceAll(/\W/g, '-')}.pdf`, await bytes());
    const workDir = await mkdtemp(join(dir, 'bad-'));
    const signal = new AbortController().signal;
    const result = engineFor(choice).compress({ path, label: 'upload.pdf' }, 'medium', { workDir, signal });
    await expect(result).rejects.toBeInstanceOf(InvalidInputError);
    await expect(result).rejects.toThrow(message);
    // Refused up front: no tool wrote anything (Ghostscript would have "succeeded" on every one).
    expect(await readdir(workDir)).toEqual([]);
  });
});

/**
 * The pid and command line of the Ghostscript at work on `input`, read from /proc: it runs in a folder of
 * its own (ghostscript-spares.ts), which holds the input, hard-linked, once it was handed it. Others may
 * be at work at the same time, for the other test files.
 */
async function ghostscriptAtWork(input: string): Promise<{ pid: number; commandLine: string } | undefined> {
  const { ino } = await stat(input);
  for (const running of await pdfwriteGhostscripts()) {
    const handed = await stat(join(running.cwd, 'input.pdf')).catch(() => undefined);
    if (handed?.ino === ino) return running;
  }
  return undefined;
}

describe.skipIf(!hasGs || !existsSync('/proc'))('aborting a compression', () => {
  it('kills Ghostscript and leaves no process behind', SLOW, async () => {
    // Fonts keep Ghostscript busy for seconds (README.md), long enough to be seen and stopped.
    const path = await writeFixture(dir, 'abort.pdf', await embeddedFontPdf({ pages: 20 }));
    const workDir = await mkdtemp(join(dir, 'abort-'));
    const controller = new AbortController();
    const job = { workDir, signal: controller.signal };
    const result = engineFor('ghostscript').compress({ path, label: 'abort.pdf' }, 'medium', job);
    let settled = false;
    result.then(
      () => (settled = true),
      () => (settled = true),
    );
    let gs = await ghostscriptAtWork(path);
    while (gs === undefined) {
      if (settled) throw new Error('the compression ended before Ghostscript was seen running');
      await new Promise((resolve) => setTimeout(resolve, 20));
      gs = await ghostscriptAtWork(path);
    }
    // Composite fonts select the faster legacy interpreter where it exists (presets.ts).
    const version = tools.ghostscript?.version ?? '';
    const legacy = hasLegacyInterpreter(version) && tools.qpdf !== undefined;
    expect(gs.commandLine.includes('-dNEWPDF=false')).toBe(legacy);
    controller.abort();
    await expect(result).rejects.toBeInstanceOf(ToolAbortedError);
    expect(() => process.kill(gs.pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });
});
