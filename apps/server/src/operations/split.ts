// Split (openapi.yaml operation `split`): one PDF and `ranges`. The ranges are parsed and
// checked against the page count by the engine (engines/page-ranges.ts), the one place that rule
// lives; each part gets its own download.
import type { SplitPart, SplitResult } from '@pdn/api-types';
import type { PageBudget, PdfEngine } from '../engines/types.js';
import { InvalidInputError } from '../errors.js';
import { partName } from './output-names.js';
import { labelled, type Operation, onlyInput } from './types.js';

/** openapi.yaml: `ranges` maxLength. */
const MAX_RANGES_LENGTH = 2000;

export interface SplitParams {
  ranges: string;
  budget: PageBudget;
}

/** Refuses a `ranges` field too long to be worth parsing, before anything is stored. */
export function checkRangesLength(ranges: string): void {
  if (ranges.length > MAX_RANGES_LENGTH) {
    throw new InvalidInputError(
      `\`ranges\` is ${ranges.length} characters long; at most ${MAX_RANGES_LENGTH} are accepted.`,
    );
  }
}

export function splitOperation(engine: PdfEngine): Operation<SplitParams, SplitResult> {
  return {
    name: 'split',
    async run(inputs, { ranges, budget }, work, outputs) {
      const file = onlyInput(inputs);
      const parts: SplitPart[] = [];
      for (const output of await engine.split(labelled(file), ranges, work, budget)) {
        const filename = partName(file.name, output.pages);
        parts.push({
          pages: output.pages,
          page_count: output.pageCount,
          size: output.size,
          filename,
          download: await outputs.publish(output.path, filename, output.size),
        });
      }
      return { parts };
    },
    resign: (result, fresh) => ({
      parts: result.parts.map((part) => ({ ...part, download: fresh(part.download) })),
    }),
  };
}
