// The benchmark corpus (issue #6), generated deterministically from @pdn/fixtures into the run's
// scratch folder: text PDFs of several lengths, photo-heavy PDFs (JPEG and PNG images), 300 dpi scans,
// a PDF with a fully embedded font, merge inputs and OCR images with known text.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  embeddedFontPdf,
  type OcrLanguage,
  ocrPage,
  ocrSample,
  photoPdf,
  scanPdf,
  textPdf,
} from '@pdn/fixtures';
import type { Profile } from './profile.js';

export interface CorpusFile {
  name: string;
  path: string;
  kind: 'text' | 'photo-jpeg' | 'photo-png' | 'scan' | 'embedded-font';
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
  for (const pages of profile.textPages) {
    const name = `text-${pages}p.pdf`;
    compress.push({ name, kind: 'text', path: await save(dir, name, await textPdf({ pages, seed: pages })) });
  }
  for (const image of ['jpeg', 'png'] as const) {
    const name = `photo-${image}.pdf`;
    const bytes = await photoPdf({ pages: profile.photoPages, image, seed: 7 });
    compress.push({ name, kind: `photo-${image}`, path: await save(dir, name, bytes) });
  }
  compress.push({
    name: 'scan-300dpi.pdf',
    kind: 'scan',
    path: await save(dir, 'scan-300dpi.pdf', await scanPdf({ pages: profile.scanPages, seed: 3, dpi: 300 })),
  });
  compress.push({
    name: 'embedded-font.pdf',
    kind: 'embedded-font',
    path: await save(dir, 'embedded-font.pdf', await embeddedFontPdf({ pages: profile.fontPages, seed: 5 })),
  });

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
