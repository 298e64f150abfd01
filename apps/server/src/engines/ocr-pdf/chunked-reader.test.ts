// A long document read in chunks (chunked-reader.ts) by the engine this machine picks: a turn that
// hands the slot on after the first chunk keeps it, and the next turn reads only the rest and joins
// them into the whole searchable document; a document a join would break is read whole.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { characterErrorRate, scannedDocumentPdf, writeFixture } from '@pdn/fixtures';
import { PDFDocument, PDFName } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuSlots } from '../cpu-slots.js';
import { createOcrEngine } from '../ocr/index.js';
import { listNativeTesseract } from '../ocr/native-tesseract.js';
import { detectTools } from '../tools.js';
import type { EngineLog, OcrEngine, Turns } from '../types.js';
import { CHUNK_TARGET_MS, DEFAULT_PACE, nextChunkPages } from './chunk-sizes.js';
import { createOcrPdfEngine } from './index.js';
import type { OcrPdfEngine, OcrPdfOutput } from './types.js';

const tools = await detectTools();
const quiet: EngineLog = { info() {}, warn() {} };
const SLOW = { timeout: 240_000 };
const CORPUS = new URL('../../../../../packages/fixtures/corpus/', import.meta.url);
const canChunk = tools.qpdf !== undefined && tools.prlimit !== undefined && tools.pdftotext !== undefined;
if (!canChunk) console.warn('qpdf, prlimit or poppler-utils missing: the chunked OCR tests are skipped');

class HandedOn extends Error {}

/** The page label ranges as qpdf lists them: where each starts, its style and first number. */
const pageLabels = (path: string) =>
  JSON.parse(execFileSync('qpdf', ['--json', '--json-key=pagelabels', path], { encoding: 'utf8' }))
    .pagelabels;

let dir: string;
let imageOcr: OcrEngine;
let engine: OcrPdfEngine;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-chunks-'));
  imageOcr = await createOcrEngine({
    choice: 'auto',
    tools,
    native: undefined,
    cpuSlots: new CpuSlots(2),
    maxImagePixels: 40_000_000,
    memoryBytes: 2 ** 30,
    poolSize: 1,
    recycleAfter: 200,
    timeoutMs: 120_000,
    log: quiet,
  });
  engine = await createOcrPdfEngine({
    choice: 'auto',
    tools,
    native: await listNativeTesseract(tools.tesseract, undefined, quiet),
    tesseractJs: imageOcr.pages,
    cpuSlots: new CpuSlots(2),
    concurrency: 2,
    maxPages: 20,
    maxImagePixels: 40_000_000,
    memoryBytes: 2 ** 30,
    timeoutMs: 120_000,
    log: quiet,
  });
});
afterAll(async () => {
  await imageOcr?.close();
  await rm(dir, { recursive: true, force: true });
});

/** One turn at `bytes`: its own work folder, the kept folder shared between turns. */
async function turn(bytes: Uint8Array, turns: Turns, progress: number[] = []): Promise<OcrPdfOutput> {
  const workDir = await mkdtemp(join(dir, 'turn-'));
  const input = await writeFixture(workDir, 'scan.pdf', bytes);
  return engine.ocrPdf(
    { path: input, label: '"scan.pdf"' },
    { language: 'eng', mode: 'skip', deskew: false, rotate: false, output: 'pdf' },
    { workDir, signal: new AbortController().signal, turns },
    (done) => progress.push(done),
  );
}

async function keptFolder(): Promise<string> {
  const keptDir = join(await mkdtemp(join(dir, 'kept-')), 'kept');
  await mkdir(keptDir);
  return keptDir;
}

const handOn = (keptDir: string): Turns => ({
  keptDir: async () => keptDir,
  between: async () => {
    throw new HandedOn();
  },
});

describe.skipIf(!canChunk)('OCR of a long document in chunks', () => {
  it(
    'keeps the chunk read before a hand-on, and the next turn reads the rest and joins them',
    SLOW,
    async () => {
      // Six 300 dpi pages: longer than a chunk at the pace assumed before any is read.
      const scan = await scannedDocumentPdf({ pages: 6, seed: 5, dpi: 300 });
      const sizing = { pace: DEFAULT_PACE, readers: 2, targetMs: CHUNK_TARGET_MS };
      const firstChunk = nextChunkPages(Array(6).fill(2550 * 3300), sizing);
      expect(firstChunk).toBeLessThan(6);
      // What belongs to the document, not to a page: it must come through the cuts and the join.
      const doc = await PDFDocument.load(scan.bytes);
      doc.setTitle('Six pages');
      doc.catalog.set(
        PDFName.of('PageLabels'),
        doc.context.obj({ Nums: [0, { S: PDFName.of('r') }, 2, { S: PDFName.of('D') }] }),
      );
      const bytes = await doc.save();
      const keptDir = await keptFolder();
      await expect(turn(bytes, handOn(keptDir))).rejects.toBeInstanceOf(HandedOn);
      expect((await readdir(keptDir)).sort()).toEqual(['chunk-000001.json', 'chunk-000001.pdf']);

      const progress: number[] = [];
      const output = await turn(bytes, { keptDir: async () => keptDir, between: async () => {} }, progress);
      // The next turn began where the kept chunk ended.
      expect(progress[0]).toBe(firstChunk);
      expect(progress.at(-1)).toBe(6);
      expect(output.pages.map((page) => page.status)).toEqual(Array(6).fill('ocred'));
      const info = execFileSync('pdfinfo', [output.path], { encoding: 'utf8' });
      expect(info).toMatch(/Pages:\s+6\n/);
      expect(info).toMatch(/Title:\s+Six pages\n/);
      expect(pageLabels(output.path)).toEqual([
        { index: 0, label: { '/S': '/r', '/St': 1 } },
        { index: 2, label: { '/S': '/D', '/St': 1 } },
      ]);
      const truth = scan.pageTexts.join('\f');
      expect(characterErrorRate(truth, await readFile(output.textPath, 'utf8'))).toBeLessThan(0.05);
      const searchable = execFileSync('pdftotext', ['-enc', 'UTF-8', output.path, '-'], { encoding: 'utf8' });
      expect(characterErrorRate(truth, searchable)).toBeLessThan(0.05);
    },
  );

  it('reads a document estimated within one chunk whole, in one run', SLOW, async () => {
    const scan = await scannedDocumentPdf({ pages: 4, seed: 6 });
    const keptDir = await keptFolder();
    const output = await turn(scan.bytes, handOn(keptDir));
    expect(output.pages.map((page) => page.status)).toEqual(Array(4).fill('ocred'));
    expect(await readdir(keptDir)).toEqual([]);
  });

  it(
    'reads a document with an outline whole: a join of chunks would leave its entries pointing nowhere',
    SLOW,
    async () => {
      const bytes = await readFile(new URL('nested-outline.pdf', CORPUS));
      const keptDir = await keptFolder();
      const output = await turn(bytes, handOn(keptDir));
      expect(output.pages).toHaveLength(9);
      expect(await readdir(keptDir)).toEqual([]);
    },
  );
});
