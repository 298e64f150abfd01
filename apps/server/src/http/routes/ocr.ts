// POST /api/v1/ocr (openapi.yaml operation `ocr`): one image in `image`, optional `language` and
// `detail` (operations/ocr.ts does the work; the engine checks the image and the codes).
import { DEFAULT_LANGUAGE, type OcrParams, parseDetail } from '../../operations/index.js';
import { optionalField, singleFile } from '../upload.js';
import type { OperationRoute } from './operation-route.js';

export const ocrRoute: OperationRoute = {
  operation: 'ocr',
  parts: {
    summary:
      'POST /api/v1/ocr takes one image (PNG, JPEG, TIFF, WebP or BMP) in the part `image` and optionally `language` (see GET /api/v1/languages) and `detail` (text or words)',
    files: ['image'],
    fields: ['language', 'detail'],
  },
  request(upload) {
    const image = singleFile(upload, 'image', 'the image to read');
    const params: OcrParams = {
      language: optionalField(upload, 'language') ?? DEFAULT_LANGUAGE,
      detail: parseDetail(optionalField(upload, 'detail')),
    };
    return { files: [image], params };
  },
};
