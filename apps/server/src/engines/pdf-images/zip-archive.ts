// A ZIP archive of files that are compressed already (PNG, JPEG): every entry stored as it is (PKWARE
// APPNOTE 6.3.10: local headers, the data, the central directory, its end), written as it is read, one
// file at a time. Names are UTF-8 (general purpose bit 11). No ZIP64: the entries of one request stay
// far under 4 GiB, and a larger archive is refused rather than written wrong.
import { createReadStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

export interface ZipEntry {
  /** The file to store. */
  path: string;
  /** Its name inside the archive. */
  name: string;
}

const MAX_ZIP32 = 0xffff_ffff;
/** 1980-01-01 00:00, the earliest time a ZIP header holds: archives of one input are alike whenever made. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

async function crcOf(path: string): Promise<{ crc: number; size: number }> {
  let crc = 0;
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    crc = crc32(chunk as Buffer, crc);
    size += (chunk as Buffer).length;
  }
  return { crc, size };
}

function header(signature: number, fields: ReadonlyArray<[number, 2 | 4]>): Buffer {
  const buffer = Buffer.alloc(4 + fields.reduce((sum, [, bytes]) => sum + bytes, 0));
  buffer.writeUInt32LE(signature, 0);
  let at = 4;
  for (const [value, bytes] of fields) {
    if (bytes === 2) buffer.writeUInt16LE(value, at);
    else buffer.writeUInt32LE(value, at);
    at += bytes;
  }
  return buffer;
}

async function write(file: FileHandle, bytes: Buffer): Promise<number> {
  await file.write(bytes);
  return bytes.length;
}

/** Writes `entries` into a new archive at `output`; answers its size. */
export async function writeZip(output: string, entries: readonly ZipEntry[]): Promise<number> {
  const file = await open(output, 'w');
  const central: Buffer[] = [];
  let offset = 0;
  try {
    for (const entry of entries) {
      const { crc, size } = await crcOf(entry.path);
      const name = Buffer.from(entry.name, 'utf8');
      if (offset + size > MAX_ZIP32)
        throw new Error('the archive would pass 4 GiB, past what ZIP without ZIP64 holds');
      const common: Array<[number, 2 | 4]> = [
        [0x0800, 2], // UTF-8 names
        [0, 2], // stored
        [DOS_TIME, 2],
        [DOS_DATE, 2],
        [crc, 4],
        [size, 4],
        [size, 4],
        [name.length, 2],
        [0, 2], // no extra field
      ];
      central.push(
        header(0x02014b50, [[20, 2], [20, 2], ...common, [0, 2], [0, 2], [0, 2], [0, 4], [offset, 4]]),
        name,
      );
      offset += await write(file, header(0x04034b50, [[20, 2], ...common]));
      offset += await write(file, name);
      for await (const chunk of createReadStream(entry.path)) offset += await write(file, chunk as Buffer);
    }
    const directory = Buffer.concat(central);
    await write(file, directory);
    const end = header(0x06054b50, [
      [0, 2],
      [0, 2],
      [entries.length, 2],
      [entries.length, 2],
      [directory.length, 4],
      [offset, 4],
      [0, 2],
    ]);
    await write(file, end);
    return offset + directory.length + end.length;
  } finally {
    await file.close();
  }
}
