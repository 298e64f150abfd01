// Fuzz target: real images (packages/fixtures/assets/images: BMP Suite and
// the English sample as ImageMagick and libvips wrote it), mutated (mutations.ts: bit flips, truncation,
// splices, huge or zero declared dimensions), through OCR and images to PDF (which reuses OCR's image
// checks and decoders, and embeds JPEGs and PNGs it has checked as they are), and now and then to a PDF operation. Every
// answer is a documented status with the envelope, never a 500; the server keeps answering; nothing is
// left on disk. The memory bound of the decode is what keeps a lying header a 400.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { IMAGE_ASSETS } from '@pdn/fixtures';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { field, file, form } from '../harness/form.js';
import { filesLeftSince, listFiles } from '../harness/leftovers.js';
import { useServer } from '../harness/use-server.js';
import { fuzz, fuzzTimeoutMs } from './fuzz-run.js';
import { expectHealthy, type JudgedOperation, judge } from './judge.js';
import { type Mutation, mutate, mutationArb } from './mutations.js';

const ctx = useServer();
const IMAGE = /\.(bmp|png|jpe?g|tiff?|webp)$/i;
let key: string;
let images: { name: string; bytes: Buffer }[];

async function imagesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? imagesUnder(join(dir, entry.name)) : Promise.resolve([join(dir, entry.name)]),
    ),
  );
  return nested
    .flat()
    .filter((path) => IMAGE.test(path))
    .sort();
}

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'fuzz-images', plan: 'enterprise' });
  const paths = await imagesUnder(IMAGE_ASSETS);
  images = await Promise.all(
    paths.map(async (path) => ({ name: relative(IMAGE_ASSETS, path), bytes: await readFile(path) })),
  );
});

interface ImageCase {
  operation: JudgedOperation;
  /** Index into the images (its name is printed with a failure). */
  image: number;
  mutations: Mutation[];
}

const caseArb = (): fc.Arbitrary<ImageCase> =>
  fc.record({
    operation: fc.oneof(
      { weight: 4, arbitrary: fc.constant<JudgedOperation>('ocr') },
      { weight: 2, arbitrary: fc.constant<JudgedOperation>('images-to-pdf') },
      fc.constantFrom<JudgedOperation>('compress', 'split', 'merge'),
    ),
    image: fc.nat({ max: images.length - 1 }),
    mutations: fc.array(mutationArb(images.length, false), { minLength: 0, maxLength: 3 }),
  });

function partsFor(value: ImageCase, bytes: Buffer) {
  switch (value.operation) {
    case 'ocr':
      return [file('image', bytes, 'scan.img'), field('language', 'eng')];
    case 'images-to-pdf':
      return [file('images[]', bytes, 'scan.img')];
    case 'compress':
      return [file('file', bytes, 'scan.pdf')];
    case 'split':
      return [file('file', bytes, 'scan.pdf'), field('ranges', '1')];
    case 'merge':
      return [file('files[]', bytes, 'a.pdf'), file('files[]', bytes, 'b.pdf')];
  }
}

it(
  'answers every mutated image with a documented status, never a 500',
  async () => {
    const before = await listFiles(ctx.server);
    await fuzz('src/fuzz/images.test.ts', caseArb(), async (value) => {
      const source = images[value.image];
      if (source === undefined) throw new Error(`no image ${value.image}`);
      const bytes = mutate(
        source.bytes,
        value.mutations,
        images.map((image) => image.bytes),
      );
      const res = await ctx.call(`/api/v1/${value.operation}`, {
        key,
        body: form(...partsFor(value, bytes)),
      });
      try {
        await judge(ctx, value.operation, res);
        await expectHealthy(ctx);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n(image: ${source.name})`, { cause: error });
      }
    });
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
  },
  fuzzTimeoutMs(),
);
