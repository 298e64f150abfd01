// PDF to images with the real tools, on public PDFs of the corpus, one suite for each renderer
// (STYLE.md 16): poppler's pdftoppm, and Ghostscript as a server without poppler has it (the engine is
// handed the tools found without poppler's). Pages drawn at their shown size (rotation applied), as PNG
// or JPEG, at a resolution or a width; pages and pixels over the plan's budgets, and PDFs every operation
// refuses, refused before anything is drawn; the sizes each renderer reads itself where the in-process
// walk leaves them to it. A server with neither renderer refuses every request with a 500 naming both.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encryptedPdf, truncatedPdf, writeFixture } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError, InvalidInputError } from '../../errors.js';
import { CpuSlots } from '../cpu-slots.js';
import { type DetectedTools, detectTools } from '../tools.js';
import { createPdfImagesEngine, pickRenderer } from './index.js';
import type { RenderBudget, RenderRequest } from './types.js';
import { writeZip } from './zip-archive.js';

const found = await detectTools();
const { pdftoppm, pdfinfo, ...withoutPoppler } = found;
const CORPUS = new URL('../../../../../packages/fixtures/corpus/', import.meta.url).pathname;
const BUDGET: RenderBudget = { maxPages: 100, maxPixels: 16_000_000, holder: 'the Free plan' };
const PNG_72: RenderRequest = { format: 'png', quality: 85, scale: { dpi: 72 } };

// [renderer, the tools the engine is handed, skip]
const renderers: [string, DetectedTools, boolean][] = [
  ['pdftoppm', found, pdftoppm === undefined || pdfinfo === undefined],
  ['ghostscript', withoutPoppler, found.ghostscript === undefined],
];

let dir: string;
let runs = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-pdf-images-'));
});
afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function engineWith(tools: DetectedTools) {
  return createPdfImagesEngine({
    tools,
    cpuSlots: new CpuSlots(1),
    maxPages: 5000,
    maxImagePixels: 40_000_000,
    memoryBytes: 2 ** 30,
    timeoutMs: 60_000,
    log: { info: () => {}, warn: () => {} },
  });
}

async function workDir(): Promise<string> {
  runs += 1;
  const path = join(dir, `run-${runs}`);
  await mkdir(path);
  return path;
}

const sizesOf = (images: { page: number; width: number; height: number }[]) =>
  images.map(({ page, width, height }) => ({ page, width, height }));

