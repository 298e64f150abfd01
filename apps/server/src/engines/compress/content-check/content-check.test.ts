import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { photoPdf, scanPdf, textPdf, writeFixture } from '@pdn/fixtures';
import {
  concatTransformationMatrix,
  drawObject,
  PDFDict,
  PDFDocument,
  PDFName,
  type PDFNumber,
  PDFRawStream,
  popGraphicsState,
  pushGraphicsState,
  StandardFonts,
} from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuSlots } from '../../cpu-slots.js';
import { JobLanes } from '../../job-lanes.js';
import { runTool } from '../../run-tool.js';
import { detectTools, type ToolInfo } from '../../tools.js';
import { createContentCheck } from './content-check.js';
import { readStructure } from './pdf-structure.js';

// Both sides of the floors with real renders: what Ghostscript's own rewrites produce
// passes; blanked pages, whitened images, text flattened into images, a font's encoding lost and a
// form's values dropped do not.
const { ghostscript: gs, pdftotext, pdftoppm, pdfimages, qpdf } = await detectTools();
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

/** The font's encoding swapped from WinAnsi to MacRoman: curly quotes read as other letters, as
 * Ghostscript's rewrite of a macOS Pages file read them (Ò, Ó); the words around them survive. */
const macRomanFont: Damage = async (input, output) => {
  const doc = await PDFDocument.load(await readFile(input));
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (object instanceof PDFDict && object.get(PDFName.of('Type')) === PDFName.of('Font'))
      object.set(PDFName.of('Encoding'), PDFName.of('MacRomanEncoding'));
  }
  await writeFile(output, await doc.save());
};

/** The fields' values dropped; their widgets still draw them, so nothing looks lost (Ghostscript's
 * rewrite of a LibreOffice form lost "Alice" and "Bob" so). */
const formValuesDropped: Damage = async (input, output) => {
  const doc = await PDFDocument.load(await readFile(input));
  for (const field of doc.getForm().getFields()) field.acroField.dict.delete(PDFName.of('V'));
  await writeFile(output, await doc.save());
};

/** A page of prose with one quoted word, in Helvetica (WinAnsi): 40 words, so losing one keeps 97.5%. */
async function quotesPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([400, 300]);
  const words = Array.from({ length: 39 }, (_, index) => `word${index}`);
  const lines = [words.slice(0, 13), words.slice(13, 26), words.slice(26)].map((line) => line.join(' '));
  lines.push('Hello (\u201cclient\u201d) how are you?');
  for (const [index, line] of lines.entries())
    page.drawText(line, { x: 10, y: 250 - index * 20, size: 9, font });
  return doc.save();
}

/** A filled-in text field, written by pdf-lib with its appearance. */
async function formPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 200]);
  const field = doc.getForm().createTextField('name');
  field.setText('Alice');
  field.addToPage(page, { x: 20, y: 100, width: 200, height: 30 });
  return doc.save();
}

/** A small light grey image (8x8 pixels drawn half an inch wide) on a Letter page: no marks, little PSNR. */
async function paleImagePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const pixels = deflateSync(new Uint8Array(64).fill(230));
  const dict = doc.context.obj({
    Type: 'XObject',
    Subtype: 'Image',
    Width: 8,
    Height: 8,
    ColorSpace: 'DeviceGray',
    BitsPerComponent: 8,
    Filter: 'FlateDecode',
  });
  page.node.setXObject(PDFName.of('Im0'), doc.context.register(PDFRawStream.of(dict, pixels)));
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(36, 0, 0, 36, 100, 600),
    drawObject('Im0'),
    popGraphicsState(),
  );
  return doc.save();
}

/** One small black square on a Letter page: 0.3% of it, so PSNR alone would not miss it. */
async function squarePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([612, 792]).drawRectangle({ x: 100, y: 600, width: 40, height: 40 });
  return doc.save();
}

