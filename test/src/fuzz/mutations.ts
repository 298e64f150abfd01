// Mutations of real files, described as small plans that fast-check
// generates, prints and shrinks, and applied the same way every time: bit flips, truncation, splices
// from another file, and edits where parsers look first (a PDF's header, xref, trailer, /Count and
// /Length; an image's declared dimensions). Positions are thousandths of the file, so a plan means the
// same thing on any file.
import { crc32 } from 'node:zlib';
import fc from 'fast-check';

export type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'splice'; donor: number; from: number; length: number; at: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'pdf'; edit: PdfEdit; occurrence: number }
  | { kind: 'dimensions'; width: number; height: number };

/** Edits on the PDF keywords a reader looks up first. */
export type PdfEdit =
  | { target: 'header'; with: string }
  | { target: 'startxref' | 'xref-offset' | '/Count' | '/Length' | '/Size'; value: string }
  | {
      target: 'drop';
      keyword: 'xref' | 'trailer' | 'startxref' | '%%EOF' | '/Root' | '/Pages' | 'endstream' | 'endobj';
    };

/** Numbers that have broken readers: zero, negative, off by one, past 32 bits, not numbers. */
const LIES = [
  '0',
  '1',
  '-1',
  '2',
  '7',
  '65535',
  '2147483647',
  '4294967296',
  '99999999999999999999',
  '1e9',
  'abc',
  '',
];

const perMille = fc.integer({ min: 0, max: 1000 });

const pdfEditArb: fc.Arbitrary<PdfEdit> = fc.oneof(
  fc.record({
    target: fc.constant('header' as const),
    with: fc.constantFrom(
      '%PDF-9.9',
      '%PDF-',
      '%PDF-1.4\x00',
      '%!PS-Adobe-3.0\n%PDF-1.4',
      '\ufeff%PDF-1.7',
      '   %PDF-1.7',
      '%FDP-1.7',
      '',
    ),
  }),
  fc.record({
    target: fc.constantFrom(
      'startxref' as const,
      'xref-offset' as const,
      '/Count' as const,
      '/Length' as const,
      '/Size' as const,
    ),
    value: fc.constantFrom(...LIES),
  }),
  fc.record({
    target: fc.constant('drop' as const),
    keyword: fc.constantFrom(
      'xref' as const,
      'trailer' as const,
      'startxref' as const,
      '%%EOF' as const,
      '/Root' as const,
      '/Pages' as const,
      'endstream' as const,
      'endobj' as const,
    ),
  }),
);

/** Declared sizes from tiny to far past any pixel cap (width x height). */
const dimension = fc.constantFrom(0, 1, 3, 255, 65_535, 100_000, 2_147_483_647, 4_294_967_295);

export const mutationArb = (donors: number, forPdf: boolean): fc.Arbitrary<Mutation> =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('flip' as const),
        at: perMille,
        bit: fc.integer({ min: 0, max: 7 }),
      }),
    },
    fc.record({ kind: fc.constant('truncate' as const), at: perMille }),
    fc.record({
      kind: fc.constant('splice' as const),
      donor: fc.nat({ max: donors - 1 }),
      from: perMille,
      length: fc.integer({ min: 1, max: 4096 }),
      at: perMille,
    }),
    fc.record({
      kind: fc.constant('insert' as const),
      at: perMille,
      text: fc.constantFrom(
        '\x00',
        'endobj\n',
        '>>',
        '<<',
        '%PDF-1.7\n',
        '%%EOF\n',
        'stream\r\n',
        ' R ',
        '9999 0 obj',
      ),
    }),
    forPdf
      ? {
          weight: 4,
          arbitrary: fc.record({
            kind: fc.constant('pdf' as const),
            edit: pdfEditArb,
            occurrence: fc.nat({ max: 3 }),
          }),
        }
      : {
          weight: 4,
          arbitrary: fc.record({
            kind: fc.constant('dimensions' as const),
            width: dimension,
            height: dimension,
          }),
        },
  );

const at = (bytes: Buffer, perMilleAt: number): number => Math.floor((bytes.length * perMilleAt) / 1000);

function replaceAt(bytes: Buffer, start: number, end: number, text: string | Buffer): Buffer {
  return Buffer.concat([bytes.subarray(0, start), Buffer.from(text), bytes.subarray(end)]);
}

/** The `occurrence`-th (wrapping) match of `pattern` in the file read as Latin-1, or undefined. */
function nth(bytes: Buffer, pattern: RegExp, occurrence: number): RegExpExecArray | undefined {
  const matches = [...bytes.toString('latin1').matchAll(pattern)];
  if (matches.length === 0) return undefined;
  return matches[occurrence % matches.length] as RegExpExecArray;
}

function editPdf(bytes: Buffer, edit: PdfEdit, occurrence: number): Buffer {
  const number = (pattern: RegExp, value: string): Buffer => {
    const match = nth(bytes, pattern, occurrence);
    const digits = match?.[1];
    if (match === undefined || digits === undefined) return bytes;
    const start = match.index + match[0].length - digits.length;
    return replaceAt(bytes, start, start + digits.length, value);
  };
  switch (edit.target) {
    case 'header': {
      const match = nth(bytes, /%PDF-\d\.\d/g, 0);
      return match === undefined
        ? bytes
        : replaceAt(bytes, match.index, match.index + match[0].length, edit.with);
    }
    case 'startxref':
      return number(/startxref\s+(\d+)/g, edit.value);
    case 'xref-offset':
      return number(/(\d{10}) \d{5} n/g, edit.value.padStart(10, '0').slice(-10));
    case '/Count':
      return number(/\/Count\s+(\d+)/g, edit.value);
    case '/Length':
      return number(/\/Length\s+(\d+)/g, edit.value);
    case '/Size':
      return number(/\/Size\s+(\d+)/g, edit.value);
    case 'drop': {
      const escaped = edit.keyword.replace(/[/%]/g, (c) => `\\${c}`);
      const match = nth(bytes, new RegExp(escaped, 'g'), occurrence);
      return match === undefined ? bytes : replaceAt(bytes, match.index, match.index + match[0].length, '');
    }
  }
}

