import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectTools } from '../tools.js';
import { readStructure } from './content-check/pdf-structure.js';
import { drawnResolutions, readImages } from './image-readings.js';

const tools = await detectTools();
const CORPUS = new URL('../../../../../packages/fixtures/corpus/', import.meta.url);
const HEAD = [
  'page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio',
  '--------------------------------------------------------------------------------------------',
];

describe('drawnResolutions', () => {
  it("keeps each object's highest resolution over its drawings, inline images left out", () => {
    const list = [
      ...HEAD,
      '   1     0 image    2464  3456  rgb     3   8  jpeg   no         6  0   298   298 57.6K 0.2%',
      '   1     1 mask     2464  3456  -       1   1  ccitt  no         6  0   298   298 58.9K 5.7%',
      '   1     2 stencil  2464  3456  -       1   1  ccitt  no         8  0 177408 248832  435B 0.0%',
      '   2     3 image    2464  3456  rgb     3   8  jpeg   no         6  0   150   600 57.6K 0.2%',
      '   2     4 image     102    32  gray    1   1  image  no   [inline]      36    36    0B 0.0%',
      ...HEAD,
    ].join('\n');
    expect([...drawnResolutions(list)]).toEqual([
      ['6 0', 600],
      ['8 0', 248_832],
    ]);
  });
});

describe.skipIf(tools.qpdf === undefined || tools.pdfimages === undefined)('readImages', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-image-readings-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function read(name: string, pageCount: number, enough = 1_000_000) {
    const pdfPath = fileURLToPath(new URL(name, CORPUS));
    const cwd = await mkdtemp(join(dir, 'job-'));
    const qpdf = tools.qpdf && { qpdf: tools.qpdf, cwd, timeoutMs: 60_000 };
    const structure = qpdf && (await readStructure(pdfPath, 'input', qpdf));
    if (structure === undefined || !('value' in structure)) throw new Error(`${name}: no structure`);
    const job = { workDir: cwd, signal: new AbortController().signal };
    const readings = await readImages({
      pdfPath,
      enough,
      pageCount,
      structure: structure.value,
      pdfimages: tools.pdfimages,
      qpdf,
      timeoutMs: 60_000,
      job,
    });
    return { readings, left: (await readdir(cwd)).filter((file) => file.startsWith('jpeg-under-flate')) };
  }

  it("counts a Canon scan's JPEG under Flate at its own bytes, not the stored ones", async () => {
    // Stored: 17,081 bytes; the JPEG inside (as `pdfimages -j` writes it): 146,075.
    const { readings, left } = await read('canon-scan.pdf', 1);
    expect(readings.ppi('4 0')).toBe(300);
    expect(readings.jpegBytes('4 0')).toBe(146_075);
    expect(left).toEqual([]);
  });

  it('stops counting at the size no floor need pass (a Flate bomb inflates no further)', async () => {
    const { readings } = await read('canon-scan.pdf', 1, 20_000);
    expect(readings.jpegBytes('4 0')).toBe(20_000);
  });

  it('reads how finely each image is drawn, masks and stencils too', async () => {
    const { readings } = await read('explicit-and-stencil-masks.pdf', 1);
    expect([readings.ppi('3 0'), readings.ppi('6 0'), readings.ppi('8 0')]).toEqual([149, 298, 248_832]);
    expect(readings.ppi('99 0')).toBeUndefined();
  });
});
