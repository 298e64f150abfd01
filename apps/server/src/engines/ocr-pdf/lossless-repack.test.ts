// The native engine's lossless repack: JPEGs deflated as OCRmyPDF's --optimize 1 does, identical fonts
// shared, every page rendering exactly as before.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scannedDocumentPdf, writeFixture } from '@pdn/fixtures';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectTools } from '../tools.js';
import { repackLosslessly } from './lossless-repack.js';

const { qpdf, pdftoppm } = await detectTools();
if (!qpdf || !pdftoppm) console.warn('qpdf or pdftoppm missing: the lossless repack tests are skipped');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-repack-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const render = (path: string, page: number) =>
  execFileSync('pdftoppm', ['-r', '40', '-gray', '-f', String(page), '-l', String(page), path]);

/** Every object of the file as qpdf's JSON shows it, object streams unpacked. */
function objectsOf(
  path: string,
): Record<string, { value?: Record<string, unknown>; stream?: { dict: Record<string, unknown> } }> {
  const json = JSON.parse(
    execFileSync('qpdf', [path, '--json-output=2', '--json-stream-data=none'], { encoding: 'utf8' }),
  );
  return json.qpdf[1];
}

describe.runIf(qpdf && pdftoppm)('repackLosslessly', () => {
  it('deflates the JPEGs and shares identical fonts, every page rendering as before', {
    timeout: 120_000,
  }, async () => {
    // Two scanned pages (bare JPEGs), each with its own copy of the same font.
    const doc = await PDFDocument.load((await scannedDocumentPdf({ pages: 2, seed: 23 })).bytes);
    for (const page of doc.getPages()) {
      const font = await doc.embedFont(StandardFonts.Courier);
      page.node.setFontDictionary(PDFName.of('F9'), font.ref);
    }
    const input = await writeFixture(dir, 'input.pdf', await doc.save());
    const output = join(dir, 'output.pdf');
    if (qpdf === undefined) throw new Error('qpdf missing');
    await repackLosslessly(input, output, { qpdf, cwd: dir, timeoutMs: 60_000 });

    const objects = Object.values(objectsOf(output));
    const images = objects.filter((object) => object.stream?.dict['/Subtype'] === '/Image');
    expect(images.map((image) => image.stream?.dict['/Filter'])).toEqual([
      ['/FlateDecode', '/DCTDecode'],
      ['/FlateDecode', '/DCTDecode'],
    ]);
    expect(objects.filter((object) => object.value?.['/BaseFont'] === '/Courier')).toHaveLength(1);
    expect((await stat(output)).size).toBeLessThan((await stat(input)).size);
    for (const page of [1, 2]) expect(render(output, page).equals(render(input, page))).toBe(true);
    // The JPEGs themselves are the very same bytes once inflated.
    const jpegs = async (path: string, prefix: string) => {
      execFileSync('pdfimages', ['-j', path, join(dir, prefix)]);
      return Promise.all([0, 1].map((n) => readFile(join(dir, `${prefix}-00${n}.jpg`))));
    };
    expect(await jpegs(output, 'after')).toEqual(await jpegs(input, 'before'));
  });
});