const corpus = {
  photo: async () => [await photoPdf({ pages: 2, seed: 4 }), 2] as const,
  scan: async () => [await scanPdf({ pages: 1, seed: 4 }), 1] as const,
  text: async () => [await textPdf({ pages: 7, seed: 4 }), 7] as const,
  quotes: async () => [await quotesPdf(), 1] as const,
  form: async () => [await formPdf(), 1] as const,
  square: async () => [await squarePdf(), 1] as const,
  paleImage: async () => [await paleImagePdf(), 1] as const,
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
  [
    'a small square dropped: the page scores above the PSNR floor, its marks do not',
    { given: ['square', blankPages], want: /^page 1 kept 0 of its \d+ marks, floor 50%$/ },
  ],
  ['quoted prose at /ebook', { given: ['quotes', rewrite('-dPDFSETTINGS=/ebook')], want: undefined }],
  [
    'curly quotes remapped by a lost encoding, 39 of 40 words kept',
    { given: ['quotes', macRomanFont], want: /lost 2 of the input's \d+ distinct characters \("“" "”"\)/ },
  ],
];

/** Needs pdfimages: the rows run only with poppler. */
const imagesTable: typeof table = [
  [
    'a small pale image dropped: PSNR and marks do not see it',
    { given: ['paleImage', blankPages], want: /^page 1 draws 0 of the input's 1 images$/ },
  ],
];

/** Needs qpdf to read the structure: the rows run only where it is installed. */
const structureTable: typeof table = [
  [
    'a form left as it is',
    { given: ['form', async (input, output) => writeFile(output, await readFile(input))], want: undefined },
  ],
  [
    "a form's values dropped, its widgets left drawing them",
    { given: ['form', formValuesDropped], want: /^form fields lost or changed: name = "u:Alice"$/ },
  ],
];

// The renderers and readers of words the machine has: poppler's when installed, and Ghostscript's
// alone as on a machine without poppler.
const toolSets = [
  [
    'poppler and Ghostscript',
    { pdftotext, pdftoppm, pdfimages },
    pdftotext === undefined || pdftoppm === undefined || pdfimages === undefined,
  ],
  ['Ghostscript alone', { pdftotext: undefined, pdftoppm: undefined, pdfimages: undefined }, false],
] as const;

describe.skipIf(gs === undefined).each(toolSets)(
  'content check, pages drawn and words read by %s',
  (tools, { pdftotext: reader, pdftoppm: renderer, pdfimages: counter }, skip) => {
    const checkFor = async (input: string, pages: number, workDir: string) => {
      const run = qpdf && { qpdf, cwd: workDir, timeoutMs: 60_000 };
      const { signal } = new AbortController();
      return createContentCheck(
        input,
        pages,
        {
          gs: gs as ToolInfo,
          interpreters: ['default'],
          pdftotext: reader,
          pdftoppm: renderer,
          pdfimages: counter,
          structure: run && { input: await readStructure(input, 'input', run), run },
          timeoutMs: 60_000,
          lanes: new JobLanes(new CpuSlots(2), signal),
        },
        { workDir, signal },
      );
    };

    const rows = [
      ...table,
      ...(qpdf === undefined ? [] : structureTable),
      ...(counter === undefined ? [] : imagesTable),
    ];
    it.skipIf(skip).each(rows)('%s', SLOW, async (name, { given: [kind, damage], want }) => {
      const slug = `${name.replaceAll(/\W+/g, '-')}-${tools.replaceAll(/\W+/g, '-')}`;
      const [bytes, pages] = await corpus[kind]();
      const input = await writeFixture(dir, `${slug}-in.pdf`, bytes);
      const output = join(dir, `${slug}-out.pdf`);
      await damage(input, output);
      const check = await checkFor(input, pages, await mkdtemp(join(dir, 'job-')));
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
        const input = await writeFixture(dir, `blank-${tools.replaceAll(/\W+/g, '-')}.pdf`, await doc.save());
        const check = await checkFor(input, 1, await mkdtemp(join(dir, 'job-')));
        expect(await check.prove(input, 'same')).toEqual({
          rejected: undefined,
          worstPsnrDb: Number.POSITIVE_INFINITY,
          worstTile: { db: Number.POSITIVE_INFINITY, paperDb: Number.POSITIVE_INFINITY, similarity: 1 },
          words: { kept: 0, reference: 0 },
        });
      },
    );
  },
);
