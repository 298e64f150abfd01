// POST /api/v1/ocr (openapi.yaml operation `ocr`; issue #3): one image in `image`, optional
// `language` (operations/ocr.ts does the work; the engine checks the image and the codes).
import type { Middleware } from 'koa';
import type { JobRunner } from '../../jobs/runner.js';
import { DEFAULT_LANGUAGE, type OcrParams, parseDetail } from '../../operations/index.js';
import type { PartsSpec } from '../middleware/uploads.js';
import type { AppState } from '../state.js';
import { optionalField, singleFile } from '../upload.js';
import { submitOrRun } from './submit.js';
import { uploadOf } from './upload-inputs.js';

export const ocrParts: PartsSpec = {
  summary:
    'POST /api/v1/ocr takes one image (PNG, JPEG, TIFF, WebP or BMP) in the part `image` and optionally `language` (see GET /api/v1/languages) and `detail` (text or words)',
  files: ['image'],
  fields: ['language', 'detail'],
};

export function ocrRoute(jobs: JobRunner): Middleware<AppState> {
  return async (ctx) => {
    const upload = uploadOf(ctx);
    const image = singleFile(upload, 'image', 'the image to read');
    const params: OcrParams = {
      language: optionalField(upload, 'language') ?? DEFAULT_LANGUAGE,
      detail: parseDetail(optionalField(upload, 'detail')),
    };
    await submitOrRun(ctx, jobs, { operation: 'ocr', files: [image], params });
  };
}
