// A PDF's cross-reference (ISO 32000-2 §7.5.4 tables, §7.5.8 streams, §7.5.6 incremental updates) read
// from its end, strictly: where a reader would have to repair or guess (no `startxref`, an offset that
// does not land on its object, a hybrid file's second table), this one gives up with a Doubt.
import { Doubt, integerOf, isDict, nameOf, type PdfDict, PdfReader, type PdfValue } from './pdf-syntax.js';
import { decodeStream, streamBytes } from './stream-data.js';
import type { WalkBudget } from './walk-budget.js';

export type XrefEntry = { offset: number; gen: number } | { stream: number; index: number } | 'free';

export interface CrossReference {
  entries: Map<number, XrefEntry>;
  /** The newest trailer (a cross-reference stream's dictionary serves as one). */
  trailer: PdfDict;
}

/** Incremental updates followed through /Prev; real files have a handful. */
const MAX_SECTIONS = 64;
/** Objects across all sections: a 5000-page file has tens of thousands. */
const MAX_ENTRIES = 500_000;
/**
 * How far from the end `startxref` is looked for (it comes just before the final `%%EOF`). qpdf 11.3
 * looks in the last 1054 bytes only (QPDF::parse) and otherwise rebuilds the cross-reference from every
 * `N G obj` in the file, the last one of each number winning: a startxref further back than that would
 * have this walk read one page tree and qpdf another, hidden earlier in the file.
 */
const TAIL = 1024;

function startXref(bytes: Buffer, budget: WalkBudget): number {
  const at = bytes.lastIndexOf('startxref', bytes.length, 'latin1');
  if (at < 0 || at < bytes.length - TAIL) throw new Doubt('no startxref near the end');
  const reader = new PdfReader(bytes, at + 'startxref'.length, budget);
  const offset = reader.integer();
  // Not skipSpace: to it, `%%EOF` is a comment.
  if (!/^[\0\t\n\f\r ]*%%EOF/.test(bytes.toString('latin1', reader.pos, reader.pos + 64))) {
    throw new Doubt('no %%EOF after startxref');
  }
  return offset;
}

function add(entries: Map<number, XrefEntry>, num: number, entry: XrefEntry): void {
  // Sections are read newest first: an object's newest entry is the one that counts.
  if (!entries.has(num)) entries.set(num, entry);
  if (entries.size > MAX_ENTRIES) throw new Doubt('too many cross-reference entries');
}

/** A subsection's `first count` line (§7.5.4), as qpdf's parse_xrefFirst reads it. */
const SUBSECTION = /^(\d{1,10})[\t\f ]+(\d{1,10})(?=[\t\n\f\r ])/;

/** The digits of bytes[at, at + count), or -1 when any is not a digit. */
function digitsAt(bytes: Buffer, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const byte = bytes[i];
    if (byte === undefined || byte < 0x30 || byte > 0x39) return -1;
    value = value * 10 + (byte - 0x30);
  }
  return value;
}

/** Space, CR or LF: what may end a 20-byte entry (§7.5.4), and all qpdf reads without repairing. */
function isEntryEnd(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0d || byte === 0x0a;
}

/** White space that both this walk and qpdf skip in a table; NUL, and comments, qpdf does not. */
function isTableSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d;
}

function skipTableSpace(reader: PdfReader): void {
  while (isTableSpace(reader.bytes[reader.pos])) reader.pos++;
}

/**
 * One `nnnnnnnnnn ggggg n` entry (§7.5.4) at `at`, exactly 20 bytes with its end of line. qpdf reads
 * entries 20 bytes apart and repairs the table on anything else (a comment between entries, a longer
 * line), so any other layout is a Doubt here.
 */
function tableEntry(bytes: Buffer, at: number): XrefEntry {
  const offset = digitsAt(bytes, at, 10);
  const gen = digitsAt(bytes, at + 11, 5);
  const kind = bytes[at + 17];
  if (
    offset < 0 ||
    gen < 0 ||
    bytes[at + 10] !== 0x20 ||
    bytes[at + 16] !== 0x20 ||
    !isEntryEnd(bytes[at + 18]) ||
    !isEntryEnd(bytes[at + 19])
  ) {
    throw new Doubt('bad cross-reference entry');
  }
  if (kind === 0x6e) return { offset, gen };
  if (kind === 0x66) return 'free';
  throw new Doubt('bad cross-reference entry');
}

/** A classic table (§7.5.4) after its `xref` keyword, up to and including its trailer dictionary. */
function readTable(reader: PdfReader, entries: Map<number, XrefEntry>): PdfDict {
  // qpdf repairs a table whose `xref` is not followed by white space, and reads subsection headers
  // and entries without skipping comments: so must this walk, or qpdf and it read different tables.
  if (!isTableSpace(reader.bytes[reader.pos])) throw new Doubt('xref not followed by white space');
  for (;;) {
    skipTableSpace(reader);
    const header = SUBSECTION.exec(reader.bytes.toString('latin1', reader.pos, reader.pos + 32));
    if (header === null) {
      if (reader.bytes.toString('latin1', reader.pos, reader.pos + 7) !== 'trailer') {
        throw new Doubt('bad cross-reference subsection');
      }
      reader.expectWord('trailer');
      break;
    }
    const [whole, first, count] = header as unknown as [string, string, string];
    reader.pos += whole.length;
    skipTableSpace(reader);
    if (Number(count) * 20 > reader.bytes.length - reader.pos) {
      throw new Doubt('subsection longer than the file');
    }
    for (let i = 0; i < Number(count); i++) {
      add(entries, Number(first) + i, tableEntry(reader.bytes, reader.pos));
      reader.pos += 20;
    }
  }
  const trailer = reader.value();
  if (!isDict(trailer)) throw new Doubt('trailer is not a dictionary');
  // qpdf reads a dictionary followed by `stream` as a stream, finds no trailer and rebuilds the table.
  if (reader.atWord('stream')) throw new Doubt('trailer dictionary followed by stream');
  return trailer;
}

