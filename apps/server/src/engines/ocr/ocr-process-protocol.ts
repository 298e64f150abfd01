// What the server and an OCR process say to each other over the IPC channel (ocr-process.ts,
// ocr-process-main.ts). Plain JSON: paths, sizes and text, never image bytes.
import type { FragmentRequest, ImageCheckRequest } from '../images-pdf/image-fragment.js';
import type { ImageFormat } from './image-header.js';
import type { LanguageData } from './language-registry.js';
import type { FailureKind } from './recognizer.js';

export type OcrRequest = { id: number } & (
  | { op: 'start'; languages: LanguageData[]; timeoutMs: number }
  | { op: 'prepare'; path: string; format: ImageFormat; maxPixels: number; outDir: string }
  | { op: 'image-pdf'; path: string; format: ImageFormat; maxPixels: number; output: string }
  | { op: 'image-fragment'; request: FragmentRequest }
  | { op: 'image-check'; request: ImageCheckRequest }
  | { op: 'recognize'; pages: string[] }
  | { op: 'read-page'; image: string; dpi: number; textOnly: boolean; hocr: boolean; outBase: string }
);

export type OcrReply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; kind: FailureKind; message: string };

/** The requests that decode an upload: their failures are the upload's (damaged data), not ours. */
export function decodes(op: OcrRequest['op']): boolean {
  return op === 'prepare' || op === 'image-pdf' || op === 'image-fragment' || op === 'image-check';
}
