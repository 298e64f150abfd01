// POST /api/v1/compress (openapi.yaml operation `compress`): one PDF in `file`, optional `level`
// (operations/compress.ts does the work).
import type { UploadLimits } from '../../config.js';
import { type CompressParams, parseLevel } from '../../operations/index.js';
import { optionalField, singleFile } from '../upload.js';
import type { OperationRoute } from './operation-route.js';
import { pageBudgetOf } from './principal.js';

export const compressRoute = (uploadLimits: UploadLimits): OperationRoute => ({
  operation: 'compress',
  parts: {
    summary:
      'POST /api/v1/compress takes one PDF in the part `file` and optionally `level` (low, medium or high)',
    files: ['file'],
    fields: ['level'],
  },
  request(upload, principal) {
    const file = singleFile(upload, 'file', 'the PDF to compress');
    const params: CompressParams = {
      level: parseLevel(optionalField(upload, 'level')),
      budget: pageBudgetOf(principal, uploadLimits, 'compressPages'),
    };
    return { files: [file], params };
  },
});
