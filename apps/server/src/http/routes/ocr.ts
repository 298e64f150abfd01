// POST /api/v1/ocr (openapi.yaml operation `ocr`; issue #3): one image in `image`, optional
// `language` defaulting to `eng`. The engine checks the image's bytes, its pixel count and the
// language codes (and answers the set as it read it: sorted, each code once); the route only gathers
// the parts.
import type { OcrResult } from '@pdn/api-types';
import type { Middleware } from 'koa';
import type { OcrEngine } from '../../engines/types.js';
import { InvalidInputError } from '../../errors.js';
import type { PartsSpec } from '../middleware/uploads.js';
import { sendData } from '../respond.js';
import type { AppState } from '../state.js';
import { optionalField, singleFile } from '../upload.js';
import { inputFile, jobOf, uploadOf } from './job.js';

/** openapi.yaml `ocr` `language` default; GET /api/v1/languages reports it too. */
export const DEFAULT_LANGUAGE = 'eng';

export const ocrParts: PartsSpec = {
  summary:
    'POST /api/v1/ocr takes one image (PNG, JPEG, TIFF, WebP or BMP) in the part `image` and optionally `language` (see GET /api/v1/languages) and `detail` (text or words)',
  files: ['image'],
  fields: ['language', 'detail'],
};

/** openapi.yaml `ocr` `detail`: `text` by default. */
function parseDetail(raw: string | undefined): 'text' | 'words' {
  if (raw === undefined || raw === 'text') return 'text';
  if (raw === 'words') return 'words';
  throw new InvalidInputError(`\`detail\` must be one of text, words; got "${raw}".`);
}

export function ocrRoute(engine: OcrEngine): Middleware<AppState> {
  return async (ctx) => {
    const upload = uploadOf(ctx);
    const image = singleFile(upload, 'image', 'the image to read');
    const language = optionalField(upload, 'language') ?? DEFAULT_LANGUAGE;
    const detail = parseDetail(optionalField(upload, 'detail'));
    const result = await engine.recognize(inputFile(image), language, jobOf(upload));
    const answer: OcrResult = { text: result.text, language: result.language, confidence: result.confidence };
    // The default answer stays exactly as the spec shows it (issue #17).
    sendData<OcrResult>(ctx, detail === 'words' ? { ...answer, words: result.words } : answer);
  };
}
