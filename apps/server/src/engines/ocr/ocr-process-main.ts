// The entry point of an OCR process (ocr-process.ts starts it under an address-space limit): decodes
// uploads into page images and, when started with languages, recognises them with its own tesseract.js
// worker. It answers the server's requests over the IPC channel, one at a time, and exits with it.
import { readFile, writeFile } from 'node:fs/promises';
import { checkImage, writeImageFragment } from '../images-pdf/image-fragment.js';
import { writeImagePdf } from './image-pdf.js';
import { meanWordConfidence } from './native-tesseract.js';
import { decodes, type OcrReply, type OcrRequest } from './ocr-process-protocol.js';
import { PixelCapError, writePageImages } from './page-images.js';
import {
  type FailureKind,
  isOutOfMemory,
  messageOf,
  type RecognizedText,
  UnreadableImageError,
} from './recognizer.js';
import { TesseractJsWorker } from './tesseract-js-worker.js';

let recognizer: TesseractJsWorker | undefined;

async function recognize(pages: readonly string[]): Promise<RecognizedText> {
  if (recognizer === undefined) throw new Error('this OCR process was started without languages');
  const texts: string[] = [];
  const confidences: number[] = [];
  const words: RecognizedText['words'] = [];
  for (const [index, page] of pages.entries()) {
    const result = await recognizer.recognize(await readFile(page));
    texts.push(result.text);
    if (result.text.trim() !== '') confidences.push(result.confidence);
    words.push(...result.words.map((word) => ({ ...word, page: index + 1 })));
  }
  const confidence =
    confidences.length === 0 ? 0 : confidences.reduce((sum, value) => sum + value, 0) / confidences.length;
  // Pages apart by a form feed (openapi.yaml `ocr`), as tesseract itself separates them.
  return { text: texts.join('\f'), confidence: Math.round(confidence), words };
}

/**
 * One page of a document: `outBase.pdf` (tesseract's page, text only or with the image)
 * and `outBase.txt` (and `outBase.hocr`, the lines' baselines for deskew); answers the page's mean word
 * confidence, as the native engine reads it from TSV.
 */
async function readPage(
  image: string,
  dpi: number,
  textOnly: boolean,
  hocr: boolean,
  outBase: string,
): Promise<number> {
  if (recognizer === undefined) throw new Error('this OCR process was started without languages');
  const page = await recognizer.readPage(await readFile(image), dpi, textOnly, hocr);
  await Promise.all([
    writeFile(`${outBase}.pdf`, page.pdf),
    writeFile(`${outBase}.txt`, page.text),
    ...(page.hocr === undefined ? [] : [writeFile(`${outBase}.hocr`, page.hocr)]),
  ]);
  return meanWordConfidence(page.tsv);
}

function kindOf(error: unknown, request: OcrRequest): FailureKind {
  if (error instanceof PixelCapError) return 'over-cap';
  if (isOutOfMemory(messageOf(error))) return 'memory';
  if (decodes(request.op)) return 'unreadable';
  // Leptonica refusing a page we wrote ourselves can only be an allocation that failed.
  if (error instanceof UnreadableImageError) return 'memory';
  return 'failed';
}

async function handle(request: OcrRequest): Promise<unknown> {
  switch (request.op) {
    case 'start':
      if (request.languages.length > 0) {
        recognizer = await TesseractJsWorker.create(request.languages, request.timeoutMs);
      }
      return null;
    case 'prepare':
      return writePageImages(request.path, request.format, request.maxPixels, request.outDir);
    case 'image-pdf':
      return writeImagePdf(request.path, request.format, request.maxPixels, request.output);
    case 'image-fragment':
      return writeImageFragment(request.request);
    case 'image-check':
      return checkImage(request.request).then(() => null);
    case 'recognize':
      return recognize(request.pages);
    case 'read-page':
      return readPage(request.image, request.dpi, request.textOnly, request.hocr, request.outBase);
  }
}

process.on('message', (request: OcrRequest) => {
  handle(request)
    .then(
      (result): OcrReply => ({ id: request.id, ok: true, result }),
      (error: unknown): OcrReply => ({
        id: request.id,
        ok: false,
        kind: kindOf(error, request),
        message: messageOf(error),
      }),
    )
    .then((reply) => process.send?.(reply));
});

// The server going away closes the channel: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
