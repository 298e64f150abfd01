// The part of PDF's object syntax (ISO 32000-2 §7.2 lexical conventions, §7.3 objects) that reading a
// page tree needs, over bytes already in memory. Hostile input: anything unexpected, and anything past
// the caps, is a Doubt, never a guess; the caller then leaves the file to qpdf (page-tree-walk.ts).

import { isRegular, isWhiteSpace } from '../pdf-characters.js';
import { OpenDictionaryKeys } from './dictionary-keys.js';
import { PdfName, plainName } from './pdf-names.js';

/** Thrown when this reader is not sure; the caller falls back to qpdf, which decides. */
export class Doubt extends Error {
  override name = 'Doubt';
}

export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

/** A string's bytes are never needed here, only where it ends: every string is this one value. */
export class PdfString {}
const STRING = new PdfString();

export type PdfValue = number | boolean | null | PdfName | PdfRef | PdfString | PdfValue[] | PdfDict;
export type PdfDict = Map<string, PdfValue>;

/**
 * How much of a value a read builds: all of it; none of it (read and checked token by token as fully,
 * then dropped, and answered as null); or, of a dictionary, only the entries named, the others dropped.
 * A page-tree walk looks at three keys of each page; building the rest (/Resources, /MediaBox...) made a
 * merge of 20 x 50 pages allocate 5.5 MB and a full GC per merge (as the merge bench measured).
 */
export type Keep = 'all' | 'none' | ReadonlySet<string>;

/** Nesting of arrays and dictionaries deeper than any page-tree object needs. */
const MAX_NESTING = 32;

/** Reads are synchronous and each dictionary closes what it opened, so every reader shares one. */
const openKeys = new OpenDictionaryKeys();

/** Integers with a sign or too long to be object numbers, and reals (§7.3.3). */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;

