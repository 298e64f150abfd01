// Both readers of OCR of documents through the same cases, each where its tools are
// installed: a generated noisy, tilted eng+rus scan read into a searchable PDF (CER of the text and
// of pdftotext's reading of the output), pages untouched (the compress content check, and identical
// renders for the text overlay), `skip` leaving a page with text alone, `pages`, `rotate`, an image
// input, a real scan (OCRmyPDF's tests/resources, packages/fixtures/corpus), and hostile inputs
// refused with InvalidInputError.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  characterErrorRate,
  contentBombPdf,
  encryptedPdf,
  garbageImage,
  holdsUploadedPixels,
  hugeDimensionsPng,
  IMAGE_ASSETS,
  imageBombPdf,
  OCR_FORMATS,
  OCR_TEXTS,
  ocrPage,
  ocrSample,
  scannedDocumentPdf,
  shownPageSizes,
  TWO_PAGE_TIFF,
  textPdf,
  truncatedPdf,
  writeFixture,
  zeroPagePdf,
} from '@pdn/fixtures';
import {
  beginText,
  degrees,
  endText,
  moveText,
  PDFDocument,
  PDFName,
  PDFRawStream,
  StandardFonts,
  setFontAndSize,
  setTextRenderingMode,
  showText,
  TextRenderingMode,
} from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../errors.js';
import { createContentCheck } from '../compress/content-check/content-check.js';
import { readStructure } from '../compress/content-check/pdf-structure.js';
import { CpuSlots } from '../cpu-slots.js';
import { JobLanes } from '../job-lanes.js';
import { createOcrEngine } from '../ocr/index.js';
import { listNativeTesseract } from '../ocr/native-tesseract.js';
import { PDF_LIB_WORKER_URL } from '../pdf/run-pdf-lib-task.js';
import { detectTools } from '../tools.js';
import type { EngineLog, OcrEngine } from '../types.js';
import { createOcrPdfEngine, type OcrPdfEngineOptions } from './index.js';
import type { OcrPdfEngine, OcrPdfOutput, OcrPdfRequest } from './types.js';

const tools = await detectTools();
if (!existsSync(PDF_LIB_WORKER_URL)) {
  throw new Error('The pdf-lib worker runs from dist/: build @pdn/server before running these tests');
}
const native =
  tools.tesseract &&
  tools.qpdf &&
  tools.pdftoppm &&
  tools.pdftotext &&
  tools.pdfimages &&
  tools.pdfinfo &&
  tools.prlimit;
const engines = [
  ...(tools.ocrmypdf && native ? (['ocrmypdf'] as const) : []),
  ...(native ? (['tesseract'] as const) : []),
  // tesseract.js is bundled; the suite reads PDFs back with poppler, as the engine draws them with it.
  ...(tools.prlimit && tools.pdftoppm && tools.pdftotext ? (['tesseract.js'] as const) : []),
];
if (!tools.ocrmypdf)
  console.warn(
    'OCRmyPDF is not installed: its OCR-of-documents tests are skipped (apt-get install ocrmypdf)',
  );
if (!native)
  console.warn('tesseract, qpdf or poppler-utils missing: the native OCR-of-documents tests are skipped');
/** The native tesseract's data folder: Russian for tesseract.js too (a `system` language), where installed. */
const TESSDATA = '/usr/share/tesseract-ocr/5/tessdata';
const tessdataDir = existsSync(join(TESSDATA, 'rus.traineddata')) ? TESSDATA : undefined;
const rus = tessdataDir !== undefined;

const SLOW = { timeout: 180_000 };
/** Generated 200 dpi scans with dust and a tilt: both readers stay well under this (measured 0-4%). */
const MAX_CER = 0.05;
/** OCRmyPDF's own LinnSequencer scans against its linn.txt: measured 1.0-1.1% with both engines. */
const REAL_SCAN_CER = 0.02;
const quiet: EngineLog = { info() {}, warn() {} };
const CORPUS = new URL('../../../../../packages/fixtures/corpus/', import.meta.url);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-ocr-pdf-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const pdftotext = (path: string) =>
  execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8' });