/** Writes `width` x `height` where each image format declares them; other bytes are left alone. */
function editDimensions(bytes: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(bytes);
  const u16 = (value: number) => Math.min(value, 0xffff);
  const u32 = (value: number) => Math.min(value, 0xffffffff);
  if (out.subarray(1, 4).toString('latin1') === 'PNG' && out.length >= 33) {
    // IHDR follows the 8-byte signature: length, type, then width and height (PNG section 11.2.2).
    out.writeUInt32BE(u32(width), 16);
    out.writeUInt32BE(u32(height), 20);
    // With the chunk's CRC made right again, so the decoder believes the header and reads on.
    out.writeUInt32BE(crc32(out.subarray(12, 29)), 29);
  } else if (out[0] === 0xff && out[1] === 0xd8) {
    // Every SOFn frame header (JPEG B.2.2): marker, length, precision, height, width.
    for (let i = 2; i + 9 < out.length; i += 1) {
      const marker = out[i + 1] ?? 0;
      if (out[i] === 0xff && marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
        out.writeUInt16BE(u16(height), i + 5);
        out.writeUInt16BE(u16(width), i + 7);
      }
    }
  } else if (out.subarray(0, 2).toString('latin1') === 'BM' && out.length >= 26) {
    out.writeInt32LE(Math.min(width, 0x7fffffff) | 0, 18);
    out.writeInt32LE(Math.min(height, 0x7fffffff) | 0, 22);
  } else if (out.subarray(0, 4).toString('latin1') === 'RIFF' && out.length >= 30) {
    const chunk = out.subarray(12, 16).toString('latin1');
    if (chunk === 'VP8X') {
      // Canvas width and height minus one, 24 bits each (WebP container, extended format).
      const minusOne = (value: number) => Math.max(0, Math.min(value, 1 << 24) - 1);
      out.writeUIntLE(minusOne(width), 24, 3);
      out.writeUIntLE(minusOne(height), 27, 3);
    } else if (chunk === 'VP8 ') {
      out.writeUInt16LE(u16(width) & 0x3fff, 26);
      out.writeUInt16LE(u16(height) & 0x3fff, 28);
    }
  } else if (['II', 'MM'].includes(out.subarray(0, 2).toString('latin1')) && out.length >= 8) {
    editTiffDimensions(out, width, height);
  }
  return out;
}

/** ImageWidth (256) and ImageLength (257) in the first IFD, as SHORT or LONG values. */
function editTiffDimensions(out: Buffer, width: number, height: number): void {
  const little = out[0] === 0x49;
  const read16 = (at: number) => (little ? out.readUInt16LE(at) : out.readUInt16BE(at));
  const read32 = (at: number) => (little ? out.readUInt32LE(at) : out.readUInt32BE(at));
  const ifd = read32(4);
  if (ifd + 2 > out.length) return;
  const count = read16(ifd);
  for (let entry = 0; entry < count; entry += 1) {
    const offset = ifd + 2 + entry * 12;
    if (offset + 12 > out.length) return;
    const tag = read16(offset);
    if (tag !== 256 && tag !== 257) continue;
    const value = tag === 256 ? width : height;
    if (read16(offset + 2) === 3) {
      const short = Math.min(value, 0xffff);
      if (little) out.writeUInt16LE(short, offset + 8);
      else out.writeUInt16BE(short, offset + 8);
    } else if (little) out.writeUInt32LE(Math.min(value, 0xffffffff), offset + 8);
    else out.writeUInt32BE(Math.min(value, 0xffffffff), offset + 8);
  }
}

export function applyMutation(bytes: Buffer, mutation: Mutation, donors: readonly Buffer[]): Buffer {
  switch (mutation.kind) {
    case 'flip': {
      if (bytes.length === 0) return bytes;
      const out = Buffer.from(bytes);
      const index = Math.min(at(out, mutation.at), out.length - 1);
      out[index] = (out[index] ?? 0) ^ (1 << mutation.bit);
      return out;
    }
    case 'truncate':
      return bytes.subarray(0, at(bytes, mutation.at));
    case 'splice': {
      const donor = donors[mutation.donor % donors.length] ?? Buffer.alloc(0);
      const start = at(donor, mutation.from);
      const piece = donor.subarray(start, start + mutation.length);
      const where = at(bytes, mutation.at);
      return replaceAt(bytes, where, Math.min(bytes.length, where + piece.length), piece);
    }
    case 'insert': {
      const where = at(bytes, mutation.at);
      return replaceAt(bytes, where, where, mutation.text);
    }
    case 'pdf':
      return editPdf(bytes, mutation.edit, mutation.occurrence);
    case 'dimensions':
      return editDimensions(bytes, mutation.width, mutation.height);
  }
}

export function mutate(bytes: Buffer, mutations: readonly Mutation[], donors: readonly Buffer[]): Buffer {
  return mutations.reduce((current, mutation) => applyMutation(current, mutation, donors), bytes);
}
