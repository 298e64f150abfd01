import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { duplicateDimensionTiff, hiddenFrameJpeg } from '@pdn/fixtures';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../errors.js';
import { checkPixelCap, type ImageFormat, type ImageHeader, readImageHeader } from './image-header.js';

// Headers built byte by byte from each format's specification: only the header is ever read.
const u16be = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const u32le = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u32be = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

function png(width: number, height: number): Buffer {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const ihdr = Buffer.concat([u32be(width), u32be(height), Buffer.from([8, 2, 0, 0, 0])]);
  return Buffer.concat([signature, u32be(13), Buffer.from('IHDR'), ihdr, Buffer.alloc(4)]);
}

function jpeg(width: number, height: number, sof = 0xc0): Buffer {
  const app0 = Buffer.concat([Buffer.from([0xff, 0xe0]), u16be(16), Buffer.from('JFIF\0'), Buffer.alloc(9)]);
  const sof0 = Buffer.concat([
    Buffer.from([0xff, sof]),
    u16be(11),
    Buffer.from([8]),
    u16be(height),
    u16be(width),
  ]);
  // A DHT before the frame header must be skipped, not read as one (0xC4 sits among the SOF codes).
  const dht = Buffer.concat([Buffer.from([0xff, 0xc4]), u16be(4), Buffer.alloc(2)]);
  const sos = Buffer.from([0xff, 0xda, 0, 2]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    app0,
    Buffer.from([0xff]),
    dht,
    sof0,
    Buffer.alloc(4),
    sos,
    Buffer.alloc(8),
  ]);
}

function tiff(width: number, height: number, littleEndian: boolean, type: 3 | 4 | 5, nextIfd = 0): Buffer {
  const b = Buffer.alloc(8 + 2 + 3 * 12 + 4);
  const u16 = (v: number, at: number) => (littleEndian ? b.writeUInt16LE(v, at) : b.writeUInt16BE(v, at));
  const u32 = (v: number, at: number) => (littleEndian ? b.writeUInt32LE(v, at) : b.writeUInt32BE(v, at));
  b.write(littleEndian ? 'II' : 'MM', 0, 'latin1');
  u16(42, 2);
  u32(8, 4);
  u16(3, 8);
  const entries: [number, number][] = [
    [254, 0],
    [256, width],
    [257, height],
  ];
  entries.forEach(([tag, value], i) => {
    const at = 10 + i * 12;
    u16(tag, at);
    u16(type, at + 2);
    u32(1, at + 4);
    if (type === 3) u16(value, at + 8);
    else u32(value, at + 8);
  });
  u32(nextIfd, 10 + 3 * 12);
  return b;
}

function riff(chunk: string, payload: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeUInt32LE(4 + 8 + payload.length);
  const chunkSize = Buffer.alloc(4);
  chunkSize.writeUInt32LE(payload.length);
  return Buffer.concat([
    Buffer.from('RIFF'),
    size,
    Buffer.from('WEBP'),
    Buffer.from(chunk),
    chunkSize,
    payload,
  ]);
}

function webpLossy(width: number, height: number): Buffer {
  const frame = Buffer.alloc(10);
  frame.set([0x9d, 0x01, 0x2a], 3);
  frame.writeUInt16LE(width, 6);
  frame.writeUInt16LE(height, 8);
  return riff('VP8 ', frame);
}

function webpLossless(width: number, height: number): Buffer {
  const payload = Buffer.alloc(5);
  payload[0] = 0x2f;
  payload.writeUInt32LE((width - 1) | ((height - 1) << 14), 1);
  return riff('VP8L', payload);
}

function webpExtended(width: number, height: number): Buffer {
  const payload = Buffer.alloc(10);
  payload.writeUIntLE(width - 1, 4, 3);
  payload.writeUIntLE(height - 1, 7, 3);
  return riff('VP8X', payload);
}

function bmp(width: number, height: number, core = false): Buffer {
  const b = Buffer.alloc(core ? 26 : 54);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(b.length, 10);
  if (core) {
    b.writeUInt32LE(12, 14);
    b.writeUInt16LE(width, 18);
    b.writeUInt16LE(height, 20);
    b.writeUInt16LE(1, 22);
    b.writeUInt16LE(24, 24);
  } else {
    b.writeUInt32LE(40, 14);
    b.writeInt32LE(width, 18);
    b.writeInt32LE(height, 22);
    b.writeUInt16LE(1, 26);
    b.writeUInt16LE(24, 28);
  }
  return b;
}

/** A TIFF of two pages: the first directory links to a second one after it. */
function twoPageTiff(): Buffer {
  const first = tiff(800, 600, true, 3, 8 + 2 + 3 * 12 + 4);
  const second = tiff(400, 300, true, 3).subarray(8);
  // The second directory's own offsets are unchanged: it holds its values inline.
  return Buffer.concat([first, second]);
}

