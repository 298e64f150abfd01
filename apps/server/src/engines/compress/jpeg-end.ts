// Where a JPEG ends in a stream of its bytes, read chunk by chunk: at its end marker (EOI), as far as a
// decoder reads it. Bytes after that (padding, or a Flate bomb's zeros) are not the image's.
// The header's segments are walked by their lengths, since one may hold a thumbnail with its own end
// marker; from the first scan on, the first end marker is taken. Scan data never holds one (an 0xFF in
// it is followed by 0x00 or a restart marker); a table between the scans of a progressive JPEG might,
// which then ends the count early: the count errs low, never high.

/** Beyond this many bytes of header segments the JPEG is not understood (no real header is as long). */
const MAX_HEADER_BYTES = 1024 * 1024;
const END_OF_IMAGE = Buffer.from([0xff, 0xd9]);

/** Where the first scan's data starts in `header`, 'more' if it is not all here, undefined if no JPEG. */
function scanStart(header: Buffer): number | 'more' | undefined {
  if (header.length < 2) return 'more';
  if (header[0] !== 0xff || header[1] !== 0xd8) return undefined;
  let at = 2;
  for (;;) {
    if (at + 4 > header.length) return 'more';
    if (header[at] !== 0xff) return undefined;
    const code = header[at + 1] ?? 0;
    if (code === 0xff)
      at += 1; // a fill byte ahead of a marker
    else if (code === 0x01 || (code >= 0xd0 && code <= 0xd9))
      return undefined; // no scan before them
    else if (code === 0xda) return at + 2 + header.readUInt16BE(at + 2);
    else at += 2 + header.readUInt16BE(at + 2);
  }
}

export class JpegEnd {
  /** The bytes so far, until the first scan's start is known. */
  #header: Buffer | undefined = Buffer.alloc(0);
  #scanFrom = 0;
  #lastByte: number | undefined;
  #seen = 0;

  /**
   * The JPEG's length in bytes once `chunk`, the next of its bytes, holds its end; 'more' until then;
   * undefined where the bytes are not a JPEG this reads.
   */
  push(chunk: Buffer): number | 'more' | undefined {
    if (chunk.length === 0) return 'more';
    const before = this.#seen;
    this.#seen += chunk.length;
    if (this.#header !== undefined) {
      const header = Buffer.concat([this.#header, chunk]);
      const start = scanStart(header);
      if (start === undefined || (start === 'more' && header.length > MAX_HEADER_BYTES)) return undefined;
      if (start === 'more') {
        this.#header = header;
        return 'more';
      }
      this.#header = undefined;
      this.#scanFrom = start;
    }
    const lastByte = this.#lastByte;
    this.#lastByte = chunk.at(-1);
    // An end marker split between this chunk and the one before.
    if (before > this.#scanFrom && lastByte === 0xff && chunk[0] === 0xd9) return before + 1;
    const from = Math.max(0, this.#scanFrom - before);
    const at = from < chunk.length ? chunk.indexOf(END_OF_IMAGE, from) : -1;
    return at < 0 ? 'more' : before + at + END_OF_IMAGE.length;
  }
}
