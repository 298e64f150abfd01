import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
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
    const pdfPath = name.startsWith('/') ? name : fileURLToPath(new URL(name, CORPUS));
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

  it('counts a JPEG only up to its end marker, as pdfwrite copies it (not a bomb of zeros after it)', async () => {
    // Ghostscript wrote 151 KB at `low` for such a page whose 146 KB JPEG was followed by 300 MB of
    // zeros; counting the zeros put the floor at the stored size, and Ghostscript was skipped.
    // A header segment holding a thumbnail's end marker, a scan, the end marker, then the zeros.
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe1, 0, 4, 0xff, 0xd9, 0xff, 0xda, 0, 2, 0x12, 0xff, 0, 0xff, 0xd9,
    ]);
    const stored = deflateSync(Buffer.concat([jpeg, Buffer.alloc(100_000)]));
    const pdfPath = join(dir, 'padded-jpeg.pdf');
    await writeFile(pdfPath, pdfWithImage(stored));
    const { readings } = await read(pdfPath, 1);
    expect(readings.jpegBytes('5 0')).toBe(jpeg.length);
  });

  it('inflates JPEGs under Flate within one budget for them all, the size no floor need pass', async () => {
    // A scan with no end marker, 60,000 bytes of it: each would count whole, but after the first
    // two the budget of 100,000 is spent and the rest are not inflated at all.
    const scan = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2]), Buffer.alloc(60_000, 0x12)]);
    const pdfPath = join(dir, 'many-jpegs.pdf');
    await writeFile(pdfPath, pdfWithImage(...Array.from({ length: 4 }, () => deflateSync(scan))));
    const { readings } = await read(pdfPath, 1, 100_000);
    const counted = ['5 0', '6 0', '7 0', '8 0'].map((object) => readings.jpegBytes(object));
    expect(counted).toEqual([scan.length, 100_000 - scan.length, undefined, undefined]);
  });

  it('reads how finely each image is drawn, masks and stencils too', async () => {
    const { readings } = await read('explicit-and-stencil-masks.pdf', 1);
    expect([readings.ppi('3 0'), readings.ppi('6 0'), readings.ppi('8 0')]).toEqual([149, 298, 248_832]);
    expect(readings.ppi('99 0')).toBeUndefined();
  });
});

/** A one-page PDF drawing each of `images`, objects 5 0, 6 0, ..., each stored as given under Flate over DCT. */
function pdfWithImage(...images: Buffer[]): Buffer {
  const names = images.map((_, index) => `/Im${index} ${index + 5} 0 R`).join(' ');
  const draws = images.map((_, index) => `/Im${index} Do`).join(' ');
  const content = `q 72 0 0 72 0 0 cm ${draws} Q`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] /Resources << /XObject << ${names} >> >> /Contents 4 0 R >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    ...images.map(
      (data) =>
        `<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter [/FlateDecode /DCTDecode] /Length ${data.length} >>\nstream\n`,
    ),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const offsets: number[] = [];
  let size = parts[0].length;
  const add = (part: Buffer) => {
    parts.push(part);
    size += part.length;
  };
  objects.forEach((body, index) => {
    offsets.push(size);
    add(Buffer.from(`${index + 1} 0 obj\n${body}`));
    const data = images[index - 4];
    if (data !== undefined) add(Buffer.concat([data, Buffer.from('\nendstream')]));
    add(Buffer.from('\nendobj\n'));
  });
  const xref = size;
  const rows = offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  add(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${rows}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}
