import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blurRow,
  comparePgmFiles,
  greyOfRgb,
  type PgmHeader,
  parsePgmHeader,
  psnrOf,
  tileGrid,
} from './pgm.js';

// Pages of millions of pixels are copied as typed arrays: spread into arrays, they took seconds on a
// busy machine.
const bytes = (header: string, pixels: readonly number[] | Uint8Array = []) =>
  new Uint8Array(Buffer.concat([Buffer.from(header, 'latin1'), Buffer.from(pixels)]));

describe('parsePgmHeader', () => {
  // [name, { given: file start, want: header or error }]
  const table: [string, { given: Uint8Array; want: PgmHeader | RegExp }][] = [
    [
      'a 2x1 image',
      {
        given: bytes('P5\n2 1\n255\n', [0, 255]),
        want: { width: 2, height: 1, dataOffset: 11, channels: 1 },
      },
    ],
    [
      'comments between the fields',
      {
        given: bytes('P5\n# renderer\n1 1\n#x\n255\n'),
        want: { width: 1, height: 1, dataOffset: 25, channels: 1 },
      },
    ],
    [
      'a colour PPM',
      { given: bytes('P6\n1 1\n255\n'), want: { width: 1, height: 1, dataOffset: 11, channels: 3 } },
    ],
    ['an ASCII PGM', { given: bytes('P2\n1 1\n255\n'), want: /not an 8-bit binary PGM/ }],
    ['16-bit samples', { given: bytes('P5\n1 1\n65535\n'), want: /not an 8-bit binary PGM/ }],
    ['empty', { given: new Uint8Array(), want: /not an 8-bit binary PGM/ }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    if (want instanceof RegExp) expect(() => parsePgmHeader(given)).toThrow(want);
    else expect(parsePgmHeader(given)).toEqual(want);
  });
});

describe('greyOfRgb', () => {
  // [name, { given: red, green, blue, want: grey }]: poppler's 0.3 R + 0.59 G + 0.11 B, rounded.
  const table: [string, { given: [number, number, number]; want: number }][] = [
    ['white stays white', { given: [255, 255, 255], want: 255 }],
    ['black stays black', { given: [0, 0, 0], want: 0 }],
    ['a grey stays its grey', { given: [128, 128, 128], want: 128 }],
    ['red', { given: [255, 0, 0], want: 77 }],
    ['green', { given: [0, 255, 0], want: 150 }],
    ['blue', { given: [0, 0, 255], want: 28 }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    const grey = new Uint8Array(1);
    greyOfRgb(new Uint8Array(given), grey, 1);
    expect(grey[0]).toBe(want);
  });
});

/** Sum of squared differences of two equally long runs of pixels. */
const squaredError = (a: Uint8Array, b: Uint8Array) =>
  a.reduce((sum, value, index) => sum + (value - (b[index] as number)) ** 2, 0);

describe('psnrOf', () => {
  const run = (...values: number[]) => new Uint8Array(values);
  // [name, { given: reference and candidate pixels, want: dB }]
  const table: [string, { given: [Uint8Array, Uint8Array]; want: number }][] = [
    ['identical', { given: [run(0, 128, 255), run(0, 128, 255)], want: Infinity }],
    ['blank in both', { given: [run(255, 255), run(255, 255)], want: Infinity }],
    ['black page blanked', { given: [run(0, 0), run(255, 255)], want: 0 }],
    // MSE 1: 10 log10(255^2) = 48.13 dB
    ['off by one everywhere', { given: [run(10, 20), run(11, 21)], want: 48.13 }],
    // MSE 255^2 / 100 is exactly 20 dB
    ['on the floor', { given: [run(0, 0, 0, 0), run(51, 0, 0, 0)], want: 20 }],
  ];
  it.each(table)('%s', (_name, { given: [a, b], want }) => {
    const got = psnrOf(squaredError(a, b), a.length);
    if (Number.isFinite(want)) expect(got).toBeCloseTo(want, 2);
    else expect(got).toBe(want);
  });
});

