// The entries of a ZIP file as its central directory lists them (APPNOTE.TXT 4.3.12-4.3.16, ZIP64 4.3.14
// and 4.5.3): names and declared sizes, read without inflating anything. OOXML and ODF documents are
// ZIP files; this tells which kind, and what the file claims it expands to, before LibreOffice reads it.
// A ZIP may lie about its sizes: the memory and time budgets LibreOffice runs under are the limit behind.
import type { ByteSource } from './byte-source.js';

export interface ZipEntry {
  name: string;
  /** Declared size once inflated. */
  size: number;
  compressedSize: number;
  /** 0 stored, 8 deflated. */
  method: number;
  /** Where the entry's local header starts. */
  offset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** The end record is 22 bytes after at most a 65,535-byte comment. */
const TAIL = 22 + 0xffff;
/** Read whole into memory: 16 MiB lists some 200,000 entries, far more than any document has. */
const MAX_DIRECTORY_BYTES = 16 * 2 ** 20;

export class NotAZipError extends Error {}

function bigToNumber(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new NotAZipError(`its ${what} is out of range`);
  return Number(value);
}

/** Where the central directory is and how many entries it says it has. */
async function centralDirectory(file: ByteSource, fileSize: number) {
  const tailStart = Math.max(0, fileSize - TAIL);
  const tail = await file.read(tailStart, fileSize - tailStart);
  let end = -1;
  for (let at = tail.length - 22; at >= 0; at--) {
    if (tail.readUInt32LE(at) === EOCD) {
      end = at;
      break;
    }
  }
  if (end === -1) throw new NotAZipError('it has no end of central directory record');
  let count = tail.readUInt16LE(end + 10);
  let size = tail.readUInt32LE(end + 12);
  let offset = tail.readUInt32LE(end + 16);
  const locator = end - 20;
  if (locator >= 0 && tail.readUInt32LE(locator) === ZIP64_LOCATOR) {
    const recordAt = bigToNumber(tail.readBigUInt64LE(locator + 8), 'ZIP64 record offset');
    const record = await file.read(recordAt, 56);
    if (record.length < 56 || record.readUInt32LE(0) !== ZIP64_EOCD)
      throw new NotAZipError('its ZIP64 end record is missing');
    count = bigToNumber(record.readBigUInt64LE(32), 'entry count');
    size = bigToNumber(record.readBigUInt64LE(40), 'central directory size');
    offset = bigToNumber(record.readBigUInt64LE(48), 'central directory offset');
  }
  if (offset + size > fileSize) throw new NotAZipError('its central directory lies outside the file');
  return { count, size, offset };
}

/** The 64-bit sizes and offset of a ZIP64 extra field, in the order the 32-bit fields that overflow appear. */
function zip64Values(extra: Buffer, wanted: number): bigint[] {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === 0x0001) {
      const values: bigint[] = [];
      for (let i = 0; i < wanted && at + 4 + 8 * (i + 1) <= extra.length; i++)
        values.push(extra.readBigUInt64LE(at + 4 + 8 * i));
      return values;
    }
    at += 4 + length;
  }
  return [];
}

/** Every entry of the ZIP at `file`; more than `maxEntries` is refused before reading them. */
export async function readZipEntries(
  file: ByteSource,
  fileSize: number,
  maxEntries: number,
): Promise<ZipEntry[]> {
  const directory = await centralDirectory(file, fileSize);
  if (directory.size > MAX_DIRECTORY_BYTES)
    throw new NotAZipError(`its central directory takes ${directory.size} bytes, more than a document needs`);
  if (directory.count > maxEntries)
    throw new NotAZipError(
      `it lists ${directory.count} files, more than the ${maxEntries} a document may hold`,
    );
  const bytes = await file.read(directory.offset, directory.size);
  const entries: ZipEntry[] = [];
  for (let at = 0; entries.length < directory.count; ) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL_HEADER)
      throw new NotAZipError('its central directory is damaged');
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    const extra = bytes.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength);
    let compressedSize = bytes.readUInt32LE(at + 20);
    let size = bytes.readUInt32LE(at + 24);
    let offset = bytes.readUInt32LE(at + 42);
    const overflows = [size, compressedSize, offset].filter((value) => value === 0xffffffff).length;
    if (overflows > 0) {
      const values = zip64Values(extra, overflows);
      if (size === 0xffffffff) size = bigToNumber(values.shift() ?? 0n, 'entry size');
      if (compressedSize === 0xffffffff) compressedSize = bigToNumber(values.shift() ?? 0n, 'entry size');
      if (offset === 0xffffffff) offset = bigToNumber(values.shift() ?? 0n, 'entry offset');
    }
    entries.push({ name, size, compressedSize, method: bytes.readUInt16LE(at + 10), offset });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The first `length` bytes of a stored (uncompressed) entry: an ODF package's `mimetype`. */
export async function readStoredEntry(file: ByteSource, entry: ZipEntry, length: number): Promise<string> {
  if (entry.method !== 0) return '';
  const header = await file.read(entry.offset, 30);
  if (header.length < 30 || header.readUInt32LE(0) !== LOCAL_HEADER) return '';
  const start = entry.offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  return (await file.read(start, Math.min(length, entry.compressedSize))).toString('latin1');
}
