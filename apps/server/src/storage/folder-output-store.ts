// The embedded OutputStore (output-store.ts): files in <dataDir>/outputs. Each output is
// `<id>.pdf` plus `<id>.json` (its filename, size and expiry): the id is all a URL carries, never a
// path or a name. Metadata is written before the PDF is moved in, so a crash between the two leaves
// metadata that the sweeper removes, never a PDF nobody will delete.
//
// A synchronous call stores an output and its download opens it a moment later, each on the way to an
// answer. Its metadata (about a hundred bytes) is written and read at once, synchronously, in the page
// cache, as are the file's mode, its move into the store and its opening: each asynchronous step (open,
// write, close, chmod, rename) waits for a libuv thread and then for the loop, 0.5 ms at the median and
// 3.5 ms at the 90th percentile on a loaded machine, against tens of microseconds done at once. Reading
// the file's bytes stays asynchronous, as does the sweep, which reads every output's metadata.
import { chmodSync, createReadStream, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { OUTPUT_ID_PATTERN } from './output-id.js';
import type { OpenedOutput, OutputMeta, OutputStore } from './output-store.js';

/**
 * What one read of a download takes from the file. Node's 64 KiB default made a merge's 2.8 MB output
 * 44 thread-pool reads and 44 socket writes: 24 ms to a client in another process, 15 ms in reads of
 * 1 MiB (the merge bench, which counts the download). A download holds at most this in memory.
 */
const READ_BYTES = 1024 * 1024;

/**
 * The stream of an output of `size` bytes. Each read takes a fresh buffer of the stream's read size
 * from outside the JavaScript heap, and a small output read in 1 MiB had two (its bytes, then the end of
 * the file): 2 MiB a download, which set the collector running so often that it took a quarter of the
 * server's time while 14 KB PDFs were downloaded one after another (7.6 ms of CPU a download, 3.1 ms
 * reading no more than the file holds). Stopping at the size the answer's Content-Length says also
 * spares the read that finds the end.
 */
function streamOf(fd: number, size: number): Readable {
  if (size === 0) return createReadStream('', { fd });
  return createReadStream('', { fd, highWaterMark: Math.min(READ_BYTES, size), end: size - 1 });
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/** `path`'s text, or undefined when there is no such file. */
async function textUnlessMissing(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** The metadata `text` holds; undefined when it is torn (a crash while it was written) or not ours. */
function parseMeta(id: string, text: string): OutputMeta | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<OutputMeta>;
    if (typeof parsed.filename !== 'string' || typeof parsed.size !== 'number') return undefined;
    if (typeof parsed.expiresAt !== 'number') return undefined;
    return { id, filename: parsed.filename, size: parsed.size, expiresAt: parsed.expiresAt };
  } catch {
    return undefined;
  }
}

export class FolderOutputStore implements OutputStore {
  private constructor(private readonly dir: string) {}

  static async open(dataDir: string): Promise<FolderOutputStore> {
    const dir = join(dataDir, 'outputs');
    // Only the server's user may read the outputs (QA: the folder was 0755, every PDF 0644).
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // A folder made by an earlier version may still be 0755.
    await chmod(dir, 0o700);
    return new FolderOutputStore(dir);
  }

  /** Moves `sourcePath` (a file in a work folder on the same disk) into the store. */
  async put(id: string, sourcePath: string, given: { filename: string; expiresAt: number; size?: number }) {
    if (!OUTPUT_ID_PATTERN.test(id)) throw new Error(`'${id}' is not an output key`);
    const size = given.size ?? (await stat(sourcePath)).size;
    const meta: OutputMeta = { id, filename: given.filename, size, expiresAt: given.expiresAt };
    const metaPath = this.metaPath(id);
    writeFileSync(metaPath, JSON.stringify(meta), { mode: 0o600 });
    try {
      // Tools write their outputs under the process umask; tighten before the file enters the store.
      chmodSync(sourcePath, 0o600);
      renameSync(sourcePath, join(this.dir, `${id}.pdf`));
    } catch (error) {
      await rm(metaPath, { force: true });
      throw error;
    }
    return meta;
  }

  async open(id: string): Promise<OpenedOutput | undefined> {
    if (!OUTPUT_ID_PATTERN.test(id)) return undefined;
    let text: string;
    try {
      text = readFileSync(this.metaPath(id), 'utf8');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    const meta = parseMeta(id, text);
    if (!meta) return undefined;
    try {
      // Opened before it is streamed, so a sweep in between cannot pull the file away.
      const fd = openSync(join(this.dir, `${id}.pdf`), 'r');
      return { meta, body: streamOf(fd, meta.size) };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async sweep(now: number): Promise<number> {
    let removed = 0;
    for (const entry of await readdir(this.dir)) {
      const id = entry.endsWith('.json') ? entry.slice(0, -'.json'.length) : undefined;
      if (id === undefined || !OUTPUT_ID_PATTERN.test(id)) continue;
      const text = await textUnlessMissing(this.metaPath(id));
      const meta = text === undefined ? undefined : parseMeta(id, text);
      // Unreadable metadata (a torn write) counts as expired: nothing could ever serve that output.
      if (meta && meta.expiresAt > now) continue;
      await rm(join(this.dir, `${id}.pdf`), { force: true });
      await rm(join(this.dir, entry), { force: true });
      removed += 1;
    }
    return removed;
  }

  private metaPath(id: string): string {
    return join(this.dir, `${id}.json`);
  }
}
