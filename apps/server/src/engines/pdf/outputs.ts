// Where merge and split write their results inside the job's temp folder, and how a finished output
// is described to the caller. Shared by both engines so their outputs look the same.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PdfOutput } from '../types.js';

export function mergedPath(workDir: string): string {
  return join(workDir, 'merged.pdf');
}

/** Parts are numbered, not named by range: the same range may be asked for twice (openapi `split`). */
export function partPath(workDir: string, index: number): string {
  return join(workDir, `part-${index + 1}.pdf`);
}

/** `pageCount` must already have been checked against the file (both engines verify every output). */
export async function describeOutput(path: string, pageCount: number): Promise<PdfOutput> {
  return { path, pageCount, size: (await stat(path)).size };
}