describe('blurRow', () => {
  // A 3x3 band: one black pixel in the middle of white.
  const dot = new Uint8Array([255, 255, 255, 255, 0, 255, 255, 255, 255]);
  // [name, { given: [band, width, rows, first row, last row (exclusive)], want: blurred pixels }]
  const table: [string, { given: [Uint8Array, number, number, number, number]; want: number[] }][] = [
    ['uniform stays uniform', { given: [new Uint8Array(6).fill(7), 3, 2, 0, 2], want: [7, 7, 7, 7, 7, 7] }],
    [
      'a dot spreads over its neighbours, edges clipped',
      {
        given: [dot, 3, 3, 0, 3],
        want: [191.25, 212.5, 191.25, 212.5, (8 * 255) / 9, 212.5, 191.25, 212.5, 191.25],
      },
    ],
    [
      'only the rows asked for, context rows read',
      { given: [dot, 3, 3, 1, 2], want: [212.5, (8 * 255) / 9, 212.5] },
    ],
    ['a single column', { given: [new Uint8Array([0, 90, 30]), 1, 3, 0, 3], want: [45, 40, 60] }],
    ['a single row', { given: [new Uint8Array([0, 90, 30]), 3, 1, 0, 1], want: [45, 40, 60] }],
  ];
  it.each(table)('%s', (_name, { given: [band, width, rows, from, to], want }) => {
    const [columns, row] = [new Float64Array(width), new Float64Array(width)];
    const blurred: number[] = [];
    for (let y = from; y < to; y += 1) {
      blurRow(band, width, rows, y, columns, row);
      blurred.push(...row);
    }
    expect(blurred.map((v) => Number(v.toFixed(4)))).toEqual(want.map((v) => Number(v.toFixed(4))));
  });
});

describe('tileGrid', () => {
  // [name, { given: [width, height, tile size], want: [columns, rows, tile column of each pixel column] }]
  const table: [string, { given: [number, number, number]; want: [number, number, number[]] }][] = [
    ['whole tiles', { given: [4, 2, 2], want: [2, 1, [0, 0, 1, 1]] }],
    ['a remainder spread, no sliver at the edge', { given: [5, 2, 2], want: [3, 1, [0, 0, 1, 1, 2]] }],
    ['a page smaller than a tile is one tile', { given: [3, 1, 40], want: [1, 1, [0, 0, 0]] }],
  ];
  it.each(table)('%s', (_name, { given: [width, height, size], want: [columns, rows, columnOf] }) => {
    const grid = tileGrid(width, height, size);
    expect([grid.columns, grid.rows, [...grid.columnOf]]).toEqual([columns, rows, columnOf]);
  });
});

