// Where the PDF in an upload starts, and whether what comes before it may be skipped.
// ISO 32000 §7.5.2 puts `%PDF-` first; Adobe's PDF Reference 1.7 (Appendix H, note 13) lets it appear
// anywhere in the first 1024 bytes, and qpdf, pdf-lib and Ghostscript accept such files. But Ghostscript
// decides from those first bytes whether the file is PostScript (Resource/Init/pdf_main.ps, `run`: `%!`
// or `%%` first, or `%!PS` before `%PDF-`), so a PostScript program followed by a PDF ran on the server.
// Decision: only white space or binary data (a MacBinary wrapper, a byte-order mark) may come before the
// header. Text there (a PostScript program, an HTTP or mail header) is refused before any tool runs,
// and whatever the prefix, tools are handed a copy that starts at `%PDF-` (pdfFromHeader).
import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { InputFile } from '../types.js';
import { isWhiteSpace } from './pdf-characters.js';
import { emptyFile, notAPdf, textBeforeHeader } from './pdf-input-errors.js';

const HEADER = Buffer.from('%PDF-');
/** How far into the file the header may start (PDF Reference 1.7, Appendix H, note 13). */
export const HEADER_WINDOW = 1024;
/** `%!` starts every PostScript program and EPS file (PLRM 3rd ed., Appendix D.3; PostScript DSC 3.0). */
const POSTSCRIPT_MAGIC = Buffer.from('%!');
/** The DOS EPS binary header (PostScript DSC 3.0, §3.4): a PostScript section wrapped in binary. */
const DOS_EPS_MAGIC = Buffer.from([0xc5, 0xd0, 0xd3, 0xc6]);

function isText(byte: number): boolean {
  return isWhiteSpace(byte) || (byte >= 0x21 && byte <= 0x7e);
}

export type Prefix = 'none' | 'white space' | 'binary' | 'text' | 'postscript';

/** What the bytes before `%PDF-` are; `text` and `postscript` are refused. */
export function classifyPrefix(prefix: Uint8Array): Prefix {
  const bytes = Buffer.from(prefix.buffer, prefix.byteOffset, prefix.byteLength);
  if (bytes.length === 0) return 'none';
  if (bytes.includes(POSTSCRIPT_MAGIC) || bytes.includes(DOS_EPS_MAGIC)) return 'postscript';
  if (bytes.every(isWhiteSpace)) return 'white space';
  return bytes.every(isText) ? 'text' : 'binary';
}

/**
 * Returns the offset of the `%PDF-` header. Throws InvalidInputError for an empty file, a file without
 * a header in its first 1024 bytes, and text or PostScript before the header. Reads 1 KiB, runs nothing.
 */
export async function checkPdfBytes(input: InputFile): Promise<number> {
  const file = await open(input.path, 'r');
  let window: Buffer;
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(HEADER_WINDOW), 0, HEADER_WINDOW, 0);
    window = buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
  if (window.length === 0) throw emptyFile(input.label);
  const offset = window.indexOf(HEADER);
  if (offset < 0) throw notAPdf(input.label);
  const prefix = classifyPrefix(window.subarray(0, offset));
  if (prefix === 'text' || prefix === 'postscript')
    throw textBeforeHeader(input.label, prefix === 'postscript');
  return offset;
}

/**
 * A file that starts with `%PDF-`: `input.path` itself when the header is first, otherwise a copy from
 * the header on, written beside it (in the request's folder, removed with it).
 */
export async function pdfFromHeader(input: InputFile, offset: number): Promise<string> {
  if (offset === 0) return input.path;
  const copy = `${input.path}.from-header.pdf`;
  await pipeline(createReadStream(input.path, { start: offset }), createWriteStream(copy));
  return copy;
}
