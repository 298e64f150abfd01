// JPEG 2000, which only images to PDF takes: a JP2 file (ISO/IEC 15444-1 Annex I: boxes, the `jp2h`
// header box with `ihdr` and an optional `res ` resolution box, then the `jp2c` codestream) or a bare
// codestream (Annex A: SOC then the SIZ marker segment). The file is embedded as it is (PDF's
// JPXDecode reads both), so only its size and resolution are read here, never its pixels. Read as the
// OCR image checks read headers (../ocr/image-header.ts): the decoder that finally draws the page reads
// the codestream's SIZ, so a JP2 whose `ihdr` disagrees with it is ambiguous and refused.
import type { Dimensions } from '../ocr/image-header.js';

export class Jp2Error extends Error {
  override name = 'Jp2Error';
  constructor(
    message: string,
    /** The file could be read two ways: refused as the OCR checks refuse such files. */
    readonly ambiguous = false,
  ) {
    super(message);
  }
}

export interface Jp2Header extends Dimensions {
  /** Pixels per inch from the `res ` box (capture, else display resolution); absent when none. */
  dpi?: number | undefined;
  /** The image carries an opacity channel the PDF reader applies (PDF 32000-1 `SMaskInData`). */
  alpha: boolean;
}

const SIGNATURE = Buffer.from([0, 0, 0, 12, 0x6a, 0x50, 0x20, 0x20, 0x0d, 0x0a, 0x87, 0x0a]);
const CODESTREAM = Buffer.from([0xff, 0x4f, 0xff, 0x51]);

export function isJp2(magic: Uint8Array): boolean {
  const bytes = Buffer.from(magic);
  return bytes.subarray(0, 12).equals(SIGNATURE) || bytes.subarray(0, 4).equals(CODESTREAM);
}

interface Box {
  type: string;
  /** Where its content starts and ends. */
  start: number;
  end: number;
}

/** The boxes between `from` and `to` (Annex I.4: a length of 1 means an 8-byte length, 0 "to the end"). */
function boxes(bytes: Buffer, from: number, to: number): Box[] {
  const found: Box[] = [];
  let at = from;
  while (at < to) {
    if (at + 8 > to) throw new Jp2Error('a box header is cut off');
    let length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    let start = at + 8;
    if (length === 1) {
      if (at + 16 > to) throw new Jp2Error('a box header is cut off');
      length = Number(bytes.readBigUInt64BE(at + 8));
      start = at + 16;
    } else if (length === 0) {
      length = to - at;
    }
    const end = at + length;
    if (end > to || end < start) throw new Jp2Error(`its ${type.trim() || 'unnamed'} box runs past its end`);
    found.push({ type, start, end });
    at = end;
  }
  return found;
}

/** The image size the codestream's SIZ segment gives (A.5.1): the reference grid less its offset. */
function codestreamSize(bytes: Buffer, at: number, end: number): Dimensions & { components: number } {
  if (end - at < 42 || !bytes.subarray(at, at + 4).equals(CODESTREAM))
    throw new Jp2Error('its codestream does not start with SOC and SIZ');
  const xsiz = bytes.readUInt32BE(at + 8);
  const ysiz = bytes.readUInt32BE(at + 12);
  const xosiz = bytes.readUInt32BE(at + 16);
  const yosiz = bytes.readUInt32BE(at + 20);
  if (xosiz >= xsiz || yosiz >= ysiz) throw new Jp2Error('its image offset lies outside its grid');
  return { width: xsiz - xosiz, height: ysiz - yosiz, components: bytes.readUInt16BE(at + 40) };
}

/** Pixels per inch of a `resc` or `resd` box (I.5.3.7): (numerator / denominator) x 10^exponent per metre. */
function resolution(bytes: Buffer, box: Box): number | undefined {
  if (box.end - box.start < 10) return undefined;
  const at = box.start;
  const perMetre = (numerator: number, denominator: number, exponent: number) =>
    denominator === 0 ? 0 : (numerator / denominator) * 10 ** exponent;
  const vertical = perMetre(bytes.readUInt16BE(at), bytes.readUInt16BE(at + 2), bytes.readInt8(at + 8));
  const horizontal = perMetre(bytes.readUInt16BE(at + 4), bytes.readUInt16BE(at + 6), bytes.readInt8(at + 9));
  // One resolution per image (a page's scale): the horizontal one, as the other formats' readers give.
  const dpi = (horizontal || vertical) * 0.0254;
  return dpi > 0 ? dpi : undefined;
}

/** Reads the size, resolution and alpha of a JP2 file or bare codestream; Jp2Error says what is wrong. */
export function readJp2Header(bytes: Buffer): Jp2Header {
  if (bytes.subarray(0, 4).equals(CODESTREAM)) {
    const { width, height, components } = codestreamSize(bytes, 0, bytes.length);
    // A bare codestream says nothing of colour: 2 or 4 components are grey or RGB with opacity.
    return { width, height, alpha: components === 2 || components === 4 };
  }
  const top = boxes(bytes, 0, bytes.length);
  const header = top.find((box) => box.type === 'jp2h');
  const stream = top.find((box) => box.type === 'jp2c');
  if (header === undefined || stream === undefined)
    throw new Jp2Error('it has no jp2h header or jp2c codestream');
  const inside = boxes(bytes, header.start, header.end);
  const ihdr = inside.find((box) => box.type === 'ihdr');
  if (ihdr === undefined || ihdr.end - ihdr.start < 14)
    throw new Jp2Error('its ihdr box is missing or short');
  const declared = { height: bytes.readUInt32BE(ihdr.start), width: bytes.readUInt32BE(ihdr.start + 4) };
  const coded = codestreamSize(bytes, stream.start, stream.end);
  if (coded.width !== declared.width || coded.height !== declared.height) {
    throw new Jp2Error(
      `its ihdr box says ${declared.width}x${declared.height} pixels and its codestream ${coded.width}x${coded.height}`,
      true,
    );
  }
  const res = inside.find((box) => box.type === 'res ');
  const inRes = res === undefined ? [] : boxes(bytes, res.start, res.end);
  const chosen = inRes.find((box) => box.type === 'resc') ?? inRes.find((box) => box.type === 'resd');
  // Channel definitions (cdef) name an opacity channel; without one, every component is colour.
  const cdef = inside.find((box) => box.type === 'cdef');
  return {
    ...declared,
    dpi: chosen === undefined ? undefined : resolution(bytes, chosen),
    alpha: cdef !== undefined && hasOpacity(bytes, cdef),
  };
}

/** A `cdef` box (I.5.3.6) listing a channel of type 1 (opacity) or 2 (premultiplied opacity). */
function hasOpacity(bytes: Buffer, cdef: Box): boolean {
  if (cdef.end - cdef.start < 2) return false;
  const count = bytes.readUInt16BE(cdef.start);
  for (let i = 0; i < count; i += 1) {
    const at = cdef.start + 2 + i * 6;
    if (at + 6 > cdef.end) return false;
    const type = bytes.readUInt16BE(at + 2);
    if (type === 1 || type === 2) return true;
  }
  return false;
}
