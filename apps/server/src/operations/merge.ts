// Merge (openapi.yaml operation `merge`): 2 to 20 PDFs joined in upload order. Each input is
// labelled with its position so the engine's messages say which file is wrong.
import type { MergeResult } from '@pdn/api-types';
import type { InputFile, PageBudget, PdfEngine } from '../engines/types.js';
import { InvalidInputError } from '../errors.js';
import { MERGED_NAME } from './output-names.js';
import type { Operation, OperationInput } from './types.js';

export const MERGE_PART = 'files[]';
const MIN_FILES = 2;
const MAX_FILES = 20;

export interface MergeParams {
  budget: PageBudget;
}

/** Refuses too few or too many files before anything is stored. */
export function checkMergeCount(count: number): void {
  if (count < MIN_FILES || count > MAX_FILES) {
    throw new InvalidInputError(
      `Merge takes ${MIN_FILES} to ${MAX_FILES} PDFs in the repeated part \`${MERGE_PART}\`; got ${count}.`,
    );
  }
}

function labelledAt(input: OperationInput, index: number): InputFile {
  return {
    path: input.path,
    label: input.name === '' ? `file ${index + 1}` : `file ${index + 1} ("${input.name}")`,
  };
}

export function mergeOperation(engine: PdfEngine): Operation<MergeParams, MergeResult> {
  return {
    name: 'merge',
    async run(inputs, { budget }, work, outputs) {
      const output = await engine.merge(inputs.map(labelledAt), work, budget);
      return {
        filename: MERGED_NAME,
        page_count: output.pageCount,
        size: output.size,
        input_count: inputs.length,
        download: await outputs.publish(output.path, MERGED_NAME, output.size),
      };
    },
    resign: (result, fresh) => ({ ...result, download: fresh(result.download) }),
  };
}
