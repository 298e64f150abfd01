// A stream's bytes (ISO 32000-2 §7.3.8) and their decoding, for the only streams a page-tree walk opens:
// cross-reference streams and object streams. Flate with or without a PNG predictor is what writers
// use for them (qpdf, pdf-lib, Acrobat); any other filter is a Doubt.
import { inflateSync } from 'node:zlib';
import {
  Doubt,
  integerOf,
  isDict,
  nameOf,
  type PdfDict,
  type PdfReader,
  type PdfValue,
} from './pdf-syntax.js';
import type { WalkBudget } from './walk-budget.js';

/**
 * The raw bytes of the stream whose dictionary the reader just read: `stream`, one end of line (CRLF or
 * LF, §7.3.8.1), exactly /Length bytes, then `endstream`. `length` is the dictionary's /Length, resolved.
 */
export function streamBytes(reader: PdfReader, length: PdfValue | undefined): Buffer {
  const size = integerOf(length);
  if (size === undefined || size < 0) throw new Doubt('stream without a usable /Length');
  reader.expectWord('stream');
  const { bytes } = reader;
  if (bytes[reader.pos] === 0x0d) reader.pos++;
  if (bytes[reader.pos] !== 0x0a) throw new Doubt('stream keyword not followed by an end of line');
  const start = reader.pos + 1;
  const end = start + size;
  if (end > bytes.length) throw new Doubt('stream runs past the end of the file');
  reader.pos = end;
  reader.expectWord('endstream');
  return bytes.subarray(start, end);
}

function only(value: PdfValue | undefined): PdfValue | undefined {
  if (!Array.isArray(value)) return value;
  if (value.length > 1) throw new Doubt('more than one filter');
  return value[0];
}

/** PNG predictors (§7.4.4.4, PNG spec §9): one filter-type byte, then one row of `columns` bytes. */
function unpredict(data: Buffer, columns: number): Buffer {
  const rowSize = columns + 1;
  if (columns < 1 || data.length % rowSize !== 0) throw new Doubt('predicted data is not whole rows');
  const rows = data.length / rowSize;
  const out = Buffer.alloc(rows * columns);
  for (let row = 0; row < rows; row++) {
    const type = data[row * rowSize] as number;
    for (let i = 0; i < columns; i++) {
      const raw = data[row * rowSize + 1 + i] as number;
      const left = i > 0 ? (out[row * columns + i - 1] as number) : 0;
      const up = row > 0 ? (out[(row - 1) * columns + i] as number) : 0;
      const upLeft = row > 0 && i > 0 ? (out[(row - 1) * columns + i - 1] as number) : 0;
      out[row * columns + i] = (raw + predictor(type, left, up, upLeft)) & 0xff;
    }
  }
  return out;
}

function predictor(type: number, left: number, up: number, upLeft: number): number {
  if (type === 0) return 0;
  if (type === 1) return left;
  if (type === 2) return up;
  if (type === 3) return (left + up) >> 1;
  if (type === 4) {
    const p = left + up - upLeft;
    const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
    return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
  }
  throw new Doubt(`PNG filter type ${type}`);
}

/** The decoded bytes of a stream with dictionary `dict` and raw bytes `raw`, spent from `budget`. */
export function decodeStream(dict: PdfDict, raw: Buffer, budget: WalkBudget): Buffer {
  const filter = nameOf(only(dict.get('Filter')));
  if (filter === undefined) {
    if (dict.has('Filter')) throw new Doubt('filter is not a name');
    return raw;
  }
  if (filter !== 'FlateDecode') throw new Doubt(`filter ${filter}`);
  if (budget.decodable < 1) throw new Doubt('inflates past the budget');
  let data: Buffer;
  try {
    data = inflateSync(raw, { maxOutputLength: budget.decodable });
  } catch {
    throw new Doubt('stream does not inflate within the budget');
  }
  budget.spendDecoded(data.length);
  const parms = only(dict.get('DecodeParms'));
  if (parms === undefined || parms === null) return data;
  if (!isDict(parms)) throw new Doubt('decode parameters are not a dictionary');
  const kind = integerOf(parms.get('Predictor') ?? 1);
  if (kind === 1) return data;
  const colors = integerOf(parms.get('Colors') ?? 1);
  const bits = integerOf(parms.get('BitsPerComponent') ?? 8);
  const columns = integerOf(parms.get('Columns') ?? 1);
  if (kind === undefined || kind < 10 || kind > 15 || colors !== 1 || bits !== 8 || columns === undefined) {
    throw new Doubt('unsupported predictor');
  }
  return unpredict(data, columns);
}
