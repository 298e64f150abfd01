// Writes outputs so that a reader never sees half a file and an existing file is never replaced
// without --force: bytes go to a temp file in the destination folder, then move into
// place with link() (fails if the name exists) or, with --force, rename() (replaces it).
import { randomBytes } from 'node:crypto';
import { access, link, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OutputExistsError } from './errors.js';
import { STDIO } from './output-naming.js';
import type { OutputReport } from './report.js';

export type OutputBody = ReadableStream<Uint8Array> | string;

export interface WriteOptions {
  force: boolean;
  signal?: AbortSignal | undefined;
  /** Bytes written so far, for the progress line. */
  onProgress?: ((bytes: number) => void) | undefined;
}

/**
 * Checked before uploading, so an existing output costs no request; the write checks again.
 * Nothing to check for stdout (`-`) or for --no-download (no path).
 */
export async function assertCanWrite(path: string | undefined, force: boolean): Promise<void> {
  if (force || path === undefined || path === STDIO) return;
  if (await exists(path)) throw new OutputExistsError(path);
}

/** --skip-existing: the output already at `path`, if any, as the report names it. */
export async function existingOutput(path: string | undefined): Promise<OutputReport | undefined> {
  if (path === undefined || path === STDIO) return undefined;
  try {
    const found = await stat(path);
    return found.isFile() ? { kind: 'file', path, bytes: found.size } : undefined;
  } catch {
    return undefined;
  }
}

/** Writes `body` to `path` atomically and returns the number of bytes written. */
export async function writeOutput(path: string, body: OutputBody, options: WriteOptions): Promise<number> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    // Opened before the body flows: a stream that opened its file itself could still be creating it
    // when a body failing at once had the `finally` below remove it, and the temp file outlived it.
    const file = await open(temp, 'wx');
    const bytes = await pipeBody(body, file.createWriteStream(), options);
    if (options.force) await rename(temp, path);
    else await linkNoClobber(temp, path);
    return bytes;
  } finally {
    await rm(temp, { force: true });
  }
}

/** Writes `body` to an already-open stream such as stdout (`-o -`); it is not closed. */
export async function writeToStream(
  body: OutputBody,
  stream: NodeJS.WritableStream,
  options: Omit<WriteOptions, 'force'>,
): Promise<number> {
  return pipeBody(body, stream, options, false);
}

async function pipeBody(
  body: OutputBody,
  destination: NodeJS.WritableStream,
  options: Omit<WriteOptions, 'force'>,
  end = true,
): Promise<number> {
  let bytes = 0;
  const source =
    typeof body === 'string' ? Readable.from([Buffer.from(body, 'utf8')]) : Readable.fromWeb(body);
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      options.onProgress?.(bytes);
      callback(null, chunk);
    },
  });
  await pipeline(source, counter, destination, {
    end,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return bytes;
}

async function linkNoClobber(temp: string, path: string): Promise<void> {
  try {
    await link(temp, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new OutputExistsError(path);
    // File systems without hard links (some network and FAT mounts): check, then rename.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
    if (await exists(path)) throw new OutputExistsError(path);
    await rename(temp, path);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