function isHexDigit(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

/** What a reader spends per token read (walk-budget.ts keeps the count across one walk). */
export interface TokenBudget {
  spendToken(): void;
}

/** A cursor over a PDF's bytes that reads tokens and objects. */
export class PdfReader {
  constructor(
    readonly bytes: Buffer,
    public pos: number,
    private readonly budget: TokenBudget,
  ) {}

  /** Skips white space and comments. */
  skipSpace(): void {
    const { bytes } = this;
    while (this.pos < bytes.length) {
      const byte = bytes[this.pos] as number;
      if (isWhiteSpace(byte)) this.pos++;
      else if (byte === 0x25) {
        while (this.pos < bytes.length && bytes[this.pos] !== 0x0a && bytes[this.pos] !== 0x0d) this.pos++;
      } else return;
    }
  }

  /** The run of regular characters at the cursor (a number or a keyword), after white space. */
  word(): string {
    this.skipSpace();
    const start = this.pos;
    while (isRegular(this.bytes[this.pos])) this.pos++;
    return this.bytes.toString('latin1', start, this.pos);
  }

  /** Reads `word` (an ASCII keyword) at the cursor, after white space, or throws a Doubt. */
  expectWord(word: string): void {
    if (!this.atWord(word)) throw new Doubt(`expected ${word}`);
  }

  /** Whether `word` (an ASCII keyword) is at the cursor, after white space; if so, reads it. */
  atWord(word: string): boolean {
    this.skipSpace();
    const { bytes, pos } = this;
    for (let i = 0; i < word.length; i++) if (bytes[pos + i] !== word.charCodeAt(i)) return false;
    if (isRegular(bytes[pos + word.length])) return false;
    this.pos = pos + word.length;
    return true;
  }

  /**
   * The unsigned integer at the cursor when its whole word is 1 to 15 digits (exact as a double), else
   * undefined with the cursor after white space. Read from the bytes: most tokens of a page tree are
   * object numbers, and a string per token was most of the walk's time.
   */
  private unsigned(): number | undefined {
    this.skipSpace();
    const { bytes } = this;
    let pos = this.pos;
    let value = 0;
    for (let byte = bytes[pos]; byte !== undefined && byte >= 0x30 && byte <= 0x39; byte = bytes[++pos]) {
      value = value * 10 + (byte - 0x30);
    }
    if (pos === this.pos || pos - this.pos > 15 || isRegular(bytes[pos])) return undefined;
    this.pos = pos;
    return value;
  }

  /** A non-negative integer small enough to be exact. */
  integer(): number {
    this.budget.spendToken();
    const value = this.unsigned();
    if (value === undefined) throw new Doubt('expected an integer');
    return value;
  }

  /** The value at the cursor, built as far as `keep` asks; the checks are the same whatever it says. */
  value(depth = 0, keep: Keep = 'all'): PdfValue {
    if (depth > MAX_NESTING) throw new Doubt('nested too deeply');
    this.budget.spendToken();
    const unsigned = this.unsigned();
    if (unsigned !== undefined) return this.refOrInteger(unsigned, keep !== 'none');
    const byte = this.bytes[this.pos];
    if (byte === undefined) throw new Doubt('unexpected end of data');
    if (byte === 0x2f) return this.name();
    if (byte === 0x28) return this.literalString();
    if (byte === 0x5b) return this.array(depth, keep !== 'none');
    if (byte === 0x3c) {
      if (this.bytes[this.pos + 1] === 0x3c) return this.dict(depth, keep);
      return this.hexString();
    }
    const word = this.word();
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    if (NUMBER.test(word)) return Number(word);
    throw new Doubt(`unexpected token ${word.slice(0, 20)}`);
  }

  /** `12 0 R` is a reference (§7.3.10); any other integer stands alone. A reference not built is null. */
  private refOrInteger(num: number, build: boolean): number | PdfRef | null {
    const after = this.pos;
    const gen = this.unsigned();
    if (gen !== undefined && gen <= 65535 && num < 1e10) {
      this.skipSpace();
      if (this.bytes[this.pos] === 0x52 && !isRegular(this.bytes[this.pos + 1])) {
        this.pos++;
        return build ? new PdfRef(num, gen) : null;
      }
    }
    this.pos = after;
    return num;
  }

  private name(): PdfName {
    this.pos++;
    const start = this.pos;
    while (isRegular(this.bytes[this.pos])) this.pos++;
    const plain = plainName(this.bytes, start, this.pos);
    if (plain !== undefined) return plain;
    // §7.3.5: `#xx` escapes; names are compared after decoding.
    const raw = this.bytes.toString('latin1', start, this.pos);
    if (!/^(?:[^#]|#[0-9a-fA-F]{2})*$/.test(raw)) throw new Doubt('bad name escape');
    return new PdfName(
      raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    );
  }

  /** §7.3.4.2: balanced parentheses nest; a backslash escapes the next byte. */
  private literalString(): PdfString {
    const { bytes } = this;
    let open = 0;
    while (this.pos < bytes.length) {
      const byte = bytes[this.pos++];
      if (byte === 0x5c) this.pos++;
      else if (byte === 0x28) open++;
      else if (byte === 0x29 && --open === 0) return STRING;
    }
    throw new Doubt('unterminated string');
  }

  private hexString(): PdfString {
    const end = this.bytes.indexOf(0x3e, this.pos);
    if (end < 0) throw new Doubt('unterminated hex string');
    for (let at = this.pos + 1; at < end; at++) {
      const byte = this.bytes[at] as number;
      if (!isHexDigit(byte) && !isWhiteSpace(byte)) throw new Doubt('bad hex string');
    }
    this.pos = end + 1;
    return STRING;
  }

  private array(depth: number, build: boolean): PdfValue[] | null {
    this.pos++;
    const items: PdfValue[] | null = build ? [] : null;
    for (;;) {
      this.skipSpace();
      if (this.bytes[this.pos] === 0x5d) {
        this.pos++;
        return items;
      }
      const item = this.value(depth + 1, build ? 'all' : 'none');
      items?.push(item);
    }
  }

  private dict(depth: number, keep: Keep): PdfDict | null {
    this.pos += 2;
    const dict: PdfDict | null = keep === 'none' ? null : new Map();
    // The keys read so far, kept or not: a repeated one is refused alike.
    const mark = openKeys.open();
    try {
      for (;;) {
        this.skipSpace();
        if (this.bytes[this.pos] === 0x3e && this.bytes[this.pos + 1] === 0x3e) {
          this.pos += 2;
          return dict;
        }
        if (this.bytes[this.pos] !== 0x2f) throw new Doubt('dictionary key is not a name');
        this.budget.spendToken();
        const key = this.name().value;
        // §7.3.7: a repeated key is an error whose outcome readers disagree on.
        if (!openKeys.add(mark, key)) throw new Doubt(`repeated key /${key}`);
        const kept = keep === 'all' || (keep !== 'none' && keep.has(key));
        const value = this.value(depth + 1, kept ? 'all' : 'none');
        if (kept) dict?.set(key, value);
      }
    } finally {
      openKeys.close(mark);
    }
  }
}

export function isDict(value: PdfValue | undefined): value is PdfDict {
  return value instanceof Map;
}

export function nameOf(value: PdfValue | undefined): string | undefined {
  return value instanceof PdfName ? value.value : undefined;
}

export function integerOf(value: PdfValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
}
