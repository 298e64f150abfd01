// The benchmark corpus, generated deterministically from @pdn/fixtures into the run's
// scratch folder: text PDFs of several lengths, photo-heavy PDFs (JPEG and PNG images at 300 dpi,
// camera JPEGs at 96 ppi), scans (300 dpi JPEG, 200 dpi lossless greyscale), PNG screenshots, a PDF
// with a fully embedded font, merge inputs and OCR images with known text.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  cameraPdf,
  embeddedFontPdf,
  type OcrLanguage,
  ocrPage,
  ocrSample,
  photoPdf,
  scanPdf,
  screenshotPdf,
  textPdf,
} from '@pdn/fixtures';
import type { Profile } from './profile.js';

export interface CorpusFile {
  name: string;
  path: string;
  kind:
    | 'text'
    | 'photo-jpeg'
    | 'photo-png'
    | 'camera-jpeg'
    | 'scan'
    | 'scan-png'
    | 'screenshot'
    | 'embedded-font';
  /** `high` must save at least 80% on these. */
  photoHeavy: boolean;
}

export interface OcrImage {
  path: string;
  language: OcrLanguage;
  text: string;
}

export interface Corpus {
  /** Inputs of the compression scenarios. */
  compress: CorpusFile[];
  /** Distinct PDFs merged in the merge scenario. */
  mergeInputs: string[];
  /** The long PDF of the split scenario. */
  splitInput: string;
  ocr: OcrImage[];
  /** A page-sized image (many lines of English) for OCR throughput. */
  ocrPage: OcrImage;
}

/** Languages of the OCR scenario: the native baseline needs the same traineddata family for each. */
const OCR_BENCH_LANGUAGES: readonly OcrLanguage[] = ['eng', 'deu', 'fra', 'spa', 'ukr', 'ell'];

async function save(dir: string, name: string, bytes: Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

export async function buildCorpus(dir: string, profile: Profile): Promise<Corpus> {
  const compress: CorpusFile[] = [];
  const add = async (
    name: string,
    kind: CorpusFile['kind'],
    photoHeavy: boolean,
    make: () => Promise<Uint8Array>,
  ) => {
    if (profile.compressKinds !== undefined && !profile.compressKinds.includes(kind)) return;
    compress.push({ name, kind, photoHeavy, path: await save(dir, name, await make()) });
  };
  for (const pages of profile.textPages)
    await add(`text-${pages}p.pdf`, 'text', false, () => textPdf({ pages, seed: pages }));
  for (const image of ['jpeg', 'png'] as const) {
    await add(`photo-${image}.pdf`, `photo-${image}`, true, () =>
      photoPdf({ pages: profile.photoPages, image, seed: 7 }),
    );
  }
  const { camera } = profile;
  await add('camera-96ppi.pdf', 'camera-jpeg', true, () =>
    cameraPdf({ ...camera, ppi: 96, quality: 90, seed: 11 }),
  );
  await add('scan-300dpi.pdf', 'scan', true, () => scanPdf({ pages: profile.scanPages, seed: 3, dpi: 300 }));
  await add('scan-grey-200dpi-lossless.pdf', 'scan-png', false, () =>
    scanPdf({ pages: profile.scanPages, seed: 4, dpi: 200, image: 'png' }),
  );
  await add('screenshots-png.pdf', 'screenshot', false, () =>
    screenshotPdf({ pages: profile.screenshotPages, seed: 5 }),
  );
  await add('embedded-font.pdf', 'embedded-font', false, () =>
    embeddedFontPdf({ pages: profile.fontPages, seed: 5 }),
  );

  const mergeInputs: string[] = [];
  for (let i = 1; i <= profile.merge.files; i++) {
    const bytes = await textPdf({
      pages: profile.merge.pagesEach,
      seed: 1000 + i,
      label: `merge input ${i}`,
    });
    mergeInputs.push(await save(dir, `merge-${String(i).padStart(2, '0')}.pdf`, bytes));
  }
  const splitInput = await save(
    dir,
    `split-${profile.split.pages}p.pdf`,
    await textPdf({ pages: profile.split.pages, seed: 99 }),
  );

  const ocr: OcrImage[] = [];
  for (const language of OCR_BENCH_LANGUAGES.slice(0, profile.ocrImages)) {
    const sample = await ocrSample(language, 'png');
    ocr.push({ language, text: sample.text, path: await save(dir, `ocr-${language}.png`, sample.bytes) });
  }
  const page = await ocrPage('eng', profile.ocrPageRepeats);
  const ocrPageImage = {
    language: 'eng' as const,
    text: page.text,
    path: await save(dir, 'ocr-page-eng.png', page.bytes),
  };
  return { compress, mergeInputs, splitInput, ocr, ocrPage: ocrPageImage };
}
