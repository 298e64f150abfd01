// POST /api/v1/ocr/pdf (openapi.yaml operation `ocrPdf`): one PDF or image in `file`, the options as
// form fields (operations/ocr-pdf.ts does the work).

import type { UploadLimits } from '../../config.js';
import {
  DEFAULT_LANGUAGE,
  OCR_PDF_MODES,
  OCR_PDF_OUTPUTS,
  type OcrPdfParams,
  parseChoice,
} from '../../operations/index.js';
import { optionalField, singleFile } from '../upload.js';
import type { OperationRoute } from './operation-route.js';
import { pageBudgetOf } from './principal.js';

const BOOLEANS = ['true', 'false'] as const;

export const ocrPdfRoute = (uploadLimits: UploadLimits): OperationRoute => ({
  operation: 'ocr_pdf',
  parts: {
    summary:
      'POST /api/v1/ocr/pdf takes one PDF or image in the part `file` and optionally `language`, `mode`, `deskew`, `rotate`, `pages` and `output`',
    files: ['file'],
    fields: ['language', 'mode', 'deskew', 'rotate', 'pages', 'output'],
  },
  request(upload, principal) {
    const file = singleFile(upload, 'file', 'the PDF or image to make searchable');
    const field = (name: string) => optionalField(upload, name);
    const params: OcrPdfParams = {
      language: field('language') ?? DEFAULT_LANGUAGE,
      mode: parseChoice('mode', field('mode'), OCR_PDF_MODES, 'skip'),
      deskew: parseChoice('deskew', field('deskew'), BOOLEANS, 'false') === 'true',
      rotate: parseChoice('rotate', field('rotate'), BOOLEANS, 'false') === 'true',
      pages: field('pages'),
      output: parseChoice('output', field('output'), OCR_PDF_OUTPUTS, 'pdf'),
      budget: pageBudgetOf(principal, uploadLimits, 'ocrPages'),
    };
    return { files: [file], params };
  },
});
