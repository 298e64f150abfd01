// What the two OCR paths (tesseract.js workers, the native tesseract binary) have in common, so the
// engine can route a job to either and map their failures in one place.

import type { OcrWord } from './tsv-words.js';

/** Text of one image and tesseract's mean word confidence (0-100, 0 when no word was found). */
export interface RecognizedText {
  text: string;
  confidence: number;
  /** Every word with its box (tsv-words.ts), for `detail=words`. */
  words: OcrWord[];
}

/** One page of a document read by tesseract.js: its text, TSV and one-page PDF. */
export interface PageReading {
  text: string;
  tsv: string;
  pdf: Uint8Array;
  /** tesseract's hOCR, when asked for. */
  hocr?: string;
}

/** The image passed the header checks but its data could not be decoded: the client's file is bad. */
export class UnreadableImageError extends Error {
  override name = 'UnreadableImageError';
}

/**
 * Why an OCR job failed: `unreadable`, the upload's data could not be decoded; `over-cap`, the decoder
 * reads more pixels than the cap allows; `memory`, an allocation failed under the job's memory limit;
 * `failed`, anything else (the server's fault).
 */
export type FailureKind = 'unreadable' | 'over-cap' | 'memory' | 'failed';

/** A failure of an OCR process or of a native tesseract run, with its kind. */
export class OcrJobError extends Error {
  override name = 'OcrJobError';
  constructor(
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message);
  }
}

/**
 * How an allocation refused under the address-space limit shows itself: V8 ("Array buffer allocation
 * failed", "Fatal process OOM", "JavaScript heap out of memory"), libvips ("out of memory"), emscripten
 * ("Cannot enlarge memory", "Aborted(OOM)"), Leptonica ("pixdata_malloc fail"), C++ (std::bad_alloc).
 */
const OUT_OF_MEMORY =
  /allocation failed|out of memory|\bOOM\b|Cannot enlarge memory|malloc fail|bad_alloc|Cannot allocate memory/i;

export function isOutOfMemory(text: string): boolean {
  return OUT_OF_MEMORY.test(text);
}

/** The text of anything thrown: tesseract.js rejects with plain strings. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