/** `pdfimages -list` without the object numbers: each image's size, colour, encoding and bytes. */
const imageList = (path: string) =>
  execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .map((line) =>
      line
        .trim()
        .split(/\s+/)
        .filter((_, column) => column !== 10 && column !== 11),
    );
const render = (path: string, page: number) =>
  execFileSync('pdftoppm', ['-r', '30', '-gray', '-f', String(page), '-l', String(page), path]);

/** The image OCR whose tesseract.js processes the tesseract.js engine borrows. */
let imageOcr: OcrEngine | undefined;
afterAll(async () => {
  await imageOcr?.close();
});
async function tesseractJs() {
  imageOcr ??= await createOcrEngine({
    choice: 'tesseract.js',
    tools,
    native: undefined,
    cpuSlots: new CpuSlots(2),
    ...(tessdataDir === undefined ? {} : { tessdataDir }),
    maxImagePixels: 40_000_000,
    memoryBytes: 2 ** 30,
    poolSize: 2,
    recycleAfter: 200,
    timeoutMs: 120_000,
    log: quiet,
  });
  return imageOcr.pages;
}

async function engineFor(
  choice: OcrPdfEngineOptions['choice'],
  options: Partial<OcrPdfEngineOptions> = {},
): Promise<OcrPdfEngine> {
  return createOcrPdfEngine({
    choice,
    tools,
    native: await listNativeTesseract(tools.tesseract, tessdataDir, quiet),
    tesseractJs: await tesseractJs(),
    cpuSlots: new CpuSlots(2),
    concurrency: 2,
    maxPages: 4,
    maxImagePixels: 40_000_000,
    memoryBytes: 2 ** 30,
    timeoutMs: 120_000,
    log: quiet,
    ...options,
  });
}

/** `bytes` read by `engine`, the form's defaults under `request`, in a work folder of its own. */
async function ocrWith(
  engine: OcrPdfEngine,
  bytes: Uint8Array,
  request: Partial<OcrPdfRequest> = {},
): Promise<{ input: string; output: OcrPdfOutput; text: string; workDir: string }> {
  const workDir = await mkdtemp(join(dir, `${engine.info.name}-`));
  const input = await writeFixture(workDir, 'input', bytes);
  const output = await engine.ocrPdf(
    { path: input, label: '"input"' },
    { language: 'eng', mode: 'skip', deskew: false, rotate: false, output: 'pdf', ...request },
    { workDir, signal: new AbortController().signal },
  );
  return { input, output, text: await readFile(output.textPath, 'utf8'), workDir };
}

