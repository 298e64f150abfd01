// The BMP reader on BMP Suite's files (public domain, packages/fixtures/assets/images/SOURCES.md),
// compared pixel by pixel with ImageMagick's reading of the same files, and fuzzed: whatever the bytes,
// it returns pixels or throws BmpError, never anything else, and never allocates past its cap.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { BmpError, decodeBmp, embeddedImage, readBmpHeader } from './bmp-image.js';

const SUITE = fileURLToPath(
  new URL('../../../../../packages/fixtures/assets/images/bmpsuite/', import.meta.url),
);
const CAP = 40_000_000;

const bmp = (path: string) => readFile(`${SUITE}${path}`);

/**
 * Largest difference of a colour channel between our pixels and ImageMagick's, over the pixels we do
 * not leave transparent. Colour only: ImageMagick 6 takes the unused fourth byte of 32-bit pixels for
 * alpha (BMP Suite says it is not: g/rgb32bf, q/rgb32fakealpha), so alpha is checked on its own.
 */
async function colourDifference(name: string, rgba: Uint8Array): Promise<number> {
  const { data } = await sharp(`${SUITE}reference/${name}.png`)
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  let worst = 0;
  for (let i = 0; i < rgba.length; i += 4) {
    if (rgba[i + 3] === 0) continue;
    for (let c = 0; c < 3; c += 1) worst = Math.max(worst, Math.abs((rgba[i + c] ?? 0) - (data[i + c] ?? 0)));
  }
  return worst;
}

describe('BMP Suite "good" files: every one decodes as ImageMagick reads it', async () => {
  const names = (await readdir(`${SUITE}g`)).filter((name) => name.endsWith('.bmp'));
  it.each(names)('%s', async (name) => {
    const pixels = decodeBmp(await bmp(`g/${name}`), CAP);
    const reference = await sharp(`${SUITE}reference/${name.replace(/\.bmp$/, '.png')}`).metadata();
    expect([pixels.width, pixels.height]).toEqual([reference.width, reference.height]);
    // ImageMagick widens 5-bit channels by shifting, we by scaling: 1 apart at most.
    expect(await colourDifference(name.replace(/\.bmp$/, ''), pixels.rgba)).toBeLessThanOrEqual(1);
  });
});

describe('BMP Suite "questionable" files', () => {
  // [file, ImageMagick's reading to compare with, largest channel difference]. ImageMagick widens an
  // n-bit channel by shifting it (1 bit: 128), we scale it to 0-255 (1 bit: 255) as BMP Suite advises;
  // it reads q/pal8os2v2's palette wrongly, so that one is compared with g/pal8 (the same picture).
  it.each<[string, string, number]>([
    ['pal1p1', 'pal1p1', 0],
    ['pal4rletrns', 'pal4rletrns', 0],
    ['pal8offs', 'pal8offs', 0],
    ['pal8os2sp', 'pal8os2sp', 0],
    ['pal8os2v2', 'pal8', 0],
    ['pal8os2v2-16', 'pal8os2v2-16', 0],
    ['pal8rletrns', 'pal8rletrns', 0],
    ['rgb16-231', 'rgb16-231', 127],
    ['rgb16-3103', 'rgb16-3103', 31],
    ['rgb16faketrns', 'rgb16faketrns', 1],
    ['rgb24largepal', 'rgb24largepal', 0],
    ['rgb32-111110', 'rgb32-111110', 1],
    ['rgb32-7187', 'rgb32-7187', 2],
    ['rgb32-xbgr', 'rgb32-xbgr', 0],
    ['rgb32fakealpha', 'rgb32fakealpha', 0],
    ['rgb32h52', 'rgb32h52', 0],
    ['rgba16-1924', 'rgba16-1924', 127],
    ['rgba16-4444', 'rgba16-4444', 15],
    ['rgba16-5551', 'rgba16-5551', 1],
    ['rgba32-1', 'rgba32-1', 0],
    ['rgba32-1010102', 'rgba32-1010102', 1],
    ['rgba32-2', 'rgba32-2', 0],
    ['rgba32-61754', 'rgba32-61754', 8],
    ['rgba32-81284', 'rgba32-81284', 1],
    ['rgba32h56', 'rgba32h56', 0],
  ])('%s matches ImageMagick (%s) within %d', async (name, reference, tolerance) => {
    const pixels = decodeBmp(await bmp(`q/${name}.bmp`), CAP);
    expect(await colourDifference(reference, pixels.rgba)).toBeLessThanOrEqual(tolerance);
  });

  it.each<[string, 'opaque' | 'translucent']>([
    ['g/rgb32bf', 'opaque'],
    ['q/rgb32fakealpha', 'opaque'],
    ['q/rgb16faketrns', 'opaque'],
    ['q/rgba32-1', 'translucent'],
    ['q/rgba16-4444', 'translucent'],
    ['q/rgba32abf', 'translucent'],
    ['q/pal8rletrns', 'translucent'],
  ])('%s is %s', async (path, kind) => {
    const { rgba } = decodeBmp(await bmp(`${path}.bmp`), CAP);
    const opaque = rgba.every((value, i) => i % 4 !== 3 || value === 255);
    expect(opaque).toBe(kind === 'opaque');
  });

  // ImageMagick refuses these; BMP Suite's notes say what a reader should show.
  it.each([
    ['pal2', 127, 64],
    ['pal2color', 127, 64],
    ['pal4rlecut', 127, 64],
    ['pal8rlecut', 127, 64],
    ['pal8oversizepal', 127, 64],
    ['pal8os2-sz', 127, 64],
    ['pal8os2-hs', 127, 64],
    ['pal8os2v2-sz', 127, 64],
    ['pal8os2v2-40sz', 127, 64],
    ['rgba32abf', 127, 64],
  ])('%s decodes to %dx%d', async (name, width, height) => {
    const pixels = decodeBmp(await bmp(`q/${name}.bmp`), CAP);
    expect([pixels.width, pixels.height]).toEqual([width, height]);
  });

  it.each(['rgb24jpeg', 'rgb24png'])('%s hands its embedded stream to an image decoder', async (name) => {
    const stream = embeddedImage(await bmp(`q/${name}.bmp`));
    expect(stream).toBeDefined();
    const metadata = await sharp(stream).metadata();
    expect([metadata.width, metadata.height]).toEqual([127, 64]);
  });

  it.each([
    ['pal1huffmsb', /OS\/2 Huffman or RLE24/],
    ['rgb24rle24', /OS\/2 Huffman or RLE24/],
    ['rgba64', /bit depth 64/],
  ])('%s is refused: %s', async (name, reason) => {
    const bytes = await bmp(`q/${name}.bmp`);
    expect(() => decodeBmp(bytes, CAP)).toThrow(reason);
  });
});

