// POST /api/v1/ocr/pdf (openapi.yaml operation `ocrPdf`; issue #17): one PDF or image in `file`, the
// options as form fields. The engine judges the file, the languages and the pages; the route parses the
// fields, publishes the two outputs, and puts the start of the text inline.
import { open } from 'node:fs/promises';
import type { OcrPdfMode, OcrPdfOutputType, OcrPdfResult } from '@pdn/api-types';
import type { Middleware } from 'koa';
import type { OcrPdfEngine } from '../../engines/ocr-pdf/index.js';
import { InvalidInputError } from '../../errors.js';
import type { Downloads } from '../../storage/index.js';
import type { PartsSpec } from '../middleware/uploads.js';
import { ocrNames } from '../output-names.js';
import { sendData } from '../respond.js';
import type { AppState } from '../state.js';
import { optionalField, singleFile, type Upload } from '../upload.js';
import { inputFile, jobOf, uploadOf } from './job.js';
import { DEFAULT_LANGUAGE } from './ocr.js';

/** openapi.yaml OcrPdfResult `text`: maxLength. */
export const INLINE_TEXT_LIMIT = 100_000;

export const ocrPdfParts: PartsSpec = {
  summary:
    'POST /api/v1/ocr/pdf takes one PDF or image in the part `file` and optionally `language`, `mode`, `deskew`, `rotate`, `pages` and `output`',
  files: ['file'],
  fields: ['language', 'mode', 'deskew', 'rotate', 'pages', 'output'],
};

function oneOf<T extends string>(upload: Upload, name: string, values: readonly T[], fallback: T): T {
  const raw = optionalField(upload, name);
  if (raw === undefined) return fallback;
  const value = values.find((candidate) => candidate === raw);
  if (value === undefined)
    throw new InvalidInputError(`\`${name}\` must be one of ${values.join(', ')}; got "${raw}".`);
  return value;
}

const MODES: readonly OcrPdfMode[] = ['skip', 'redo', 'force'];
const OUTPUTS: readonly OcrPdfOutputType[] = ['pdf', 'pdfa'];
const BOOLEANS = ['true', 'false'] as const;

/** The first `INLINE_TEXT_LIMIT` characters (code points) of the text file, read no further than needed. */
async function inlineText(path: string): Promise<{ text: string; truncated: boolean }> {
  const file = await open(path, 'r');
  try {
    // A character is at most 4 bytes in UTF-8: this many bytes hold the limit, plus one to know there is more.
    const room = INLINE_TEXT_LIMIT * 4 + 4;
    const { buffer, bytesRead } = await file.read(Buffer.alloc(room), 0, room, 0);
    const characters = [...buffer.subarray(0, bytesRead).toString('utf8')];
    const truncated =
      characters.length > INLINE_TEXT_LIMIT || (bytesRead === room && characters.length >= INLINE_TEXT_LIMIT);
    return { text: characters.slice(0, INLINE_TEXT_LIMIT).join(''), truncated };
  } finally {
    await file.close();
  }
}

export function ocrPdfRoute(engine: OcrPdfEngine, downloads: Downloads): Middleware<AppState> {
  return async (ctx) => {
    const upload = uploadOf(ctx);
    const file = singleFile(upload, 'file', 'the PDF or image to make searchable');
    const request = {
      language: optionalField(upload, 'language') ?? DEFAULT_LANGUAGE,
      mode: oneOf(upload, 'mode', MODES, 'skip'),
      deskew: oneOf(upload, 'deskew', BOOLEANS, 'false') === 'true',
      rotate: oneOf(upload, 'rotate', BOOLEANS, 'false') === 'true',
      pages: optionalField(upload, 'pages'),
      output: oneOf(upload, 'output', OUTPUTS, 'pdf'),
    };
    const output = await engine.ocrPdf(inputFile(file), request, jobOf(upload));
    const names = ocrNames(file.name);
    // Before publishing: publishing moves the file into the output store.
    const { text, truncated } = await inlineText(output.textPath);
    const download = await downloads.publish(output.path, names.pdf);
    const textDownload = await downloads.publish(output.textPath, names.text);
    const ocred = output.pages.filter((page) => page.status === 'ocred').length;
    sendData<OcrPdfResult>(ctx, {
      filename: names.pdf,
      text_filename: names.text,
      method: output.method,
      output: request.output,
      language: output.language,
      page_count: output.pages.length,
      pages_ocred: ocred,
      pages_skipped: output.pages.length - ocred,
      pages: output.pages.map((page, index) => ({ page: index + 1, ...page })),
      size: output.size,
      text,
      text_truncated: truncated,
      download,
      text_download: textDownload,
    });
  };
}
