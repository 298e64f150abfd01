// The names in an OLE2 compound file's directory ([MS-CFB] 2.2 header, 2.3 FAT, 2.5 DIFAT, 2.6
// directory entries): Word 97 (.doc), Excel 97 (.xls) and PowerPoint 97 (.ppt) files are compound files
// told apart by their main stream, `WordDocument`, `Workbook` (or Excel 5's `Book`), `PowerPoint
// Document`. Only the directory chain is followed, each sector at most once.
import type { ByteSource } from './byte-source.js';

export const CFB_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** Sector ids at and above this mark a chain's end or a free sector ([MS-CFB] 2.1). */
const MAX_REGULAR_SECTOR = 0xfffffffa;
/** 4,096 directory sectors hold 16,384 to 131,072 entries: more than any document has. */
const MAX_DIRECTORY_SECTORS = 4096;
const MAX_DIFAT_SECTORS = 4096;

export class NotACompoundFileError extends Error {}

async function read(file: ByteSource, position: number, length: number): Promise<Buffer> {
  const bytes = await file.read(position, length);
  if (bytes.length < length) throw new NotACompoundFileError('it is cut short');
  return bytes;
}

/** The names of every stream and storage in the compound file at `file`. */
export async function readCfbNames(file: ByteSource): Promise<string[]> {
  const header = await read(file, 0, 512);
  if (!header.subarray(0, 8).equals(CFB_SIGNATURE)) throw new NotACompoundFileError('it is not one');
  const shift = header.readUInt16LE(30);
  if (shift !== 9 && shift !== 12) throw new NotACompoundFileError(`its sector size 2^${shift} is invalid`);
  const sectorSize = 1 << shift;
  const perSector = sectorSize / 4;
  const sector = (id: number) => read(file, (id + 1) * sectorSize, sectorSize);

  // Where each FAT sector is: 109 in the header, the rest in a chain of DIFAT sectors.
  const fatSectors: number[] = [];
  for (let i = 0; i < 109; i++) fatSectors.push(header.readUInt32LE(76 + 4 * i));
  let difat = header.readUInt32LE(68);
  for (let seen = 0; difat < MAX_REGULAR_SECTOR; seen++) {
    if (seen >= MAX_DIFAT_SECTORS) throw new NotACompoundFileError('its DIFAT chain does not end');
    const bytes = await sector(difat);
    for (let i = 0; i < perSector - 1; i++) fatSectors.push(bytes.readUInt32LE(4 * i));
    difat = bytes.readUInt32LE(4 * (perSector - 1));
  }
  const fatCache = new Map<number, Buffer>();
  const next = async (id: number): Promise<number> => {
    const fatSector = fatSectors[Math.floor(id / perSector)];
    if (fatSector === undefined || fatSector >= MAX_REGULAR_SECTOR)
      throw new NotACompoundFileError(`sector ${id} is outside its FAT`);
    let bytes = fatCache.get(fatSector);
    if (bytes === undefined) {
      bytes = await sector(fatSector);
      fatCache.set(fatSector, bytes);
    }
    return bytes.readUInt32LE(4 * (id % perSector));
  };

  const names: string[] = [];
  const seen = new Set<number>();
  for (let id = header.readUInt32LE(48); id < MAX_REGULAR_SECTOR; id = await next(id)) {
    if (seen.has(id) || seen.size >= MAX_DIRECTORY_SECTORS)
      throw new NotACompoundFileError('its directory chain loops');
    seen.add(id);
    const bytes = await sector(id);
    for (let at = 0; at + 128 <= sectorSize; at += 128) {
      const nameBytes = Math.min(bytes.readUInt16LE(at + 64), 64);
      const type = bytes.readUInt8(at + 66);
      // 1 storage, 2 stream, 5 root; 0 an unused slot.
      if (type === 0 || nameBytes < 2) continue;
      names.push(bytes.toString('utf16le', at, at + nameBytes - 2));
    }
  }
  return names;
}
