// "Never hand back a larger file": a candidate is only worth returning when it is strictly smaller than the
// input (and proven sound: prove-candidate.ts); when none is, the input itself is the answer (method
// `original`, so savings are 0, never negative), from its `%PDF-` header on like everything the tools read.
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

/** Only a strictly smaller file is worth returning instead of the input. */
export function beatsInput(c: Candidate, inputSize: number): boolean {
  return c.size < inputSize;
}

/**
 * The input, copied into the job's folder like every other output so the caller owns one kind of file.
 * `pdfPath` is the input from its `%PDF-` header on (pdf-header.ts pdfFromHeader): what came before
 * it, a MacBinary wrapper or white space, is no part of the PDF, and a download starts at `%PDF-`
 * (found by the fuzzer: a header after three spaces came back with the spaces).
 */
export async function keepOriginal(pdfPath: string, workDir: string): Promise<Choice> {
  const path = join(workDir, 'original.pdf');
  // A copy-on-write clone where the file system offers one: uploads reach 1 GiB.
  await copyFile(pdfPath, path, constants.COPYFILE_FICLONE);
  return { path, method: 'original', size: (await stat(path)).size };
}
