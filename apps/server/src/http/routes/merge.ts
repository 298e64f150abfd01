// POST /api/v1/merge (openapi.yaml operation `merge`; issue #2): 2 to 20 PDFs in the repeated part
// `files[]`, joined in upload order. Each input is labelled with its position so the engine's
// messages say which file is wrong.
import type { MergeResult } from '@pdn/api-types';
import type { Middleware } from 'koa';
import type { UploadLimits } from '../../config.js';
import type { InputFile, PdfEngine } from '../../engines/types.js';
import { InvalidInputError } from '../../errors.js';
import type { Downloads } from '../../storage/index.js';
import type { PartsSpec } from '../middleware/uploads.js';
import { MERGED_NAME } from '../output-names.js';
import { sendData } from '../respond.js';
import type { AppState } from '../state.js';
import { jobOf, pageBudgetOf, uploadOf } from './job.js';

const PART = 'files[]';
const MIN_FILES = 2;
const MAX_FILES = 20;

export const mergeParts: PartsSpec = {
  summary: 'POST /api/v1/merge takes 2 to 20 PDFs in the repeated part `files[]`',
  files: [PART],
  fields: [],
};

export function mergeRoute(
  engine: PdfEngine,
  downloads: Downloads,
  uploadLimits: UploadLimits,
): Middleware<AppState> {
  return async (ctx) => {
    const upload = uploadOf(ctx);
    const files = upload.files.get(PART) ?? [];
    if (files.length < MIN_FILES || files.length > MAX_FILES) {
      throw new InvalidInputError(
        `Merge takes ${MIN_FILES} to ${MAX_FILES} PDFs in the repeated part \`${PART}\`; got ${files.length}.`,
      );
    }
    const inputs = files.map(
      (file, index): InputFile => ({
        path: file.path,
        label: file.name === '' ? `file ${index + 1}` : `file ${index + 1} ("${file.name}")`,
      }),
    );
    const output = await engine.merge(inputs, jobOf(upload), pageBudgetOf(ctx, uploadLimits));
    const download = await downloads.publish(output.path, MERGED_NAME);
    sendData<MergeResult>(ctx, {
      filename: MERGED_NAME,
      page_count: output.pageCount,
      size: output.size,
      input_count: files.length,
      download,
    });
  };
}
