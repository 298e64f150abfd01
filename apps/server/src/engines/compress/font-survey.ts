// Does a PDF use composite (Type0) fonts? That decides which Ghostscript 10.0/10.01 PDF interpreter
// compresses it fastest (presets.ts hasLegacyInterpreter). qpdf writes its JSON view of the objects
// without stream data (cheap: 77 ms for 60 pages), and we look for the name `/Type0`, which PDF uses for
// nothing but composite fonts (ISO 32000-2 §9.7).
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { InternalError } from '../../errors.js';
import { type QpdfRun, qpdfSucceeded, runQpdf } from '../pdf/run-qpdf.js';

const TYPE0_NAME = Buffer.from('"/Type0"');

/** Scans `path` for `needle`, chunk by chunk, keeping enough of each chunk to catch a needle split across two. */
async function fileContains(path: string, needle: Buffer): Promise<boolean> {
  let carry = Buffer.alloc(0);
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    const window = Buffer.concat([carry, chunk]);
    if (window.includes(needle)) return true;
    carry = window.subarray(Math.max(0, window.length - needle.length + 1));
  }
  return false;
}

export async function hasCompositeFonts(inputPath: string, run: QpdfRun): Promise<boolean> {
  const jsonPath = resolve(run.cwd, 'objects.json');
  const args = ['--json-output', '--json-stream-data=none', resolve(inputPath), jsonPath];
  const result = await runQpdf(args, run);
  // The input already passed qpdf's own inspection, so a failure here is the tool's, not the file's.
  if (!qpdfSucceeded(result)) {
    throw new InternalError(`qpdf JSON view exited with ${result.exitCode}: ${result.stderr.trim()}`);
  }
  return fileContains(jsonPath, TYPE0_NAME);
}
