// POST /api/v1/split (openapi.yaml operation `split`; issue #2): one PDF in `file` and `ranges`. The
// ranges are parsed and checked against the page count by the engine (engines/page-ranges.ts), the
// one place that rule lives; each part gets its own signed download.
import type { SplitPart, SplitResult } from '@pdn/api-types';
import type { Middleware } from 'koa';
import type { UploadLimits } from '../../config.js';
import type { PdfEngine } from '../../engines/types.js';
import { InvalidInputError } from '../../errors.js';
import type { Downloads } from '../../storage/index.js';
import type { PartsSpec } from '../middleware/uploads.js';
import { partName } from '../output-names.js';
import { sendData } from '../respond.js';
import type { AppState } from '../state.js';
import { requiredField, singleFile } from '../upload.js';
import { inputFile, jobOf, pageBudgetOf, uploadOf } from './job.js';

/** openapi.yaml: `ranges` maxLength. */
const MAX_RANGES_LENGTH = 2000;

export const splitParts: PartsSpec = {
  summary:
    'POST /api/v1/split takes one PDF in the part `file` and page ranges in the field `ranges` (e.g. "1-3,4")',
  files: ['file'],
  fields: ['ranges'],
};

export function splitRoute(
  engine: PdfEngine,
  downloads: Downloads,
  uploadLimits: UploadLimits,
): Middleware<AppState> {
  return async (ctx) => {
    const upload = uploadOf(ctx);
    const file = singleFile(upload, 'file', 'the PDF to split');
    const ranges = requiredField(upload, 'ranges', 'comma-separated page ranges such as "1-3,4"');
    if (ranges.length > MAX_RANGES_LENGTH) {
      throw new InvalidInputError(
        `\`ranges\` is ${ranges.length} characters long; at most ${MAX_RANGES_LENGTH} are accepted.`,
      );
    }
    const budget = pageBudgetOf(ctx, uploadLimits);
    const outputs = await engine.split(inputFile(file), ranges, jobOf(upload), budget);
    const parts: SplitPart[] = [];
    for (const output of outputs) {
      const filename = partName(file.name, output.pages);
      parts.push({
        pages: output.pages,
        page_count: output.pageCount,
        size: output.size,
        filename,
        download: await downloads.publish(output.path, filename),
      });
    }
    sendData<SplitResult>(ctx, { parts });
  };
}
