// What was uploaded to OCR of documents (openapi.yaml `ocrPdf`, `file`): a PDF, judged like every PDF
// input (pdf-inspect.ts: encrypted, damaged, page-less, over the page cap), or one image judged like
// the image of `POST /api/v1/ocr` (image-header.ts: formats, pixel cap). Told apart by the bytes.
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InternalError } from '../../errors.js';
import { checkPixelCap, type ImageFormat, readImageHeader } from '../ocr/image-header.js';
import { HEADER_WINDOW } from '../pdf/pdf-header.js';
import { emptyFile } from '../pdf/pdf-input-errors.js';
import { qpdfSucceeded, runQpdf } from '../pdf/run-qpdf.js';
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

/**
 * The PDF at `path` as qpdf, which counted its pages, reads it: rewritten by qpdf (a fresh
 * cross-reference, only the objects its pages reach). Every reader then sees those pages and no others:
 * Ghostscript (OCRmyPDF's rasteriser, the native PDF/A) and poppler rebuild cross-references qpdf
 * reads as they are, and may find another page tree in the same bytes (found by attacking the page count: a
 * page hidden from qpdf came back from OCRmyPDF's `force` as the page's raster, and a 6000-page tree
 * hidden in a one-page upload had the native PDF/A write 6000 pages, then a 500). One qpdf run per
 * document, small beside OCR; without qpdf, the readers' own checks are all there is.
 */
async function asQpdfReadIt(path: string, o: DocumentInputOptions): Promise<string> {
  if (o.tools.qpdf === undefined) return path;
  const copy = `${path}.qpdf.pdf`;
  const run = { qpdf: o.tools.qpdf, cwd: dirname(path), timeoutMs: o.timeoutMs, signal: o.signal };
  const result = await runQpdf([path, copy], run);
  // Inspection has just opened the file with qpdf or found it plain: a failure now is not the client's.
  if (!qpdfSucceeded(result))
    throw new InternalError(`qpdf could not rewrite ${path}: ${result.stderr.trim()}`);
  return copy;
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
    return { kind: 'pdf', path: await asQpdfReadIt(path, o), pageCount };
  }
  const header = await readImageHeader(input);
  checkPixelCap(header.pages, o.maxImagePixels, input.label);
  return { kind: 'image', path: input.path, format: header.format, pageCount: header.pages.length };
}