describe('BMP Suite "bad" files: refused with BmpError or read, never another error', async () => {
  const names = (await readdir(`${SUITE}b`)).filter((name) => name.endsWith('.bmp'));
  it.each(names)('%s', async (name) => {
    try {
      decodeBmp(await bmp(`b/${name}`), CAP);
    } catch (error) {
      expect(error).toBeInstanceOf(BmpError);
    }
  });

  it('refuses reallybig.bmp from its header, before allocating', async () => {
    const bytes = await bmp('b/reallybig.bmp');
    expect(() => decodeBmp(bytes, CAP)).toThrow(/over the cap/);
  });
});

describe('readBmpHeader', () => {
  it('reads the size of a top-down BMP', async () => {
    const header = readBmpHeader(await bmp('g/pal8topdown.bmp'));
    expect(header).toMatchObject({ width: 127, height: 64, topDown: true, bitCount: 8 });
  });
});

describe('decodeBmp fuzzed', () => {
  it('returns pixels or throws BmpError for mutated BMP Suite files, within the cap', async () => {
    const seeds = await Promise.all(
      [
        'g/pal8rle.bmp',
        'g/pal4rle.bmp',
        'g/rgb16-565.bmp',
        'g/rgb32bf.bmp',
        'g/pal1.bmp',
        'g/pal8os2.bmp',
      ].map((path) => bmp(path)),
    );
    const mutation = fc.record({
      seed: fc.integer({ min: 0, max: seeds.length - 1 }),
      edits: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 16 }),
      cut: fc.option(fc.nat(), { nil: undefined }),
    });
    fc.assert(
      fc.property(mutation, ({ seed, edits, cut }) => {
        const original = seeds[seed] ?? Buffer.alloc(0);
        const bytes = Buffer.from(original);
        for (const [at, value] of edits) bytes[at % bytes.length] = value;
        const input = cut === undefined ? bytes : bytes.subarray(0, cut % (bytes.length + 1));
        try {
          const pixels = decodeBmp(input, 1_000_000);
          expect(pixels.width * pixels.height).toBeLessThanOrEqual(1_000_000);
          expect(pixels.rgba.length).toBe(pixels.width * pixels.height * 4);
        } catch (error) {
          if (!(error instanceof BmpError)) throw error;
        }
      }),
      { numRuns: 2000 },
    );
  });
});
