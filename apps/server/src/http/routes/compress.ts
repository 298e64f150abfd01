// POST /api/v1/compress (openapi.yaml operation `compress`; issue #3): one PDF in `file`, optional
// `level` defaulting to `medium`. The engine guarantees the output is never larger than the input.
import type { CompressionLevel, CompressResult } from '@pdn/api-types';
import type { Middleware } from 'koa';
import type { CompressEngine } from '../../engines/types.js';
import { InvalidInputError } from '../../errors.js';
import type { Downloads } from '../../storage/index.js';
import type { PartsSpec } from '../middleware/uploads.js';
import { compressedName } from '../output-names.js';
import { sendData } from '../respond.js';
import type { AppState } from '../state.js';
import { optionalField, singleFile } from '../upload.js';
import { inputFile, jobOf, uploadOf } from './job.js';

const LEVELS: readonly CompressionLevel[] = ['low', 'medium', 'high'];

export const compressParts: PartsSpec = {
  summary:
    'POST /api/v1/compress takes one PDF in the part `file` and optionally `level` (low, medium or high)',
  files: ['file'],
  fields: ['level'],
};

function parseLevel(raw: string | undefined): CompressionLevel {
  if (raw === undefined) return 'medium';
  const level = LEVELS.find((candidate) => candidate === raw);
  if (!level) throw new InvalidInputError(`\`level\` must be one of ${LEVELS.join(', ')}; got "${raw}".`);
  return level;
}

/** (original - compressed) / original x 100 to 2 decimals, never negative (openapi.yaml CompressResult). */
function savingsPercent(original: number, compressed: number): number {
  if (original <= 0 || compressed >= original) return 0;
  return Math.round(((original - compressed) / original) * 10_000) / 100;
}

export function compressRoute(engine: CompressEngine, downloads: Downloads): Middleware<AppState> {
  return async (ctx) => {
    const upload = uploadOf(ctx);
    const file = singleFile(upload, 'file', 'the PDF to compress');
    const level = parseLevel(optionalField(upload, 'level'));
    const output = await engine.compress(inputFile(file), level, jobOf(upload));
    const filename = compressedName(file.name);
    const download = await downloads.publish(output.path, filename);
    sendData<CompressResult>(ctx, {
      filename,
      original_size: file.size,
      compressed_size: output.size,
      savings_percent: output.method === 'original' ? 0 : savingsPercent(file.size, output.size),
      method: output.method,
      level,
      page_count: output.pageCount,
      download,
    });
  };
}
