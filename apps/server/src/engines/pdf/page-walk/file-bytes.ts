// A file's bytes for one synchronous use, read into a buffer kept for the next file instead of a new
// one each time. V8 counts the memory of Buffers made since its last full GC toward the old generation's
// limit: a merge of 20 x 50 pages read 20 inputs and its output whole for their walks (5.6 MB of its
// 11 MB of Buffers) and paid a full GC of 5 to 30 ms per merge (as the merge bench measured).
import { open } from 'node:fs/promises';

/** Buffers are made at least this big, so files of a few pages share one. */
const MIN_BUFFER_BYTES = 1024 * 1024;
/** Bigger buffers are not kept: such files are rare, and their walk costs more than the GC anyway. */
const MAX_KEPT_BYTES = 4 * 1024 * 1024;
/**
 * A merge's walks read the next input while one is walked (pdf-inspect.ts), then its output: two kept
 * buffers serve them all when the bigger ones are kept. A few requests at once share these.
 */
const MAX_KEPT_BUFFERS = 2;

const kept: Buffer[] = [];

/** The index in `buffers` of the smallest one `fits` accepts, or -1. */
function smallest(buffers: readonly Buffer[], fits: (buffer: Buffer) => boolean): number {
  let found = -1;
  for (const [index, buffer] of buffers.entries()) {
    if (fits(buffer) && (found < 0 || buffer.length < (buffers[found] as Buffer).length)) found = index;
  }
  return found;
}

function borrow(size: number): Buffer {
  // The smallest that fits, so that a small input leaves the big buffer to the output.
  const fitting = smallest(kept, (buffer) => buffer.length >= size);
  if (fitting >= 0) return kept.splice(fitting, 1)[0] as Buffer;
  let length = MIN_BUFFER_BYTES;
  while (length < size) length *= 2;
  return Buffer.allocUnsafeSlow(length);
}

function giveBack(buffer: Buffer): void {
  if (buffer.length > MAX_KEPT_BYTES) return;
  if (kept.length < MAX_KEPT_BUFFERS) {
    kept.push(buffer);
    return;
  }
  // A bigger buffer serves every file a smaller one would: it replaces the smallest.
  const replaced = smallest(kept, () => true);
  if ((kept[replaced] as Buffer).length < buffer.length) kept[replaced] = buffer;
}

/**
 * `use(bytes)` over the file at `path`, or undefined without reading it when it holds more than
 * `maxBytes`. `bytes` is valid only during the call: `use` must not keep it, nor any view of it.
 */
export async function withFileBytes<T>(
  path: string,
  maxBytes: number,
  use: (bytes: Buffer) => T,
): Promise<T | undefined> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    if (size > maxBytes) return undefined;
    const buffer = borrow(size);
    try {
      let filled = 0;
      while (filled < size) {
        const { bytesRead } = await file.read(buffer, filled, size - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return use(buffer.subarray(0, filled));
    } finally {
      giveBack(buffer);
    }
  } finally {
    await file.close();
  }
}
