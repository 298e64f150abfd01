// What the two OCR paths (tesseract.js workers, the native tesseract binary) have in common, so the
// engine can route a job to either and map their failures in one place.

/** Text of one image and tesseract's mean word confidence (0-100, 0 when no word was found). */
export interface RecognizedText {
  text: string;
  confidence: number;
}

/** The image passed the header checks but its data could not be decoded: the client's file is bad. */
export class UnreadableImageError extends Error {
  override name = 'UnreadableImageError';
}

/** The text of anything thrown: tesseract.js rejects with plain strings. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
