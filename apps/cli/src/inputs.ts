// Turns command-line inputs into SDK uploads. Every path is checked before any request is made, so
// a typo costs no rate-limited call and exits 2 ("usage error (bad flags, missing files)").
import { stat } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { fromPath, toFile, type Uploadable } from '@pdn/sdk';
import { UsageError } from './errors.js';
import { STDIO } from './output-naming.js';

/** The part of stdin the checks need. */
export interface Stdin extends NodeJS.ReadableStream {
  isTTY?: boolean;
}

/** Fails with one UsageError naming every input that is missing or not a regular file. */
export async function checkInputs(inputs: readonly string[], stdin: Stdin): Promise<void> {
  const stdinCount = inputs.filter((input) => input === STDIO).length;
  if (stdinCount > 1) throw new UsageError('stdin (-) can be read only once; give - at most one time');
  // Waiting for a person to type a PDF is never what `-` meant.
  if (stdinCount === 1 && stdin.isTTY === true) {
    throw new UsageError(
      '- reads the input from stdin, which is a terminal; pipe a file in: pdn ... - < file',
    );
  }
  const problems: string[] = [];
  await Promise.all(
    inputs.map(async (input) => {
      if (input === STDIO) return;
      try {
        if (!(await stat(input)).isFile()) problems.push(`${input}: not a file`);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        problems.push(`${input}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
      }
    }),
  );
  if (problems.length > 0) throw new UsageError(problems.sort().join('\n'));
}

/**
 * Files are streamed from disk by the SDK. Stdin is read whole, once: a pipe cannot be re-read, and
 * the SDK resends the same bytes when it retries.
 */
export class UploadSource {
  #stdin: Promise<Buffer> | undefined;

  constructor(private readonly stdin: Stdin) {}

  /** `stdinName` is the file name the server sees for `-` (it names outputs after it). */
  async upload(input: string, stdinName: string): Promise<Uploadable> {
    if (input !== STDIO) return fromPath(input);
    this.#stdin ??= buffer(this.stdin);
    const bytes = await this.#stdin;
    if (bytes.length === 0) throw new UsageError('stdin (-) is empty');
    return toFile(bytes, stdinName);
  }
}
