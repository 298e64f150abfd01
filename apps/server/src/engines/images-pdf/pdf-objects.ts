// The few PDF objects an images-to-PDF document is made of, written straight to a file one after the
// other (PDF 32000-1 section 7.5: header, indirect objects, cross-reference table, trailer), so memory
// holds one image at a time whatever the number of images. pdf-lib builds the whole document in memory
// first: 500 photos would not fit an OCR process's memory limit.
import { type FileHandle, open } from 'node:fs/promises';

/** A direct object: a number, a token written as it is (`/DeviceRGB`, `3 0 R`, `<00ff>`), an array or a dictionary. */
export type PdfValue = number | string | readonly PdfValue[] | { readonly [key: string]: PdfValue };

/** The reference to object `number` (generation 0, the only one a new file has). */
export function ref(number: number): string {
  return `${number} 0 R`;
}

/** Bytes as a PDF hexadecimal string (section 7.3.4.3): a palette, an ICC-less lookup table. */
export function hex(bytes: Uint8Array): string {
  return `<${Buffer.from(bytes).toString('hex')}>`;
}

function number(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`a PDF number must be finite, got ${value}`);
  // Integers as they are; reals with at most 4 decimals, without an exponent (section 7.3.3).
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(4)));
}

export function serialize(value: PdfValue): string {
  if (typeof value === 'number') return number(value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.map(serialize).join(' ')}]`;
  const entries = Object.entries(value as Record<string, PdfValue>);
  return `<<${entries.map(([key, entry]) => `/${key} ${serialize(entry)}`).join(' ')}>>`;
}

/**
 * Indirect objects appended to a document, numbered by the caller, each one's offset recorded for the
 * cross-reference table.
 */
export class PdfObjectWriter {
  readonly offsets = new Map<number, number>();
  #position: number;

  private constructor(
    private readonly file: FileHandle,
    base: number,
  ) {
    this.#position = base;
  }

  /** A writer appending to the document at `path`, `base` bytes long. */
  static async append(path: string, base: number): Promise<PdfObjectWriter> {
    return new PdfObjectWriter(await open(path, 'a'), base);
  }

  get position(): number {
    return this.#position;
  }

  async raw(bytes: Uint8Array | string): Promise<void> {
    const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
    await this.file.write(buffer);
    this.#position += buffer.byteLength;
  }

  async object(num: number, value: PdfValue): Promise<void> {
    this.offsets.set(num, this.#position);
    await this.raw(`${num} 0 obj\n${serialize(value)}\nendobj\n`);
  }

  /** A stream object: `dict` gains its `Length`. */
  async stream(num: number, dict: { readonly [key: string]: PdfValue }, data: Uint8Array): Promise<void> {
    this.offsets.set(num, this.#position);
    await this.raw(`${num} 0 obj\n${serialize({ ...dict, Length: data.byteLength })}\nstream\n`);
    await this.raw(data);
    await this.raw('\nendstream\nendobj\n');
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}

/** The cross-reference table and trailer for objects 1..count-1 at `offsets` (section 7.5.4). */
export function xrefAndTrailer(
  offsets: ReadonlyMap<number, number>,
  count: number,
  root: number,
  at: number,
): string {
  const lines = ['xref', `0 ${count}`, '0000000000 65535 f'];
  for (let num = 1; num < count; num += 1) {
    const offset = offsets.get(num);
    if (offset === undefined) throw new Error(`object ${num} was never written`);
    lines.push(`${String(offset).padStart(10, '0')} 00000 n`);
  }
  // Each entry is exactly 20 bytes: 18 characters and a two-character end of line (section 7.5.4).
  return `${lines.slice(0, 2).join('\n')}\n${lines
    .slice(2)
    .map((line) => `${line} \n`)
    .join('')}trailer\n${serialize({ Size: count, Root: ref(root) })}\nstartxref\n${at}\n%%EOF\n`;
}
