// POST /api/v1/ocr/pdf (openapi.yaml operation `ocrPdf`; issue #17): one PDF or image in `file`, the
// options as form fields (operations/ocr-pdf.ts does the work).
import type { Middleware } from 'koa';
import type { JobRunner } from '../../jobs/runner.js';
import {
  DEFAULT_LANGUAGE,
  OCR_PDF_MODES,
  OCR_PDF_OUTPUTS,
  type OcrPdfParams,
  parseChoice,
} from '../../operations/index.js';
import type { PartsSpec } from '../middleware/uploads.js';
import type { AppState } from '../state.js';
import { optionalField, singleFile } from '../upload.js';
import { submitOrRun } from './submit.js';
import { uploadOf } from './upload-inputs.js';

export const ocrPdfParts: PartsSpec = {
  summary:
    'POST /api/v1/ocr/pdf takes one PDF or image in the part `file` and optionally `language`, `mode`, `deskew`, `rotate`, `pages` and `output`',
  files: ['file'],
  fields: ['language', 'mode', 'deskew', 'rotate', 'pages', 'output'],
};

const BOOLEANS = ['true', 'false'] as const;

export function ocrPdfRoute(jobs: JobRunner): Middleware<AppState> {
  return async (ctx) => {
    const upload = uploadOf(ctx);
    const file = singleFile(upload, 'file', 'the PDF or image to make searchable');
    const field = (name: string) => optionalField(upload, name);
    const params: OcrPdfParams = {
      language: field('language') ?? DEFAULT_LANGUAGE,
      mode: parseChoice('mode', field('mode'), OCR_PDF_MODES, 'skip'),
      deskew: parseChoice('deskew', field('deskew'), BOOLEANS, 'false') === 'true',
      rotate: parseChoice('rotate', field('rotate'), BOOLEANS, 'false') === 'true',
      pages: field('pages'),
      output: parseChoice('output', field('output'), OCR_PDF_OUTPUTS, 'pdf'),
    };
    await submitOrRun(ctx, jobs, { operation: 'ocr_pdf', files: [file], params });
  };
}