for (const [name, tools, skip] of renderers)
  describe.skipIf(skip)(`PDF to images drawn by ${name}`, () => {
    const engine = engineWith(tools);
    const render = async (path: string, request: RenderRequest, budget = BUDGET) =>
      engine.render({ path, label: '"doc.pdf"' }, request, budget, {
        workDir: await workDir(),
        signal: new AbortController().signal,
      });

    it('is the renderer the engine picks from these tools', () => {
      expect(pickRenderer(tools)?.name).toBe(name);
    });

    it('draws every page at its shown size, a rotated page turned', async () => {
      const images = await render(join(CORPUS, 'distiller-rotation.pdf'), PNG_72);
      expect(sizesOf(images)).toEqual([
        { page: 1, width: 612, height: 792 },
        { page: 2, width: 792, height: 612 },
      ]);
      for (const image of images) expect((await readFile(image.path)).subarray(1, 4).toString()).toBe('PNG');
    });

    it('draws the pages asked, once each, in page order, as JPEG at a width', async () => {
      const images = await render(join(CORPUS, 'openoffice-page-sizes.pdf'), {
        pages: '3,2,2',
        format: 'jpeg',
        quality: 60,
        scale: { width: 200 },
      });
      expect(sizesOf(images)).toEqual([
        { page: 2, width: 200, height: 100 },
        { page: 3, width: 200, height: 155 },
      ]);
      expect([...(await readFile(images[0]?.path ?? ''))].slice(0, 3)).toEqual([0xff, 0xd8, 0xff]);
    });

    it('reads the sizes itself where the in-process walk leaves them to it', async () => {
      const renderer = pickRenderer(tools);
      const run = {
        folder: await workDir(),
        timeoutMs: 60_000,
        signal: new AbortController().signal,
        label: '',
      };
      const sizes = await renderer?.pageSizes(join(CORPUS, 'openoffice-page-sizes.pdf'), [1, 2, 3], run);
      const rounded = [...(sizes ?? [])].map(([page, size]) => [
        page,
        Math.round(size.width),
        Math.round(size.height),
      ]);
      expect(rounded).toEqual([
        [1, 612, 792],
        [2, 649, 323],
        [3, 792, 612],
      ]);
      // The walk is unsure of this damaged file; the pages are still drawn, at the renderer's sizes.
      const images = await render(join(CORPUS, 'xref-keyword-missing.pdf'), PNG_72);
      expect(images.length).toBeGreaterThan(0);
    });

    it('refuses more pages than the plan draws, and a page over its pixels, naming them', async () => {
      const pdf = join(CORPUS, 'openoffice-page-sizes.pdf');
      await expect(render(pdf, PNG_72, { ...BUDGET, maxPages: 2 })).rejects.toThrow(
        'The request asks to draw 3 pages; the Free plan allows at most 2 pages per request',
      );
      await expect(render(pdf, { ...PNG_72, pages: '2', scale: { dpi: 1200 } })).rejects.toThrow(
        'Page 2 of "doc.pdf" (9.0 x 4.5-inch) drawn at 1200 dpi is 10817x5384 pixels (58,238,728); the Free plan allows images of at most 16,000,000 pixels',
      );
    });

    it.each([
      ['an encrypted PDF', () => encryptedPdf(), /password/],
      ['a truncated PDF', () => truncatedPdf(), /damaged|truncated|incomplete/],
    ])('refuses %s as every operation does', async (_, bytes, message) => {
      const path = await writeFixture(dir, `bad-${name}.pdf`, await bytes());
      const error = await render(path, PNG_72).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toMatch(message);
    });

    it('draws a root /Count past 2^31 over one page, or refuses it as damaged', async () => {
      // poppler takes the /Count for the page count (none, to it); Ghostscript draws the one page.
      const drawing = render(join(CORPUS, 'page-count-lie.pdf'), PNG_72);
      if (name === 'pdftoppm') await expect(drawing).rejects.toThrow(/"doc.pdf" is damaged: .*\/Count/);
      else expect((await drawing).map((image) => image.page)).toEqual([1]);
    });

    it('stores the pages in a ZIP archive unzip reads back byte for byte', async () => {
      const images = await render(join(CORPUS, 'distiller-rotation.pdf'), PNG_72);
      const zip = join(dir, `pages-${name}.zip`);
      await writeZip(
        zip,
        images.map((image) => ({ path: image.path, name: `doc.page-${image.page}.png` })),
      );
      execFileSync('unzip', ['-tq', zip]);
      const listed = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n');
      expect(listed).toEqual(['doc.page-1.png', 'doc.page-2.png']);
      const first = execFileSync('unzip', ['-p', zip, 'doc.page-1.png']);
      expect(first.equals(await readFile(images[0]?.path ?? ''))).toBe(true);
    });
  });

describe('PDF to images on a server with neither renderer', () => {
  it('refuses every request, naming what to install', async () => {
    const { qpdf, prlimit } = found;
    const engine = engineWith({ ...(qpdf && { qpdf }), ...(prlimit && { prlimit }) });
    const error = await engine
      .render({ path: join(CORPUS, 'distiller-rotation.pdf'), label: '"doc.pdf"' }, PNG_72, BUDGET, {
        workDir: await workDir(),
        signal: new AbortController().signal,
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalError);
    expect((error as Error).message).toMatch(/poppler-utils .* or Ghostscript/);
  });
});
