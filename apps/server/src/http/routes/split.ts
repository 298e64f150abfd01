// POST /api/v1/split (openapi.yaml operation `split`): one PDF in `file` and `ranges`
// (operations/split.ts does the work; engines/page-ranges.ts checks the ranges).
import type { UploadLimits } from '../../config.js';
import { checkRangesLength, type SplitParams } from '../../operations/index.js';
import { requiredField, singleFile } from '../upload.js';
import type { OperationRoute } from './operation-route.js';
import { pageBudgetOf } from './principal.js';

export function splitRoute(uploadLimits: UploadLimits): OperationRoute {
  return {
    operation: 'split',
    parts: {
      summary:
        'POST /api/v1/split takes one PDF in the part `file` and page ranges in the field `ranges` (e.g. "1-3,4")',
      files: ['file'],
      fields: ['ranges'],
    },
    request(upload, principal) {
      const file = singleFile(upload, 'file', 'the PDF to split');
      const ranges = requiredField(upload, 'ranges', 'comma-separated page ranges such as "1-3,4"');
      checkRangesLength(ranges);
      const params: SplitParams = {
        ranges,
        budget: pageBudgetOf(principal, uploadLimits, 'pagesPerRequest'),
      };
      return { files: [file], params };
    },
  };
}
