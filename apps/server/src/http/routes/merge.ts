// POST /api/v1/merge (openapi.yaml operation `merge`; issue #2): 2 to 20 PDFs in the repeated part
// `files[]`, joined in upload order (operations/merge.ts does the work).
import type { Middleware } from 'koa';
import type { UploadLimits } from '../../config.js';
import type { JobRunner } from '../../jobs/runner.js';
import { checkMergeCount, MERGE_PART, type MergeParams } from '../../operations/index.js';
import type { PartsSpec } from '../middleware/uploads.js';
import type { AppState } from '../state.js';
import { submitOrRun } from './submit.js';
import { pageBudgetOf, uploadOf } from './upload-inputs.js';

export const mergeParts: PartsSpec = {
  summary: 'POST /api/v1/merge takes 2 to 20 PDFs in the repeated part `files[]`',
  files: [MERGE_PART],
  fields: [],
};

export function mergeRoute(jobs: JobRunner, uploadLimits: UploadLimits): Middleware<AppState> {
  return async (ctx) => {
    const files = uploadOf(ctx).files.get(MERGE_PART) ?? [];
    checkMergeCount(files.length);
    const params: MergeParams = { budget: pageBudgetOf(ctx, uploadLimits) };
    await submitOrRun(ctx, jobs, { operation: 'merge', files, params });
  };
}