describe.each(engines)('OCR of documents with %s', (choice) => {
  let engine: OcrPdfEngine;
  beforeAll(async () => {
    engine = await engineFor(choice);
  });
  /** Engines that lay a text layer over the original page, leaving every pixel as it was. */
  const overlays = choice !== 'ocrmypdf';

  const ocr = (bytes: Uint8Array, request: Partial<OcrPdfRequest> = {}) => ocrWith(engine, bytes, request);

  it('is the engine asked for', () => {
    expect(engine.info.name).toBe(choice);
  });

  it.skipIf(!rus)(
    'makes a noisy, tilted eng+rus scan searchable, in reading order, its pages untouched',
    SLOW,
    async () => {
      const scan = await scannedDocumentPdf({ pages: 3, languages: ['eng', 'rus'], seed: 17 });
      const progress: number[][] = [];
      const workDir = await mkdtemp(join(dir, `${choice}-`));
      const input = await writeFixture(workDir, 'scan.pdf', scan.bytes);
      const output = await engine.ocrPdf(
        { path: input, label: '"scan.pdf"' },
        { language: 'rus+eng', mode: 'skip', deskew: false, rotate: false, output: 'pdf' },
        { workDir, signal: new AbortController().signal },
        (done, total) => progress.push([done, total]),
      );
      expect(output.language).toBe('eng+rus');
      expect(output.method).toBe(choice);
      expect(output.pages.map((page) => page.status)).toEqual(['ocred', 'ocred', 'ocred']);
      for (const page of output.pages) expect(page.confidence).toBeGreaterThan(80);
      expect(progress.at(-1)).toEqual([3, 3]);
      // A page at a time, not only at the start and the end (OCRmyPDF's through our plugin).
      expect(progress.some(([done]) => done !== undefined && done > 0 && done < 3)).toBe(true);
      const counts = progress.map(([done]) => done ?? 0);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      const truth = scan.pageTexts.join('\f');
      const text = await readFile(output.textPath, 'utf8');
      expect(text.split('\f')).toHaveLength(3);
      expect(characterErrorRate(truth, text)).toBeLessThan(MAX_CER);
      expect(characterErrorRate(truth, pdftotext(output.path))).toBeLessThan(MAX_CER);
      // The compress content check: every page's render, images and structure kept.
      const { ghostscript: gs, qpdf } = tools;
      if (gs !== undefined && qpdf !== undefined) {
        const run = { qpdf, cwd: workDir, timeoutMs: 60_000 };
        const { signal } = new AbortController();
        const check = createContentCheck(
          input,
          3,
          {
            gs,
            interpreters: ['default'],
            pdftotext: tools.pdftotext,
            pdftoppm: tools.pdftoppm,
            pdfimages: tools.pdfimages,
            structure: { input: await readStructure(input, 'input', run), run },
            timeoutMs: 60_000,
            lanes: new JobLanes(new CpuSlots(2), signal),
          },
          { workDir, signal },
        );
        expect((await check.prove(output.path, 'ocr')).rejected).toBeUndefined();
      }
      // The lossless repack (with qpdf): the scan's JPEGs deflated, so the output is smaller than the input
      // although it carries a text layer more.
      if (overlays && tools.qpdf) expect(output.size).toBeLessThan((await stat(input)).size);
      // The text layer is invisible: the overlay leaves every pixel as it was.
      if (overlays)
        for (const page of [1, 2, 3])
          expect(render(output.path, page).equals(render(input, page))).toBe(true);
    },
  );

  it(
    'skips a page that has text, without rasterising it, and reads only the pages asked for',
    SLOW,
    async () => {
      const scan = await scannedDocumentPdf({ pages: 2, seed: 3 });
      const doc = await PDFDocument.load(scan.bytes);
      const text = await PDFDocument.load(await textPdf({ pages: 1 }));
      const [copied] = await doc.copyPages(text, [0]);
      if (copied === undefined) throw new Error('no page copied');
      doc.insertPage(1, copied);
      const { input, output, text: read } = await ocr(await doc.save(), { pages: '1-2' });
      expect(output.pages.map((page) => page.status)).toEqual(['ocred', 'skipped', 'skipped']);
      expect(output.pages[1]?.confidence).toBeNull();
      const pages = read.split('\f');
      expect(pages).toHaveLength(3);
      expect(characterErrorRate(scan.pageTexts[0] ?? '', pages[0] ?? '')).toBeLessThan(MAX_CER);
      expect(pages.slice(1)).toEqual(['', '']);
      expect(render(output.path, 2).equals(render(input, 2))).toBe(true);
      // Page 3 was not asked for: no text layer.
      expect(pdftotext(output.path).split('\f')[2]?.trim()).toBe('');
    },
  );

  it.skipIf(choice === 'tesseract.js')('turns a page upright when asked to rotate', SLOW, async () => {
    const scan = await scannedDocumentPdf({ pages: 1, seed: 5, blocks: 6 });
    const doc = await PDFDocument.load(scan.bytes);
    doc.getPage(0).setRotation(degrees(90));
    const { output, text } = await ocr(await doc.save(), { rotate: true });
    const rotation =
      (await PDFDocument.load(await readFile(output.path))).getPage(0).getRotation().angle % 360;
    expect(rotation).toBe(0);
    expect(characterErrorRate(scan.pageTexts[0] ?? '', text)).toBeLessThan(MAX_CER);
    expect(characterErrorRate(scan.pageTexts[0] ?? '', pdftotext(output.path))).toBeLessThan(MAX_CER);
  });

  it.skipIf(choice === 'tesseract.js')(
    'turns real scans upright, the text layer following (OCRmyPDF tests/resources/cardinal.pdf)',
    SLOW,
    async () => {
      // Pages 2 and 3 are scanned sideways and upside down; page 1 is upright and not asked for.
      const { output } = await ocr(await readFile(new URL('ghostscript-jbig2-rotated.pdf', CORPUS)), {
        rotate: true,
        pages: '2-3',
      });
      expect(output.pages.map((page) => page.status)).toEqual(['skipped', 'ocred', 'ocred', 'skipped']);
      for (const page of output.pages.slice(1, 3)) expect(page.confidence).toBeGreaterThan(80);
      const rotations = (await PDFDocument.load(await readFile(output.path)))
        .getPages()
        .map((page) => page.getRotation().angle % 360);
      expect(rotations).toEqual([0, 270, 180, 0]);
      for (const page of pdftotext(output.path).split('\f').slice(1, 3))
        expect(page).toContain('The LinnSequencer');
    },
  );

  it.runIf(overlays)(
    'force replaces a page that has text with its raster and one reading of it',
    SLOW,
    async () => {
      const { output, text } = await ocr(await textPdf({ pages: 1 }), { mode: 'force' });
      expect(output.pages.map((page) => page.status)).toEqual(['ocred']);
      const words = (value: string) => value.split(/\s+/).filter((word) => word.length > 3);
      const read = words(text);
      expect(read.length).toBeGreaterThan(3);
      // The page's own text is gone with it: pdftotext finds the reading once, not twice.
      expect(words(pdftotext(output.path)).length).toBeLessThan(read.length * 1.5);
    },
  );

  // Every format the operation takes, a two-page TIFF and a JPEG stored sideways with EXIF orientation 6:
  // a page per image page, upright at the image's size (300 dpi), the text read; the overlay engines
  // keep the image uploaded (a JPEG's very bytes, else its pixels as decoded) under the text layer.
  const asset = (name: string) => () => readFile(join(IMAGE_ASSETS, 'text', name));
  const images: [string, () => Promise<Uint8Array>, pages: string[]][] = [
    ...OCR_FORMATS.map(
      (format) => [format, async () => (await ocrSample('eng', format)).bytes, ['eng']] as const,
    ),
    ['a two-page TIFF', asset(TWO_PAGE_TIFF), ['eng', 'deu']],
    ['a JPEG of EXIF orientation 6', asset('eng-exif6.jpg'), ['eng']],
    ['a PNG with transparency', asset('eng-alpha.png'), ['eng']],
    ['an RLE-compressed BMP', asset('eng-rle8.bmp'), ['eng']],
  ];
  it.each(images)(
    'reads an image (%s) into a searchable PDF, the image kept',
    SLOW,
    async (name, make, languages) => {
      const bytes = await make();
      const { input, output, text, workDir } = await ocr(bytes);
      expect(output.pages).toEqual(
        languages.map(() => ({ status: 'ocred', confidence: expect.any(Number) })),
      );
      const pages = text.split('\f');
      const searchable = pdftotext(output.path).split('\f');
      expect(characterErrorRate(OCR_TEXTS.eng, pages[0] ?? '')).toBeLessThan(MAX_CER);
      expect(characterErrorRate(OCR_TEXTS.eng, searchable[0] ?? '')).toBeLessThan(MAX_CER);
      // German read with English: the words are there, the umlauts not all.
      if (languages[1] === 'deu') expect(characterErrorRate(OCR_TEXTS.deu, pages[1] ?? '')).toBeLessThan(0.2);
      expect(shownPageSizes(output.path)[0]).toEqual([191.04, 72.24]);
      if (!overlays) return;
      execFileSync('pdfimages', ['-all', output.path, join(workDir, 'kept')]);
      const kept = (await readdir(workDir)).filter((name) => name.startsWith('kept-')).sort();
      expect(kept).toHaveLength(languages.length);
      // sharp reads no BMP: the sample's BMP holds the pixels of its PNG master.
      const reference =
        name === 'bmp'
          ? await writeFixture(workDir, 'eng.png', (await ocrSample('eng', 'png')).bytes)
          : input;
      for (const [page, file] of kept.entries()) {
        const taken = join(workDir, file);
        if (file.endsWith('.jpg')) expect((await readFile(taken)).equals(bytes)).toBe(true);
        else if (!name.includes('BMP')) expect(await holdsUploadedPixels(taken, reference, page)).toBe(true);
      }
    },
  );

  // An image is read as a document is, every option honoured (tesseract.js has no orientation data).
  it('turns a sideways, tilted image upright and straight (rotate, deskew)', SLOW, async () => {
    const rotate = choice !== 'tesseract.js';
    const page = await ocrPage('eng', 6);
    const sideways = await sharp(page.bytes)
      .rotate(rotate ? 90 : 0)
      .toBuffer();
    const tilted = await sharp(sideways).rotate(2, { background: '#ffffff' }).png().toBuffer();
    const straight = await ocr(tilted, { rotate, deskew: true });
    expect(characterErrorRate(page.text, straight.text)).toBeLessThan(MAX_CER);
    expect(characterErrorRate(page.text, pdftotext(straight.output.path))).toBeLessThan(MAX_CER);
    // Shown upright: as tall as the page that was scanned (OCRmyPDF's deskew draws it anew, upright; the
    // overlay engines turn it with /Rotate).
    const [width = 0, height = 0] = shownPageSizes(straight.output.path)[0] ?? [];
    expect(width).toBeLessThan(height);
    // Straightened: the page does not draw as it does read as it came.
    const asItCame = await ocr(tilted, { rotate });
    expect(render(straight.output.path, 1).equals(render(asItCame.output.path, 1))).toBe(false);
  });

  it('reads a real scan (OCRmyPDF tests/resources/ccitt.pdf) against its ground truth', SLOW, async () => {
    const { output, text } = await ocr(await readFile(new URL('tiff2pdf-ccitt.pdf', CORPUS)));
    expect(output.pages[0]?.status).toBe('ocred');
    const truth = await readFile(new URL('linn-ground-truth.txt', CORPUS), 'utf8');
    expect(characterErrorRate(truth, text)).toBeLessThan(REAL_SCAN_CER);
    // In the layer's own order (`-raw`): pdftotext's default regroups this page's lines by its guess of
    // the columns (28% then, in input and output alike).
    const raw = execFileSync('pdftotext', ['-raw', '-enc', 'UTF-8', output.path, '-'], { encoding: 'utf8' });
    expect(characterErrorRate(truth, raw)).toBeLessThan(REAL_SCAN_CER);
  });

  it.runIf(choice === 'ocrmypdf' || tools.ghostscript)(
    'writes PDF/A-2b that qpdf checks clean, with its XMP identification and output intent',
    SLOW,
    async () => {
      const scan = await scannedDocumentPdf({ pages: 1, seed: 9 });
      const { input, output, workDir } = await ocr(scan.bytes, { output: 'pdfa' });
      // Ghostscript passes the overlaid JPEGs through: the page renders as it was.
      if (overlays) expect(render(output.path, 1).equals(render(input, 1))).toBe(true);
      expect(characterErrorRate(scan.pageTexts[0] ?? '', pdftotext(output.path))).toBeLessThan(MAX_CER);
      execFileSync('qpdf', ['--check', output.path], { cwd: workDir });
      const doc = await PDFDocument.load(await readFile(output.path), { updateMetadata: false });
      expect(doc.catalog.get(PDFName.of('OutputIntents'))).toBeDefined();
      const metadata = doc.catalog.lookup(PDFName.of('Metadata'), PDFRawStream);
      const xmp = Buffer.from(metadata.getContents()).toString('utf8');
      expect(xmp).toMatch(/pdfaid:part(=["']|>)2/);
      expect(xmp).toMatch(/pdfaid:conformance(=["']|>)B/);
    },
  );

  it.runIf(choice === 'ocrmypdf' || tools.ghostscript)(
    'writes PDF/A of the page qpdf counted, not of a page tree only Ghostscript finds',
    SLOW,
    async () => {
      const { output } = await ocr(hiddenPageForGhostscript(), { output: 'pdfa' });
      expect(output.pages.map((page) => page.status)).toEqual(['skipped']);
      expect(execFileSync('qpdf', ['--show-npages', output.path], { encoding: 'utf8' }).trim()).toBe('1');
      expect(pdftotext(output.path)).toContain('Shown page');
      expect(pdftotext(output.path)).not.toContain('Hidden');
    },
  );

  it('reads the page qpdf counted, not a page only Ghostscript or poppler finds', SLOW, async () => {
    const { output, text } = await ocr(hiddenPageForGhostscript(), { mode: 'force' });
    expect(output.pages.map((page) => page.status)).toEqual(['ocred']);
    expect(text).toContain('Shown');
    expect(`${text} ${pdftotext(output.path)}`).not.toContain('Hidden');
  });

  it(
    'redo replaces an earlier invisible text layer and keeps visible text; skip keeps both',
    SLOW,
    async () => {
      // Another tool's OCR layer, drawn invisibly (render mode 3) in the page's own content stream.
      const scan = await scannedDocumentPdf({ pages: 1, seed: 11, noise: 0 });
      const doc = await PDFDocument.load(scan.bytes);
      const font = await doc.embedFont(StandardFonts.Helvetica);
      const page = doc.getPage(0);
      page.node.setFontDictionary(PDFName.of('F9'), font.ref);
      page.pushOperators(
        beginText(),
        setFontAndSize('F9', 12),
        setTextRenderingMode(TextRenderingMode.Invisible),
        moveText(72, 700),
        showText(font.encodeText('Staleword from an earlier layer')),
        endText(),
        // A visible caption in the margin, drawn after the invisible layer.
        beginText(),
        setFontAndSize('F9', 12),
        setTextRenderingMode(TextRenderingMode.Fill),
        moveText(72, 24),
        showText(font.encodeText('Visiblecaption')),
        endText(),
      );
      const bytes = await doc.save();
      const skipped = await ocr(bytes);
      expect(skipped.output.pages[0]?.status).toBe('skipped');
      const redone = await ocr(bytes, { mode: 'redo' });
      expect(redone.output.pages[0]?.status).toBe('ocred');
      const text = pdftotext(redone.output.path);
      expect(text).not.toContain('Staleword');
      expect(text.match(/Visiblecaption/g)).toHaveLength(1);
      expect(characterErrorRate(scan.pageTexts[0] ?? '', text.replace('Visiblecaption', ''))).toBeLessThan(
        MAX_CER,
      );
      if (overlays) expect(render(redone.output.path, 1).equals(render(redone.input, 1))).toBe(true);
    },
  );

  // Both replace a layer that is a form (OCRmyPDF's grafted layer, qpdf's overlay of ours).
  it('redo on its own output replaces its layer, not doubling the text', SLOW, async () => {
    const scan = await scannedDocumentPdf({ pages: 1, seed: 13, noise: 0 });
    const first = await ocr(scan.bytes);
    const again = await ocr(await readFile(first.output.path), { mode: 'redo' });
    expect(again.output.pages[0]?.status).toBe('ocred');
    expect(characterErrorRate(scan.pageTexts[0] ?? '', pdftotext(again.output.path))).toBeLessThan(MAX_CER);
  });

  // One real tilted scan each: the sideways one where the engine can turn it as well (it straightens
  // the same way as the upright one); tesseract.js, which has no orientation data, the upright one.
  const tilted = [choice === 'tesseract.js' ? 'tiff2pdf-jbig2-skewed.pdf' : 'ghostscript-rotated-skewed.pdf'];
  it.each(tilted)(
    'straightens and turns upright a real tilted scan (%s, OCRmyPDF tests/resources)',
    SLOW,
    async (name) => {
      const { input, output, text } = await ocr(await readFile(new URL(name, CORPUS)), {
        deskew: true,
        rotate: choice !== 'tesseract.js',
      });
      expect(output.pages[0]?.status).toBe('ocred');
      // Measured: 1.1% with deskew, 7-38% without (lines read across the tilt).
      const truth = await readFile(new URL('linn-ground-truth.txt', CORPUS), 'utf8');
      expect(characterErrorRate(truth, text)).toBeLessThan(REAL_SCAN_CER);
      expect(render(output.path, 1).equals(render(input, 1))).toBe(false);
      // The overlay engines turn the page's content, not its image: the image keeps its encoding and size.
      if (overlays) expect(imageList(output.path)).toEqual(imageList(input));
    },
  );

  it.runIf(overlays)('lets other work take its turn between the pages of a long document', SLOW, async () => {
    const cpuSlots = new CpuSlots(1);
    const oneAtATime = await engineFor(choice, { cpuSlots, concurrency: 1 });
    const scan = await scannedDocumentPdf({ pages: 3, seed: 19, blocks: 1 });
    const workDir = await mkdtemp(join(dir, 'fair-'));
    const input = await writeFixture(workDir, 'scan.pdf', scan.bytes);
    const events: string[] = [];
    let other: Promise<void> | undefined;
    await oneAtATime.ocrPdf(
      { path: input, label: '"scan.pdf"' },
      { language: 'eng', mode: 'skip', deskew: false, rotate: false, output: 'pdf' },
      { workDir, signal: new AbortController().signal },
      (done) => {
        events.push(`page ${done}`);
        // Another request's job, submitted while page 1 holds the only slot.
        if (done === 1) other = cpuSlots.run(async () => void events.push('other request'));
      },
    );
    await other;
    expect(events).toEqual(['page 0', 'page 1', 'other request', 'page 2', 'page 3']);
  });

  // 300 MiB of spaces in about 300 KB of Flate: inflated in the pdf-lib worker against the page's budget,
  // so the process grows by a fraction of it (inflated whole on the main thread it grew by over 1 GB).
  it.runIf(overlays)(
    'refuses a deflate bomb in a page under redo, the process staying small',
    SLOW,
    async () => {
      const bomb = await contentBombPdf();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 20);
      try {
        const refused = ocr(bomb, { mode: 'redo' });
        await expect(refused).rejects.toBeInstanceOf(InvalidInputError);
        await expect(refused).rejects.toThrow(
          /Page 1 of "input" draws with more than 64 MiB of inflated content/,
        );
      } finally {
        clearInterval(sampler);
      }
      expect(peak - before).toBeLessThan(512 * 2 ** 20);
    },
  );

  it.runIf(choice === 'tesseract.js')('refuses rotate, which needs OSD data it does not bundle', async () => {
    const refused = ocr(await textPdf({ pages: 1 }), { rotate: true });
    await expect(refused).rejects.toBeInstanceOf(InvalidInputError);
    await expect(refused).rejects.toThrow("rotate=true needs tesseract's orientation data (osd)");
  });

  const hostile: [string, () => Promise<Uint8Array>, RegExp][] = [
    ['an encrypted PDF', encryptedPdf, /encrypted/],
    ['a damaged PDF', truncatedPdf, /damaged|truncated/],
    ['a PDF without pages', zeroPagePdf, /no pages/],
    ['more pages than the cap', () => textPdf({ pages: 5 }), /at most 4 pages/],
    ['an image bomb inside a PDF', () => imageBombPdf(), /larger than this server reads|pixels/],
    ['an image whose data is damaged', async () => garbageImage(), /could not be read as an image/],
    ['an image over the pixel cap', async () => hugeDimensionsPng(), /pixels/],
    ['an unknown language', () => textPdf({ pages: 1 }), /language/i],
  ];
  it.each(hostile)('refuses %s with InvalidInputError', SLOW, async (name, make, message) => {
    const request: Partial<OcrPdfRequest> =
      name === 'an unknown language' ? { language: 'xx' } : { mode: 'force' };
    const refused = ocr(await make(), request);
    await expect(refused).rejects.toBeInstanceOf(InvalidInputError);
    await expect(refused).rejects.toThrow(message);
  });
});

describe.runIf(engines.includes('tesseract.js'))('OCR of documents with tesseract.js, fewer tools', () => {
  const run = ocrWith;

  it('lays the text over the pages with pdf-lib without qpdf, a rotated page included', SLOW, async () => {
    const { qpdf: _qpdf, ...withoutQpdf } = tools;
    const engine = await engineFor('tesseract.js', { tools: withoutQpdf });
    expect(engine.info.version).toContain('pdf-lib');
    const scan = await scannedDocumentPdf({ pages: 2, seed: 23, blocks: 2 });
    // Page 2 as a scanner that stores pages sideways writes it: the image turned a quarter in the page,
    // /Rotate 90 turning it upright for display (and for OCR, which reads the page as displayed).
    const doc = await PDFDocument.load(scan.bytes);
    const [upright] = await doc.embedPdf(scan.bytes, [1]);
    if (upright === undefined) throw new Error('no page embedded');
    doc.removePage(1);
    const sideways = doc.addPage([upright.height, upright.width]);
    sideways.drawPage(upright, { x: upright.height, y: 0, rotate: degrees(90) });
    sideways.setRotation(degrees(90));
    const { input, output, text } = await run(engine, await doc.save());
    expect(output.pages.map((page) => page.status)).toEqual(['ocred', 'ocred']);
    const truth = scan.pageTexts.join('\f');
    expect(characterErrorRate(truth, text)).toBeLessThan(MAX_CER);
    expect(characterErrorRate(truth, pdftotext(output.path))).toBeLessThan(MAX_CER);
    for (const page of [1, 2]) expect(render(output.path, page).equals(render(input, page))).toBe(true);
  });

  it('refuses redo and deskew without qpdf, naming it', async () => {
    const { qpdf: _qpdf, ...withoutQpdf } = tools;
    const engine = await engineFor('tesseract.js', { tools: withoutQpdf });
    const bytes = await textPdf({ pages: 1 });
    for (const request of [{ mode: 'redo' }, { deskew: true }] as const) {
      const refused = run(engine, bytes, request);
      await expect(refused).rejects.toBeInstanceOf(InvalidInputError);
      await expect(refused).rejects.toThrow(/needs qpdf/);
    }
  });

  it('reads images without poppler-utils, and refuses a PDF and deskew naming it', SLOW, async () => {
    const { pdftoppm: _a, pdftotext: _b, pdfimages: _c, pdfinfo: _d, ...withoutPoppler } = tools;
    const engine = await engineFor('tesseract.js', { tools: withoutPoppler });
    const sample = await ocrSample('eng', 'png');
    const { text } = await run(engine, sample.bytes);
    expect(characterErrorRate(sample.text, text)).toBeLessThan(MAX_CER);
    const refused = run(engine, await textPdf({ pages: 1 }));
    await expect(refused).rejects.toBeInstanceOf(InvalidInputError);
    await expect(refused).rejects.toThrow(/poppler-utils/);
    // Straightening draws the page: refused by name rather than ignored.
    const straightened = run(engine, sample.bytes, { deskew: true });
    await expect(straightened).rejects.toBeInstanceOf(InvalidInputError);
    await expect(straightened).rejects.toThrow(/deskew=true needs poppler-utils/);
  });
});

/**
 * One page for qpdf and poppler (`Shown page`), another for Ghostscript 10.00 (`Hidden page`), which
 * rebuilds a table of 21-byte entries from every `N G obj` in the file and so finds a second object 2
 * written after the first (found by an attack on the page count).
 */
function hiddenPageForGhostscript(): Buffer {
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  const object = (num: number, text: string) => {
    offsets[num] = body.length;
    body += `${num} 0 obj\n${text}\nendobj\n`;
  };
  const page = (contents: number) =>
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents ${contents} 0 R /Resources << /Font << /F1 5 0 R >> >> >>`;
  const content = (text: string) => {
    const drawn = `BT /F1 32 Tf 20 100 Td (${text}) Tj ET`;
    return `<< /Length ${drawn.length} >>\nstream\n${drawn}\nendstream`;
  };
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(3, page(4));
  object(4, content('Shown page'));
  object(5, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  object(6, page(7));
  object(7, content('Hidden page'));
  body += '2 0 obj\n<< /Type /Pages /Kids [6 0 R] /Count 1 >>\nendobj\n';
  const entries = offsets.slice(1).map((offset) => `${String(offset).padStart(10, '0')} 00000 n  \n`);
  const table = `xref\n0 8\n0000000000 65535 f  \n${entries.join('')}trailer\n<< /Size 8 /Root 1 0 R >>\n`;
  return Buffer.from(`${body}${table}startxref\n${body.length}\n%%EOF\n`, 'latin1');
}
