// What was uploaded to OCR of documents (openapi.yaml `ocrPdf`, `file`): a PDF, judged like every PDF
// input (pdf-inspect.ts: encrypted, damaged, page-less, over the page cap), or one image judged like
// the image of `POST /api/v1/ocr` (image-header.ts: formats, pixel cap). Told apart by the bytes.
import { open } from 'node:fs/promises';
import { checkPixelCap, type ImageFormat, readImageHeader } from '../ocr/image-header.js';
import { HEADER_WINDOW } from '../pdf/pdf-header.js';
import { emptyFile } from '../pdf/pdf-input-errors.js';
import { inspectPdf } from '../pdf-inspect.js';
import type { DetectedTools } from '../tools.js';
import type { InputFile } from '../types.js';

export type DocumentInput =
  | { kind: 'pdf'; path: string; pageCount: number }
  | { kind: 'image'; path: string; format: ImageFormat; pageCount: number };

export interface DocumentInputOptions {
  tools: DetectedTools;
  maxPages: number;
  maxImagePixels: number;
  timeoutMs: number;
  signal: AbortSignal;
}

/** `%PDF-` within the window where pdf-header.ts looks for it; anything else must be an image. */
async function looksLikePdf(input: InputFile): Promise<boolean> {
  const file = await open(input.path, 'r');
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(HEADER_WINDOW), 0, HEADER_WINDOW, 0);
    if (bytesRead === 0) throw emptyFile(input.label);
    return buffer.subarray(0, bytesRead).includes('%PDF-');
  } finally {
    await file.close();
  }
}

/** Throws InvalidInputError naming `input` for anything that is not a usable PDF or image. */
export async function readDocumentInput(input: InputFile, o: DocumentInputOptions): Promise<DocumentInput> {
  if (await looksLikePdf(input)) {
    const { path, pageCount } = await inspectPdf(input, {
      tools: o.tools,
      maxPages: o.maxPages,
      timeoutMs: o.timeoutMs,
      signal: o.signal,
    });
    return { kind: 'pdf', path, pageCount };
  }
  const header = await readImageHeader(input);
  checkPixelCap(header.pages, o.maxImagePixels, input.label);
  return { kind: 'image', path: input.path, format: header.format, pageCount: header.pages.length };
}
