import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { photoPdf, scanPdf, textPdf, writeFixture } from '@pdn/fixtures';
import { PDFDocument, PDFName, type PDFNumber, PDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../run-tool.js';
import { detectTools, type ToolInfo } from '../../tools.js';
import { createContentCheck } from './content-check.js';

// Both sides of the floors with real Ghostscript renders (issue #9): what Ghostscript's own rewrites
// produce passes; blanked pages, whitened images and text flattened into images do not.
const { ghostscript: gs, pdftotext } = await detectTools();
if (gs === undefined) console.warn('Ghostscript is not installed: the content check tests are skipped');

const SLOW = { timeout: 120_000 };
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-content-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Damage = (input: string, output: string) => Promise<void>;

/** Ghostscript's pdfwrite with extra arguments, as a legitimate (or deliberately lossy) rewrite. */
const rewrite =
  (...args: string[]): Damage =>
  async (input, output) => {
    const result = await runTool(
      gs?.path ?? 'gs',
      [
        '-q',
        '-dSAFER',
        '-dBATCH',
        '-dNOPAUSE',
        '-sDEVICE=pdfwrite',
        ...args,
        `-sOutputFile=${output}`,
        input,
      ],
      { cwd: dir, timeoutMs: 60_000 },
    );
    expect(result.exitCode, result.stderr).toBe(0);
  };

/** Every page of the input, blank, at the same size: what gs 10.00 wrote for files it could not read. */
const blankPages: Damage = async (input, output) => {
  const source = await PDFDocument.load(await readFile(input));
  const blank = await PDFDocument.create();
  for (const page of source.getPages()) blank.addPage([page.getWidth(), page.getHeight()]);
  await writeFile(output, await blank.save());
};

/** Every page rasterised at 150 dpi into an image: it looks the same, but nothing can be searched. */
const rasterised: Damage = async (input, output) => {
  const prefix = join(dir, `raster-${Date.now()}`);
  const render = await runTool(
    gs?.path ?? 'gs',
    [
      '-q',
      '-dSAFER',
      '-dBATCH',
      '-dNOPAUSE',
      '-sDEVICE=pnggray',
      '-r150',
      `-sOutputFile=${prefix}-%d.png`,
      input,
    ],
    { cwd: dir, timeoutMs: 60_000 },
  );
  expect(render.exitCode, render.stderr).toBe(0);
  const source = await PDFDocument.load(await readFile(input));
  const flat = await PDFDocument.create();
  for (const [index, page] of source.getPages().entries()) {
    const image = await flat.embedPng(await readFile(`${prefix}-${index + 1}.png`));
    const [width, height] = [page.getWidth(), page.getHeight()];
    flat.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
  }
  await writeFile(output, await flat.save());
};

/** Every image XObject replaced by a white one of the same size: images that vanished. */
const whitenedImages: Damage = async (input, output) => {
  const doc = await PDFDocument.load(await readFile(input));
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream) || object.dict.get(PDFName.of('Subtype')) !== PDFName.of('Image'))
      continue;
    const width = (object.dict.get(PDFName.of('Width')) as PDFNumber).asNumber();
    const height = (object.dict.get(PDFName.of('Height')) as PDFNumber).asNumber();
    const white = deflateSync(new Uint8Array(width * height).fill(255));
    const dict = doc.context.obj({
      Type: 'XObject',
      Subtype: 'Image',
      Width: width,
      Height: height,
      ColorSpace: 'DeviceGray',
      BitsPerComponent: 8,
      Filter: 'FlateDecode',
    });
    doc.context.assign(ref, PDFRawStream.of(dict, white));
  }
  await writeFile(output, await doc.save());
};

const corpus = {
  photo: async () => [await photoPdf({ pages: 2, seed: 4 }), 2] as const,
  scan: async () => [await scanPdf({ pages: 1, seed: 4 }), 1] as const,
  text: async () => [await textPdf({ pages: 7, seed: 4 }), 7] as const,
};

// [name, { given: input kind and what is done to it, want: refusal or undefined (proven) }]
const table: [string, { given: [keyof typeof corpus, Damage]; want: RegExp | undefined }][] = [
  ['photos at /ebook', { given: ['photo', rewrite('-dPDFSETTINGS=/ebook')], want: undefined }],
  [
    'photos at 72 dpi, JPEGs re-encoded (pdn high)',
    {
      given: [
        'photo',
        rewrite('-dPDFSETTINGS=/ebook', '-dColorImageResolution=72', '-dPassThroughJPEGImages=false'),
      ],
      want: undefined,
    },
  ],
  ['a scan at /screen', { given: ['scan', rewrite('-dPDFSETTINGS=/screen')], want: undefined }],
  ['text at /ebook', { given: ['text', rewrite('-dPDFSETTINGS=/ebook')], want: undefined }],
  [
    'photo pages blanked',
    { given: ['photo', blankPages], want: /page \d differs from the input: \d+\.\d dB PSNR/ },
  ],
  ['scan blanked', { given: ['scan', blankPages], want: /page 1 differs/ }],
  ['text pages blanked', { given: ['text', blankPages], want: /page \d differs/ }],
  ['photos whitened', { given: ['photo', whitenedImages], want: /page \d differs/ }],
  // Looks the same, but nothing can be searched or copied any more.
  [
    'text flattened into images',
    { given: ['text', rasterised], want: /differs from the input|kept 0 of the input's/ },
  ],
];

// The readers of words the machine has: poppler's when installed, and Ghostscript's alone as on a
// machine without poppler.
const readerSets = [
  ['pdftotext and Ghostscript', pdftotext, pdftotext === undefined],
  ['Ghostscript alone', undefined, false],
] as const;

describe.skipIf(gs === undefined).each(readerSets)(
  'content check, words read by %s',
  (_readers, reader, skip) => {
    const checkFor = (input: string, pages: number, workDir: string) =>
      createContentCheck(
        input,
        pages,
        { gs: gs as ToolInfo, interpreters: ['default'], pdftotext: reader, timeoutMs: 60_000 },
        { workDir, signal: new AbortController().signal },
      );

    it.skipIf(skip).each(table)('%s', SLOW, async (name, { given: [kind, damage], want }) => {
      const slug = `${name.replaceAll(/\W+/g, '-')}-${reader === undefined ? 'gs' : 'poppler'}`;
      const [bytes, pages] = await corpus[kind]();
      const input = await writeFixture(dir, `${slug}-in.pdf`, bytes);
      const output = join(dir, `${slug}-out.pdf`);
      await damage(input, output);
      const check = checkFor(input, pages, await mkdtemp(join(dir, 'job-')));
      const verdict = await check.prove(output, 'candidate');
      await check.settle();
      if (want === undefined) expect(verdict.rejected).toBeUndefined();
      else expect(verdict.rejected).toMatch(want);
    });

    it.skipIf(skip)(
      'proves an output identical to a blank input: nothing was there to lose',
      SLOW,
      async () => {
        const doc = await PDFDocument.create();
        doc.addPage();
        const input = await writeFixture(
          dir,
          `blank-${reader === undefined ? 'gs' : 'poppler'}.pdf`,
          await doc.save(),
        );
        const check = checkFor(input, 1, await mkdtemp(join(dir, 'job-')));
        expect(await check.prove(input, 'same')).toEqual({
          rejected: undefined,
          worstPsnrDb: Number.POSITIVE_INFINITY,
          words: { kept: 0, reference: 0 },
        });
      },
    );
  },
);