function field(data: Buffer, at: number, width: number): number {
  let value = 0;
  for (let i = 0; i < width; i++) value = value * 256 + (data[at + i] as number);
  return value;
}

/** A cross-reference stream's own object number and generation, and its dictionary. */
interface XrefStream {
  num: number;
  gen: number;
  dict: PdfDict;
}

/** A cross-reference stream (§7.5.8) whose `N G obj` the reader is at. */
function readStream(reader: PdfReader, entries: Map<number, XrefEntry>, budget: WalkBudget): XrefStream {
  const num = reader.integer();
  const gen = reader.integer();
  reader.expectWord('obj');
  const dict = reader.value();
  if (!isDict(dict) || nameOf(dict.get('Type')) !== 'XRef') throw new Doubt('not a cross-reference stream');
  // Its /Length must be direct: an indirect one would need the table being read.
  const data = decodeStream(dict, streamBytes(reader, dict.get('Length')), budget);
  const widths = dict.get('W');
  const size = integerOf(dict.get('Size'));
  if (!Array.isArray(widths) || widths.length !== 3 || size === undefined) throw new Doubt('bad /W or /Size');
  const [typeWidth, offsetWidth, genWidth] = widths.map((width) => {
    const value = integerOf(width);
    if (value === undefined || value < 0 || value > 6) throw new Doubt('bad /W');
    return value;
  }) as [number, number, number];
  const rowSize = typeWidth + offsetWidth + genWidth;
  const index = dict.get('Index') ?? [0, size];
  if (!Array.isArray(index) || index.length % 2 !== 0) throw new Doubt('bad /Index');
  let row = 0;
  for (let i = 0; i < index.length; i += 2) {
    const first = integerOf(index[i]);
    const count = integerOf(index[i + 1]);
    if (first === undefined || count === undefined || first < 0 || count < 0) throw new Doubt('bad /Index');
    if ((row + count) * rowSize > data.length) throw new Doubt('cross-reference stream too short');
    for (let j = 0; j < count; j++, row++) {
      const at = row * rowSize;
      // §7.5.8.2: a missing type field means type 1.
      const type = typeWidth === 0 ? 1 : field(data, at, typeWidth);
      const second = field(data, at + typeWidth, offsetWidth);
      const third = field(data, at + typeWidth + offsetWidth, genWidth);
      if (type === 0) add(entries, first + j, 'free');
      else if (type === 1) add(entries, first + j, { offset: second, gen: third });
      else if (type === 2) add(entries, first + j, { stream: second, index: third });
      else throw new Doubt(`cross-reference entry type ${type}`);
    }
  }
  if (row * rowSize !== data.length) throw new Doubt('cross-reference stream has bytes left over');
  return { num, gen, dict };
}

/**
 * qpdf keeps each cross-reference stream it reads as the object its `N G obj` names, whatever the
 * cross-reference says is there: a stream found one byte off its offset (`1 0 obj` inside `31 0 obj`)
 * then stood in for object 1, the catalog, and qpdf found no /Root where this walk found the pages.
 * So every such stream must be where the cross-reference puts its own number.
 */
function checkStreamsListed(streams: Map<number, XrefStream>, entries: Map<number, XrefEntry>): void {
  for (const [offset, { num, gen }] of streams) {
    const entry = entries.get(num);
    if (
      entry === undefined ||
      entry === 'free' ||
      !('offset' in entry) ||
      entry.offset !== offset ||
      entry.gen !== gen
    ) {
      throw new Doubt('cross-reference stream not where the cross-reference puts it');
    }
  }
}

export function readCrossReference(bytes: Buffer, budget: WalkBudget): CrossReference {
  const entries = new Map<number, XrefEntry>();
  const seen = new Set<number>();
  const streams = new Map<number, XrefStream>();
  let trailer: PdfDict | undefined;
  let offset: number | undefined = startXref(bytes, budget);
  while (offset !== undefined) {
    if (seen.has(offset) || seen.size >= MAX_SECTIONS || offset >= bytes.length) {
      throw new Doubt('cross-reference chain loops, runs long or points past the end');
    }
    seen.add(offset);
    const reader = new PdfReader(bytes, offset, budget);
    const table: boolean = bytes.toString('latin1', offset, offset + 4) === 'xref';
    if (table) reader.pos += 4;
    let section: PdfDict;
    if (table) section = readTable(reader, entries);
    else {
      const stream = readStream(reader, entries, budget);
      streams.set(offset, stream);
      section = stream.dict;
    }
    budget.spendParsed(reader.pos - offset);
    // A hybrid file's /XRefStm (§7.5.8.4) is read by some readers and not others; an encrypted file's
    // objects cannot be read without decrypting.
    if (section.has('XRefStm') || section.has('Encrypt')) throw new Doubt('hybrid or encrypted file');
    trailer ??= section;
    const prev: PdfValue | undefined = section.get('Prev');
    offset = prev === undefined ? undefined : integerOf(prev);
    if (prev !== undefined && offset === undefined) throw new Doubt('bad /Prev');
  }
  if (trailer === undefined) throw new Doubt('no trailer');
  checkStreamsListed(streams, entries);
  return { entries, trailer };
}