describe('comparePgmFiles', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-pgm-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  /** Comparing pages of real size takes a second or two on a busy machine: room for a very busy one. */
  const PAGE_SIZED_MS = 30_000;
  const file = async (name: string, content: Uint8Array) => {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };

  it(
    'reads files larger than one chunk, and header comments',
    async () => {
      const size = 1500 * 1000; // over the 1 MiB chunk
      const white = new Uint8Array(size).fill(255);
      const grey = new Uint8Array(size).fill(254);
      const a = await file('a.pgm', bytes('P5\n1500 1000\n255\n', white));
      const b = await file('b.pgm', bytes('P5\n# gs\n1500 1000\n255\n', grey));
      expect(await comparePgmFiles(a, a)).toMatchObject({
        psnrDb: Infinity,
        marks: { reference: 0, candidate: 0 },
      });
      expect((await comparePgmFiles(a, b)).psnrDb).toBeCloseTo(48.13, 2);
    },
    PAGE_SIZED_MS,
  );

  it(
    'blurs across band boundaries as within one band',
    async () => {
      // 1100 x 2000: 953 rows per 1 MiB band, so two bands meet mid-page; a line shifted by one row there.
      const [width, height] = [1100, 2000];
      const page = (lineRow: number) => {
        const pixels = new Uint8Array(width * height).fill(255);
        pixels.fill(0, lineRow * width, (lineRow + 1) * width);
        return bytes(`P5\n${width} ${height}\n255\n`, pixels);
      };
      const a = await file('g.pgm', page(953));
      const b = await file('h.pgm', page(954));
      // Blurred, each line greys three rows to 170; they differ on the two outer rows by 85: 39.5 dB.
      const { psnrDb, marks } = await comparePgmFiles(a, b);
      expect(psnrDb).toBeCloseTo(10 * Math.log10((255 * 255 * height) / (2 * 85 * 85)), 2);
      // Marks are counted unblurred, each row once though bands overlap.
      expect(marks).toEqual({ reference: width, candidate: width });
    },
    PAGE_SIZED_MS,
  );

  it('finds a short rule gone in its tile, where the page scores it far above 20 dB', async () => {
    // A Letter page at 40 dpi, one 40-pixel rule one pixel thick gone: 0.03% of the page.
    const [width, height] = [340, 440];
    const page = (rule: boolean) => {
      const pixels = new Uint8Array(width * height).fill(255);
      if (rule) pixels.fill(0, 100 * width + 100, 100 * width + 140);
      return bytes(`P5\n${width} ${height}\n255\n`, pixels);
    };
    const { psnrDb, tiles, tileColumns } = await comparePgmFiles(
      await file('rule.pgm', page(true)),
      await file('no-rule.pgm', page(false)),
      40,
    );
    expect(psnrDb).toBeGreaterThan(40);
    expect(tileColumns).toBe(9);
    const changed = tiles.flatMap((tile, index) => (tile.squaredError > 0 ? [index] : []));
    // Rows 99-101 (blurred) of columns 99-140: tile row 2 of 11, tile columns 2 and 3 of 9.
    expect(changed).toEqual([2 * 9 + 2, 2 * 9 + 3]);
    const worst = Math.min(...tiles.map((tile) => psnrOf(tile.squaredError, tile.pixels)));
    expect(worst).toBeLessThan(30);
  });

  it('sums rows alike on both pages, white or not, as it sums rows that differ', async () => {
    // Rows 0-9 white on both pages, 10-24 the same noise on both, 25-34 noise that differs, the rest
    // white: every kind of row, and blurs that read two kinds at their borders.
    const [width, height, size] = [60, 50, 20];
    let seed = 7;
    const noise = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % 256;
    };
    const [a, b] = [new Uint8Array(width * height).fill(255), new Uint8Array(width * height).fill(255)];
    for (let at = 10 * width; at < 25 * width; at += 1) a[at] = b[at] = noise();
    for (let at = 25 * width; at < 35 * width; at += 1) [a[at], b[at]] = [noise(), noise()];
    const header = `P5\n${width} ${height}\n255\n`;
    const { tiles } = await comparePgmFiles(
      await file('alike-a.pgm', bytes(header, a)),
      await file('alike-b.pgm', bytes(header, b)),
      size,
    );
    // Every pixel's terms summed one by one, both pages blurred whole.
    const blurred = (page: Uint8Array) => {
      const [columns, row, all] = [new Float64Array(width), new Float64Array(width), [] as number[]];
      for (let y = 0; y < height; y += 1) {
        blurRow(page, width, height, y, columns, row);
        all.push(...row);
      }
      return all;
    };
    const [p, q] = [blurred(a), blurred(b)];
    const grid = tileGrid(width, height, size);
    const want = Array.from({ length: grid.columns * grid.rows }, () => new Array<number>(11).fill(0));
    for (let at = 0; at < width * height; at += 1) {
      const sums = want[
        (grid.rowOf[Math.floor(at / width)] as number) * grid.columns + (grid.columnOf[at % width] as number)
      ] as number[];
      const [x, y, rawX, rawY] = [p[at] as number, q[at] as number, a[at] as number, b[at] as number];
      const paper = rawX >= 250 || rawY >= 250;
      const terms = [1, (x - y) ** 2, x, y, x * x, y * y, x * y, paper ? 1 : 0, paper ? (x - y) ** 2 : 0];
      terms.push(rawX < 200 ? 1 : 0, rawY < 200 ? 1 : 0);
      for (const [k, term] of terms.entries()) sums[k] = (sums[k] as number) + term;
    }
    expect(tiles.map((tile) => Object.values(tile).map((v) => Number(v.toPrecision(12))))).toEqual(
      want.map((sums) => sums.map((v) => Number(v.toPrecision(12)))),
    );
  });

  it('reads a colour render as its grey', async () => {
    // Red, green, blue and white against their greys, a render of each kind.
    const rgb = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255];
    const colour = await file('colour.ppm', bytes('P6\n2 2\n255\n', rgb));
    const grey = await file('grey.pgm', bytes('P5\n2 2\n255\n', [77, 150, 28, 255]));
    expect(await comparePgmFiles(colour, grey)).toMatchObject({
      psnrDb: Infinity,
      marks: { reference: 3, candidate: 3 },
    });
    const lighter = await file('lighter.pgm', bytes('P5\n2 2\n255\n', [78, 150, 28, 255]));
    expect((await comparePgmFiles(colour, lighter)).psnrDb).toBeLessThan(Infinity);
  });

  it('scores a page that changed size 0 dB', async () => {
    const a = await file('c.pgm', bytes('P5\n2 1\n255\n', [1, 2]));
    const b = await file('d.pgm', bytes('P5\n1 2\n255\n', [1, 2]));
    expect(await comparePgmFiles(a, b)).toEqual({
      psnrDb: 0,
      marks: { reference: 0, candidate: 0 },
      tiles: [],
      tileColumns: 0,
    });
  });

  it('refuses a render cut short', async () => {
    const a = await file('e.pgm', bytes('P5\n2 2\n255\n', [1, 2, 3, 4]));
    const b = await file('f.pgm', bytes('P5\n2 2\n255\n', [1, 2, 3]));
    await expect(comparePgmFiles(a, b)).rejects.toThrow(/cut short/);
  });
});
