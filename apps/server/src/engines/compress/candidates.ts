// "Never hand back a larger file" (issue #3): every method a level allows produces a candidate, the
// smallest one strictly smaller than the input wins, and when none is, the input itself is the answer
// (method `original`, so savings are 0, never negative).
import { constants } from 'node:fs';
import { copyFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CompressMethod } from '../types.js';

export interface Candidate {
  path: string;
  method: Exclude<CompressMethod, 'original'>;
  size: number;
}

export interface Choice {
  path: string;
  method: CompressMethod;
  size: number;
}

export async function candidate(path: string, method: Candidate['method']): Promise<Candidate> {
  return { path, method, size: (await stat(path)).size };
}

/** The smallest candidate that beats `inputSize`; ties go to the earlier candidate (fewer tools). */
export function smallest(inputSize: number, candidates: readonly Candidate[]): Candidate | undefined {
  let best: Candidate | undefined;
  for (const c of candidates) {
    if (c.size < (best?.size ?? inputSize)) best = c;
  }
  return best;
}

/** The input, copied into the job's folder like every other output so the caller owns one kind of file. */
export async function keepOriginal(inputPath: string, workDir: string, inputSize: number): Promise<Choice> {
  const path = join(workDir, 'original.pdf');
  // A copy-on-write clone where the file system offers one: uploads reach 1 GiB.
  await copyFile(inputPath, path, constants.COPYFILE_FICLONE);
  return { path, method: 'original', size: inputSize };
}
