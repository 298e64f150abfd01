// POST /api/v1/split (openapi.yaml operation `split`; issue #2): one PDF in `file` and `ranges`
// (operations/split.ts does the work; engines/page-ranges.ts checks the ranges).
import type { Middleware } from 'koa';
import type { UploadLimits } from '../../config.js';
import type { JobRunner } from '../../jobs/runner.js';
import { checkRangesLength, type SplitParams } from '../../operations/index.js';
import type { PartsSpec } from '../middleware/uploads.js';
import type { AppState } from '../state.js';
import { requiredField, singleFile } from '../upload.js';
import { submitOrRun } from './submit.js';
import { pageBudgetOf, uploadOf } from './upload-inputs.js';

export const splitParts: PartsSpec = {
  summary:
    'POST /api/v1/split takes one PDF in the part `file` and page ranges in the field `ranges` (e.g. "1-3,4")',
  files: ['file'],
  fields: ['ranges'],
};

export function splitRoute(jobs: JobRunner, uploadLimits: UploadLimits): Middleware<AppState> {
  return async (ctx) => {
    const upload = uploadOf(ctx);
    const file = singleFile(upload, 'file', 'the PDF to split');
    const ranges = requiredField(upload, 'ranges', 'comma-separated page ranges such as "1-3,4"');
    checkRangesLength(ranges);
    const params: SplitParams = { ranges, budget: pageBudgetOf(ctx, uploadLimits) };
    await submitOrRun(ctx, jobs, { operation: 'split', files: [file], params });
  };
}
