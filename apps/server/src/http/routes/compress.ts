// POST /api/v1/compress (openapi.yaml operation `compress`; issue #3): one PDF in `file`, optional
// `level` (operations/compress.ts does the work).
import type { Middleware } from 'koa';
import type { JobRunner } from '../../jobs/runner.js';
import { type CompressParams, parseLevel } from '../../operations/index.js';
import type { PartsSpec } from '../middleware/uploads.js';
import type { AppState } from '../state.js';
import { optionalField, singleFile } from '../upload.js';
import { submitOrRun } from './submit.js';
import { uploadOf } from './upload-inputs.js';

export const compressParts: PartsSpec = {
  summary:
    'POST /api/v1/compress takes one PDF in the part `file` and optionally `level` (low, medium or high)',
  files: ['file'],
  fields: ['level'],
};

export function compressRoute(jobs: JobRunner): Middleware<AppState> {
  return async (ctx) => {
    const upload = uploadOf(ctx);
    const file = singleFile(upload, 'file', 'the PDF to compress');
    const params: CompressParams = { level: parseLevel(optionalField(upload, 'level')) };
    await submitOrRun(ctx, jobs, { operation: 'compress', files: [file], params });
  };
}
