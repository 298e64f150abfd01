// POST /api/v1/merge (openapi.yaml operation `merge`): 2 to 20 PDFs in the repeated part `files[]`,
// joined in upload order (operations/merge.ts does the work).
import type { UploadLimits } from '../../config.js';
import { checkMergeCount, MERGE_PART, type MergeParams } from '../../operations/index.js';
import type { OperationRoute } from './operation-route.js';
import { pageBudgetOf } from './principal.js';

export function mergeRoute(uploadLimits: UploadLimits): OperationRoute {
  return {
    operation: 'merge',
    parts: {
      summary: 'POST /api/v1/merge takes 2 to 20 PDFs in the repeated part `files[]`',
      files: [MERGE_PART],
      fields: [],
    },
    request(upload, principal) {
      const files = upload.files.get(MERGE_PART) ?? [];
      checkMergeCount(files.length);
      const params: MergeParams = { budget: pageBudgetOf(principal, uploadLimits, 'pagesPerRequest') };
      return { files, params };
    },
  };
}
