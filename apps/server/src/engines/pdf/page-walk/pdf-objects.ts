// Indirect objects looked up through the cross-reference (ISO 32000-2 §7.3.10), directly in the file or
// inside an object stream (§7.5.7). An entry whose offset does not land on `N G obj`, a free or missing
// object, a compressed object with a generation: each is a Doubt, where a reader would repair or guess.
import { type CrossReference, readCrossReference } from './cross-reference.js';
import {
  Doubt,
  integerOf,
  isDict,
  type Keep,
  nameOf,
  type PdfDict,
  PdfReader,
  PdfRef,
  type PdfValue,
} from './pdf-syntax.js';
import { decodeStream, streamBytes } from './stream-data.js';
import { WalkBudget } from './walk-budget.js';

interface ObjectStream {
  data: Buffer;
  /** Where each object starts in `data`, after /First, with its number. */
  objects: { num: number; offset: number }[];
}

/** The objects of one file held in memory; every lookup may throw a Doubt. */
export class PdfObjects {
  private readonly xref: CrossReference;
  private readonly objectStreams = new Map<number, ObjectStream>();
  private lookups = 0;
  private readonly budget: WalkBudget;

  /** `maxLookups` bounds the objects read, object streams included. */
  constructor(
    private readonly bytes: Buffer,
    private readonly maxLookups: number,
  ) {
    this.budget = new WalkBudget(bytes.length);
    this.xref = readCrossReference(bytes, this.budget);
  }

  get trailer(): PdfDict {
    return this.xref.trailer;
  }

  /** The object `value` refers to, or `value` itself when it is direct. */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    return value instanceof PdfRef ? this.get(value) : value;
  }

  /** The object `ref` names, built as far as `keep` asks (pdf-syntax.ts). */
  get(ref: PdfRef, keep: Keep = 'all'): PdfValue {
    if (++this.lookups > this.maxLookups) throw new Doubt('too many objects');
    const entry = this.xref.entries.get(ref.num);
    if (entry === undefined || entry === 'free') throw new Doubt(`object ${ref.num} is missing or free`);
    if ('stream' in entry) {
      if (ref.gen !== 0) throw new Doubt('compressed object with a generation');
      return this.compressed(ref.num, entry.stream, entry.index, keep);
    }
    if (entry.gen !== ref.gen) throw new Doubt(`object ${ref.num} has another generation`);
    const { reader, value } = this.direct(ref, entry.offset, keep);
    // Everything looked up here (the catalog, page tree nodes, a /Length) is a dictionary or a number:
    // qpdf takes a stream in the page tree for a page without /Kids, whatever its dictionary says
    // (an attack on the page count: a /Pages stream hid its pages from qpdf, so a merge held fewer than
    // counted).
    if (!reader.atWord('endobj')) throw new Doubt(`object ${ref.num} is a stream or is not closed`);
    return value;
  }

  /**
   * The object `ref` names and, where it is a stream, how many bytes of data it stores (its /Length,
   * found to end at `endstream`); the data itself is not read.
   */
  getWithStream(ref: PdfRef): { value: PdfValue; streamBytes: number | undefined } {
    if (++this.lookups > this.maxLookups) throw new Doubt('too many objects');
    const entry = this.xref.entries.get(ref.num);
    if (entry === undefined || entry === 'free') throw new Doubt(`object ${ref.num} is missing or free`);
    if ('stream' in entry) {
      if (ref.gen !== 0) throw new Doubt('compressed object with a generation');
      // An object stream holds no streams (ISO 32000-2 §7.5.7).
      return { value: this.compressed(ref.num, entry.stream, entry.index, 'all'), streamBytes: undefined };
    }
    if (entry.gen !== ref.gen) throw new Doubt(`object ${ref.num} has another generation`);
    const { reader, value } = this.direct(ref, entry.offset);
    if (reader.atWord('endobj')) return { value, streamBytes: undefined };
    if (!isDict(value)) throw new Doubt(`object ${ref.num} is not closed`);
    const data = streamBytes(reader, this.resolveLength(value.get('Length')));
    reader.expectWord('endobj');
    return { value, streamBytes: data.length };
  }

  /** The object at `offset`, which must start `num gen obj`; the reader is left after its value. */
  private direct(ref: PdfRef, offset: number, keep: Keep = 'all'): { reader: PdfReader; value: PdfValue } {
    if (offset >= this.bytes.length) throw new Doubt('offset past the end');
    const reader = new PdfReader(this.bytes, offset, this.budget);
    if (reader.integer() !== ref.num || reader.integer() !== ref.gen) {
      throw new Doubt(`object ${ref.num} is not where the cross-reference says`);
    }
    reader.expectWord('obj');
    const value = reader.value(0, keep);
    this.budget.spendParsed(reader.pos - offset);
    return { reader, value };
  }

  private compressed(num: number, streamNum: number, index: number, keep: Keep): PdfValue {
    const stream = this.objectStream(streamNum);
    const object = stream.objects[index];
    if (object === undefined || object.num !== num)
      throw new Doubt(`object ${num} is not in its object stream`);
    const reader = new PdfReader(stream.data, object.offset, this.budget);
    const value = reader.value(0, keep);
    this.budget.spendParsed(reader.pos - object.offset);
    return value;
  }

  private objectStream(num: number): ObjectStream {
    const cached = this.objectStreams.get(num);
    if (cached !== undefined) return cached;
    const entry = this.xref.entries.get(num);
    if (entry === undefined || entry === 'free' || 'stream' in entry || entry.gen !== 0) {
      throw new Doubt(`object stream ${num} is not a plain object`);
    }
    if (++this.lookups > this.maxLookups) throw new Doubt('too many objects');
    const { reader, value: dict } = this.direct(new PdfRef(num, 0), entry.offset);
    if (!isDict(dict) || nameOf(dict.get('Type')) !== 'ObjStm')
      throw new Doubt(`${num} is not an object stream`);
    const length = this.resolveLength(dict.get('Length'));
    const data = decodeStream(dict, streamBytes(reader, length), this.budget);
    const count = integerOf(dict.get('N'));
    const first = integerOf(dict.get('First'));
    if (count === undefined || first === undefined || count < 0 || first < 0 || first > data.length) {
      throw new Doubt('bad /N or /First');
    }
    const header = new PdfReader(data.subarray(0, first), 0, this.budget);
    const objects: ObjectStream['objects'] = [];
    const numbers = new Set<number>();
    for (let i = 0; i < count; i++) {
      const objectNum = header.integer();
      const offset = first + header.integer();
      if (offset >= data.length) throw new Doubt('object stream offset past its end');
      // qpdf 11.3 finds a compressed object by its number in this header, the last listing winning,
      // not by the index the cross-reference gives: a number listed twice is read differently.
      if (numbers.has(objectNum)) throw new Doubt('object stream lists an object twice');
      numbers.add(objectNum);
      objects.push({ num: objectNum, offset });
    }
    const stream = { data, objects };
    this.objectStreams.set(num, stream);
    return stream;
  }

  /** A stream's /Length may be an indirect integer (a writer that streamed the data out first). */
  private resolveLength(length: PdfValue | undefined): PdfValue | undefined {
    const resolved = this.resolve(length);
    if (isDict(resolved) || Array.isArray(resolved)) throw new Doubt('/Length is not a number');
    return resolved;
  }
}
