// Compress (openapi.yaml operation `compress`): one PDF at a `level`, `medium` by default.
// The engine guarantees the output is never larger than the input.
import type { CompressionLevel, CompressResult } from '@pdn/api-types';
import type { CompressEngine, PageBudget } from '../engines/types.js';
import { compressedName } from './output-names.js';
import { labelled, type Operation, onlyInput, parseChoice } from './types.js';

const LEVELS: readonly CompressionLevel[] = ['low', 'medium', 'high'];

export interface CompressParams {
  level: CompressionLevel;
  /** The pages the caller's plan lets one compression read; absent on jobs stored before there was one. */
  budget?: PageBudget | undefined;
}

/** The `level` field as sent (or absent), checked. */
export function parseLevel(raw: string | undefined): CompressionLevel {
  return parseChoice('level', raw, LEVELS, 'medium');
}

/** (original - compressed) / original x 100 to 2 decimals, never negative (openapi.yaml CompressResult). */
function savingsPercent(original: number, compressed: number): number {
  if (original <= 0 || compressed >= original) return 0;
  return Math.round(((original - compressed) / original) * 10_000) / 100;
}

export function compressOperation(engine: CompressEngine): Operation<CompressParams, CompressResult> {
  return {
    name: 'compress',
    async run(inputs, { level, budget }, work, outputs) {
      const file = onlyInput(inputs);
      const output = await engine.compress(labelled(file), level, { ...work, pagesRead: budget });
      const filename = compressedName(file.name);
      return {
        filename,
        original_size: file.size,
        compressed_size: output.size,
        savings_percent: output.method === 'original' ? 0 : savingsPercent(file.size, output.size),
        method: output.method,
        level,
        page_count: output.pageCount,
        download: await outputs.publish(output.path, filename, output.size),
      };
    },
    resign: (result, fresh) => ({ ...result, download: fresh(result.download) }),
  };
}