function sof(width: number, height: number): Buffer {
  return Buffer.concat([
    Buffer.from([0xff, 0xc0]),
    u16be(11),
    Buffer.from([8]),
    u16be(height),
    u16be(width),
    Buffer.alloc(4),
  ]);
}

/** SOI, an APP0, `between`, a 64x48 frame and a scan. */
function jpegWith(between: Buffer): Buffer {
  const app0 = Buffer.concat([Buffer.from([0xff, 0xe0]), u16be(4), Buffer.alloc(2)]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    app0,
    between,
    sof(64, 48),
    Buffer.from([0xff, 0xda, 0, 2]),
    Buffer.alloc(8),
  ]);
}

const one = (format: ImageFormat, width: number, height: number): ImageHeader => ({
  format,
  pages: [{ width, height }],
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-image-header-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function headerOf(bytes: Buffer, label = 'scan.img'): Promise<ImageHeader> {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.img`);
  await writeFile(path, bytes);
  return readImageHeader({ path, label });
}

describe('readImageHeader', () => {
  const recognised: [string, { given: Buffer; want: ImageHeader }][] = [
    ['PNG', { given: png(640, 480), want: one('png', 640, 480) }],
    ['PNG declaring 20000x20000', { given: png(20000, 20000), want: one('png', 20000, 20000) }],
    ['baseline JPEG after APP0, fill byte and DHT', { given: jpeg(1024, 768), want: one('jpeg', 1024, 768) }],
    ['progressive JPEG (SOF2)', { given: jpeg(300, 200, 0xc2), want: one('jpeg', 300, 200) }],
    ['little-endian TIFF, SHORT sizes', { given: tiff(800, 600, true, 3), want: one('tiff', 800, 600) }],
    ['big-endian TIFF, LONG sizes', { given: tiff(30000, 5, false, 4), want: one('tiff', 30000, 5) }],
    ['lossy WebP (VP8)', { given: webpLossy(500, 250), want: one('webp', 500, 250) }],
    ['lossless WebP (VP8L)', { given: webpLossless(16383, 2), want: one('webp', 16383, 2) }],
    ['extended WebP (VP8X)', { given: webpExtended(20000, 20000), want: one('webp', 20000, 20000) }],
    ['BMP with a bottom-up info header', { given: bmp(320, 240), want: one('bmp', 320, 240) }],
    ['BMP with a top-down info header', { given: bmp(320, -240), want: one('bmp', 320, 240) }],
    ['OS/2 BMP core header', { given: bmp(64, 32, true), want: one('bmp', 64, 32) }],
    // RSTn and TEM have no length; read as if they had, they skip real segments.
    [
      'JPEG with RST0 and TEM before its frame',
      { given: jpegWith(Buffer.from([0xff, 0xd0, 0xff, 0x01])), want: one('jpeg', 64, 48) },
    ],
    [
      'JPEG hiding a fake 100x100 frame behind RST0',
      { given: Buffer.from(hiddenFrameJpeg()), want: one('jpeg', 16000, 16000) },
    ],
    [
      'two-page TIFF, page by page',
      {
        given: twoPageTiff(),
        want: {
          format: 'tiff',
          pages: [
            { width: 800, height: 600 },
            { width: 400, height: 300 },
          ],
        },
      },
    ],
  ];
  it.each(recognised)('reads %s', async (_name, { given, want }) => {
    expect(await headerOf(given)).toEqual(want);
  });

  const refused: [string, { given: Buffer; want: RegExp }][] = [
    [
      'an empty file',
      {
        given: Buffer.alloc(0),
        want: /scan\.img is not a supported image: send PNG, JPEG, TIFF, WebP or BMP/,
      },
    ],
    [
      'a PDF',
      { given: Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n'), want: /not a supported image/ },
    ],
    ['a GIF', { given: Buffer.from('GIF89a\x10\x00\x10\x00\x00\x00\x00'), want: /not a supported image/ }],
    [
      'plain text',
      { given: Buffer.from('hello, this is not an image at all'), want: /not a supported image/ },
    ],
    ['a PNG signature alone', { given: png(1, 1).subarray(0, 12), want: /scan\.img is truncated/ }],
    ['a JPEG cut before its frame header', { given: jpeg(10, 10).subarray(0, 30), want: /truncated/ }],
    [
      'a JPEG whose scan starts before any frame',
      { given: Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2, 0, 0, 0, 0, 0, 0]), want: /truncated/ },
    ],
    [
      'a JPEG of endless empty segments',
      {
        given: Buffer.concat([
          Buffer.from([0xff, 0xd8]),
          Buffer.alloc(2000 * 4, Buffer.from([0xff, 0xe1, 0, 2])),
        ]),
        want: /truncated/,
      },
    ],
    [
      'a TIFF whose directory lies past the end',
      { given: tiff(10, 10, true, 3).subarray(0, 12), want: /truncated/ },
    ],
    [
      'a TIFF listing its size twice (libtiff keeps the first)',
      {
        given: Buffer.from(duplicateDimensionTiff()),
        want: /scan\.img is refused as ambiguous: a TIFF directory lists tag 256 twice/,
      },
    ],
    [
      'a TIFF whose directories loop',
      { given: tiff(10, 10, true, 3, 8), want: /ambiguous: its TIFF directories form a loop/ },
    ],
    [
      'a TIFF whose width is a RATIONAL',
      { given: tiff(10, 10, true, 5), want: /ambiguous: its TIFF ImageWidth is not one SHORT or LONG/ },
    ],
    [
      'a JPEG with two frame headers',
      { given: jpegWith(sof(100, 100)), want: /ambiguous: it has two JPEG frame headers/ },
    ],
    [
      'a JPEG with stray bytes between segments',
      {
        given: jpegWith(Buffer.from([0x00, 0x00])),
        want: /ambiguous: it has bytes where a JPEG marker should be/,
      },
    ],
    [
      'a BMP of an unknown compression',
      {
        given: Buffer.concat([bmp(10, 10).subarray(0, 30), u32le(9), bmp(10, 10).subarray(34)]),
        want: /not a readable BMP: its compression 9/,
      },
    ],
    ['a WebP of an unknown chunk', { given: riff('ABCD', Buffer.alloc(10)), want: /truncated/ }],
    ['a PNG of 0x10 pixels', { given: png(0, 10), want: /declares an empty image \(0x10 pixels\)/ }],
    // Found by the fuzzer: far under the pixel cap, but tesseract refuses the width (a 500).
    [
      'a PNG 65535 pixels wide',
      { given: png(65_535, 3), want: /is 65535x3 pixels; .* at most 32,767 pixels wide and high/ },
    ],
  ];
  it.each(refused)('refuses %s with a clear message', async (_name, { given, want }) => {
    const error = await headerOf(given).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(want);
  });
});

describe('checkPixelCap', () => {
  it('accepts an image at the cap', () => {
    expect(() => checkPixelCap([{ width: 8000, height: 5000 }], 40_000_000, 'a.png')).not.toThrow();
  });

  it('adds up the pages of a multi-page image', () => {
    const page = { width: 5000, height: 5000 };
    expect(() => checkPixelCap([page], 40_000_000, 'a.tiff')).not.toThrow();
    expect(() => checkPixelCap([page, page], 40_000_000, 'a.tiff')).toThrow(
      new InvalidInputError(
        'a.tiff has 2 pages of 50,000,000 pixels in all; this server reads images of at most 40,000,000 pixels',
      ),
    );
  });

  it('refuses an image above the cap, stating its size and the limit', () => {
    expect(() => checkPixelCap([{ width: 20000, height: 20000 }], 40_000_000, 'huge.png')).toThrow(
      new InvalidInputError(
        'huge.png is 20000x20000 pixels (400,000,000); this server reads images of at most 40,000,000 pixels',
      ),
    );
  });
});

describe('readImageHeader fuzzed', () => {
  it('reads pages of positive sizes or refuses with InvalidInputError, whatever the bytes', async () => {
    const seeds = [
      png(640, 480),
      jpegWith(Buffer.from([0xff, 0xd0])),
      tiff(800, 600, true, 3),
      twoPageTiff(),
      webpExtended(300, 200),
      bmp(320, -240),
      Buffer.from(duplicateDimensionTiff()),
      Buffer.from(hiddenFrameJpeg()).subarray(0, 70_000),
    ];
    const mutation = fc.record({
      seed: fc.integer({ min: 0, max: seeds.length - 1 }),
      edits: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
      cut: fc.option(fc.nat(), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(mutation, async ({ seed, edits, cut }) => {
        const bytes = Buffer.from(seeds[seed] ?? Buffer.alloc(0));
        // Edits land in the first 64 bytes, where the headers are, most of the time.
        for (const [at, value] of edits)
          bytes[at % Math.min(bytes.length, at % 3 === 0 ? bytes.length : 64)] = value;
        const input = cut === undefined ? bytes : bytes.subarray(0, cut % (bytes.length + 1));
        try {
          const header = await headerOf(input);
          for (const page of header.pages) {
            expect(page.width).toBeGreaterThan(0);
            expect(page.height).toBeGreaterThan(0);
          }
        } catch (error) {
          if (!(error instanceof InvalidInputError)) throw error;
        }
      }),
      { numRuns: 400 },
    );
  });
});
