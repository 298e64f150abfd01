// Windows and OS/2 BMP, read by our own code ("inputs the spec promises"): Leptonica, inside
// both tesseract builds, refuses RLE-compressed BMPs, and sharp's libvips has no BMP loader. The same
// header parser serves the pixel-cap check (image-header.ts) and the decoder, so the size the cap sees
// is the size the decoder allocates (STYLE.md 24). Everything here treats the bytes as hostile: every
// offset is checked before it is read, and nothing is allocated before the pixel count is known to be
// within the caller's cap. Layout: Microsoft's BITMAPFILEHEADER, BITMAPCOREHEADER, BITMAPINFOHEADER,
// BITMAPV4HEADER and BITMAPV5HEADER documentation; OS/2 2.x headers as described by BMP Suite.

/** Thrown for any file this reader cannot decode; the message says why, without the file's name. */
export class BmpError extends Error {
  override name = 'BmpError';
}

const FILE_HEADER = 14;
/** Enough for the largest (V5) DIB header and the three masks an INFO header may add after it. */
export const BMP_HEADER_BYTES = FILE_HEADER + 124 + 16;

const BI_RGB = 0;
const BI_RLE8 = 1;
const BI_RLE4 = 2;
const BI_BITFIELDS = 3;
const BI_JPEG = 4;
const BI_PNG = 5;
const BI_ALPHABITFIELDS = 6;

interface Mask {
  shift: number;
  bits: number;
}

export interface BmpHeader {
  width: number;
  height: number;
  topDown: boolean;
  bitCount: number;
  compression: 'rgb' | 'rle8' | 'rle4' | 'bitfields' | 'jpeg' | 'png';
  /** Where the pixel data starts (bfOffBits). */
  dataOffset: number;
  /** Red, green, blue, alpha masks for 16- and 32-bit pixels; alpha absent when the file has none. */
  masks?: { r: Mask; g: Mask; b: Mask; a?: Mask };
  /** Where the palette starts, how many entries it has, and their size (3 in OS/2 1.x files, else 4). */
  palette: { offset: number; entries: number; entrySize: 3 | 4 };
}

export interface BmpPixels {
  width: number;
  height: number;
  /** RGBA, rows top to bottom. Pixels an RLE stream skipped are transparent. */
  rgba: Uint8Array;
}

function maskOf(value: number): Mask | undefined {
  if (value === 0) return undefined;
  let shift = 0;
  while (((value >>> shift) & 1) === 0) shift += 1;
  let bits = 0;
  while (shift + bits < 32 && ((value >>> (shift + bits)) & 1) === 1) bits += 1;
  // A mask must be one run of ones (BMP Suite b/rgb16-880 overlaps channels; q files use odd widths).
  if (shift + bits < 32 && value >>> (shift + bits) !== 0)
    throw new BmpError('a colour mask is not contiguous');
  return { shift, bits };
}

function readMasks(view: DataView, at: number, withAlpha: boolean): NonNullable<BmpHeader['masks']> {
  const need = at + (withAlpha ? 16 : 12);
  if (need > view.byteLength) throw new BmpError('its colour masks are cut off');
  const r = maskOf(view.getUint32(at, true));
  const g = maskOf(view.getUint32(at + 4, true));
  const b = maskOf(view.getUint32(at + 8, true));
  const a = withAlpha ? maskOf(view.getUint32(at + 12, true)) : undefined;
  const none: Mask = { shift: 0, bits: 0 };
  return { r: r ?? none, g: g ?? none, b: b ?? none, ...(a === undefined ? {} : { a }) };
}

function defaultMasks(bitCount: number): NonNullable<BmpHeader['masks']> {
  // 16-bit: X1R5G5B5; 32-bit: X8R8G8B8 (the fourth byte is not alpha without a mask saying so).
  if (bitCount === 16)
    return { r: { shift: 10, bits: 5 }, g: { shift: 5, bits: 5 }, b: { shift: 0, bits: 5 } };
  return { r: { shift: 16, bits: 8 }, g: { shift: 8, bits: 8 }, b: { shift: 0, bits: 8 } };
}

/**
 * Parses the file and DIB headers from the first bytes of a file (at least BMP_HEADER_BYTES when the
 * file is that long). Refuses what no decoder here can read, with the reason.
 */
export function readBmpHeader(bytes: Uint8Array): BmpHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < FILE_HEADER + 4 || bytes[0] !== 0x42 || bytes[1] !== 0x4d) {
    throw new BmpError('its BMP header is incomplete');
  }
  const dataOffset = view.getUint32(10, true);
  const dibSize = view.getUint32(FILE_HEADER, true);
  if (dibSize !== 12 && (dibSize < 16 || dibSize > 2 ** 16)) {
    throw new BmpError(`its DIB header size ${dibSize} is not a BMP's`);
  }
  // Fields are read from the first 124 bytes (V5); a longer future header keeps them there.
  const dibEnd = FILE_HEADER + Math.min(dibSize, 124);
  if (dibEnd > bytes.length) throw new BmpError('its BMP header is incomplete');

  if (dibSize === 12) {
    // OS/2 1.x BITMAPCOREHEADER: unsigned 16-bit sizes, always bottom-up, 3-byte palette entries.
    const bitCount = view.getUint16(FILE_HEADER + 10, true);
    if (view.getUint16(FILE_HEADER + 8, true) !== 1) throw new BmpError('its plane count is not 1');
    return checked({
      width: view.getUint16(FILE_HEADER + 4, true),
      height: view.getUint16(FILE_HEADER + 6, true),
      topDown: false,
      bitCount,
      compression: 'rgb',
      dataOffset,
      palette: { offset: FILE_HEADER + dibSize, entries: bitCount <= 8 ? 2 ** bitCount : 0, entrySize: 3 },
    });
  }

  // Every later header starts like BITMAPINFOHEADER; OS/2 2.x ones may stop after 16 bytes, and any
  // field they leave out is zero.
  const field = (at: number) => (FILE_HEADER + at + 4 <= dibEnd ? view.getUint32(FILE_HEADER + at, true) : 0);
  const width = view.getInt32(FILE_HEADER + 4, true);
  const rawHeight = view.getInt32(FILE_HEADER + 8, true);
  if (view.getUint16(FILE_HEADER + 12, true) !== 1) throw new BmpError('its plane count is not 1');
  const bitCount = view.getUint16(FILE_HEADER + 14, true);
  const code = field(16);
  const colorsUsed = field(32);
  const windows = dibSize === 40 || dibSize === 52 || dibSize === 56 || dibSize === 108 || dibSize === 124;
  if (width < 0) throw new BmpError('its width is negative');

  let compression: BmpHeader['compression'];
  let masks: BmpHeader['masks'];
  let paletteOffset = FILE_HEADER + dibSize;
  if (code === BI_RGB) {
    compression = 'rgb';
    if (bitCount === 16 || bitCount === 32) masks = defaultMasks(bitCount);
  } else if (code === BI_RLE8 && bitCount === 8) compression = 'rle8';
  else if (code === BI_RLE4 && bitCount === 4) compression = 'rle4';
  else if (
    windows &&
    (code === BI_BITFIELDS || code === BI_ALPHABITFIELDS) &&
    (bitCount === 16 || bitCount === 32)
  ) {
    compression = 'bitfields';
    const withAlpha = code === BI_ALPHABITFIELDS || dibSize >= 56;
    if (dibSize === 40) {
      // The masks follow a plain INFO header; V2 and later headers hold them inside.
      masks = readMasks(view, paletteOffset, withAlpha);
      paletteOffset += withAlpha ? 16 : 12;
    } else {
      masks = readMasks(view, FILE_HEADER + 40, withAlpha);
    }
  } else if (windows && code === BI_JPEG) compression = 'jpeg';
  else if (windows && code === BI_PNG) compression = 'png';
  else if (!windows && (code === 3 || code === 4)) {
    throw new BmpError('it uses OS/2 Huffman or RLE24 compression, which is not supported');
  } else {
    throw new BmpError(`its compression ${code} with ${bitCount} bits per pixel is not a BMP encoding`);
  }
  // Version 4 and 5 headers carry an alpha mask even for BI_RGB, but for BI_RGB it is not used.
  if (compression === 'bitfields' && masks?.a !== undefined && masks.a.bits === 0) delete masks.a;

  const paletted = bitCount <= 8;
  const defaultEntries = paletted ? 2 ** bitCount : 0;
  return checked({
    width,
    height: Math.abs(rawHeight),
    topDown: rawHeight < 0,
    bitCount,
    compression,
    dataOffset,
    ...(masks === undefined ? {} : { masks }),
    palette: {
      offset: paletteOffset,
      // colorsUsed beyond 256 (q/pal8oversizepal) still indexes at most 2^bitCount colours.
      entries: paletted ? Math.min(colorsUsed === 0 ? defaultEntries : colorsUsed, defaultEntries) : 0,
      entrySize: 4,
    },
  });
}

function checked(header: BmpHeader): BmpHeader {
  const { bitCount, compression } = header;
  if (![1, 2, 4, 8, 16, 24, 32].includes(bitCount) && compression !== 'jpeg' && compression !== 'png') {
    throw new BmpError(`its bit depth ${bitCount} is not supported`);
  }
  if ((compression === 'rle8' || compression === 'rle4') && header.topDown) {
    throw new BmpError('it is RLE-compressed and top-down, which BMP does not allow');
  }
  if (header.dataOffset < header.palette.offset) throw new BmpError('its pixel data overlaps its header');
  return header;
}

/** Reads `header.palette` as [r, g, b] triples; entries cut off by the pixel data or the file end are black. */
function readPalette(bytes: Uint8Array, header: BmpHeader): Uint8Array {
  const { offset, entries, entrySize } = header.palette;
  const palette = new Uint8Array(256 * 3);
  for (let i = 0; i < entries; i += 1) {
    const at = offset + i * entrySize;
    if (at + 3 > header.dataOffset || at + 3 > bytes.length) break;
    palette[i * 3] = bytes[at + 2] ?? 0;
    palette[i * 3 + 1] = bytes[at + 1] ?? 0;
    palette[i * 3 + 2] = bytes[at] ?? 0;
  }
  return palette;
}

function scale(value: number, mask: Mask): number {
  if (mask.bits === 0) return 0;
  const max = 2 ** mask.bits - 1;
  const channel = Math.floor(value / 2 ** mask.shift) % 2 ** mask.bits;
  return Math.round((channel * 255) / max);
}

/** Output row of the file's row `row` (files are bottom-up unless the height was negative). */
function outputRow(header: BmpHeader, row: number): number {
  return header.topDown ? row : header.height - 1 - row;
}

function decodeRows(bytes: Uint8Array, header: BmpHeader, rgba: Uint8Array): void {
  const { width, height, bitCount } = header;
  const stride = Math.ceil((width * bitCount) / 32) * 4;
  if (header.dataOffset + stride * height > bytes.length) throw new BmpError('its pixel data is cut off');
  const palette = readPalette(bytes, header);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const masks = header.masks;
  for (let row = 0; row < height; row += 1) {
    const start = header.dataOffset + row * stride;
    let out = outputRow(header, row) * width * 4;
    for (let x = 0; x < width; x += 1, out += 4) {
      if (bitCount <= 8) {
        const bit = x * bitCount;
        const byte = bytes[start + (bit >>> 3)] ?? 0;
        const index = (byte >>> (8 - bitCount - (bit & 7))) & (2 ** bitCount - 1);
        rgba[out] = palette[index * 3] ?? 0;
        rgba[out + 1] = palette[index * 3 + 1] ?? 0;
        rgba[out + 2] = palette[index * 3 + 2] ?? 0;
        rgba[out + 3] = 255;
      } else if (bitCount === 24) {
        const at = start + x * 3;
        rgba[out] = bytes[at + 2] ?? 0;
        rgba[out + 1] = bytes[at + 1] ?? 0;
        rgba[out + 2] = bytes[at] ?? 0;
        rgba[out + 3] = 255;
      } else if (masks !== undefined) {
        const value =
          bitCount === 16 ? view.getUint16(start + x * 2, true) : view.getUint32(start + x * 4, true);
        rgba[out] = scale(value, masks.r);
        rgba[out + 1] = scale(value, masks.g);
        rgba[out + 2] = scale(value, masks.b);
        rgba[out + 3] = masks.a === undefined ? 255 : scale(value, masks.a);
      }
    }
  }
}

/**
 * RLE8 and RLE4 (BITMAPINFOHEADER documentation, "Bitmap Compression"): runs of one index, absolute
 * runs padded to 16 bits, and escapes for end of line, end of bitmap and a jump. A stream that ends
 * early leaves the rest transparent (BMP Suite q/pal8rlecut); one that writes past the image is damaged.
 */
function decodeRle(bytes: Uint8Array, header: BmpHeader, rgba: Uint8Array): void {
  const { width, height } = header;
  const four = header.compression === 'rle4';
  const palette = readPalette(bytes, header);
  let at = header.dataOffset;
  let x = 0;
  let row = 0;
  const put = (index: number) => {
    if (x >= width || row >= height) throw new BmpError('its RLE data writes outside the image');
    const out = (outputRow(header, row) * width + x) * 4;
    rgba[out] = palette[index * 3] ?? 0;
    rgba[out + 1] = palette[index * 3 + 1] ?? 0;
    rgba[out + 2] = palette[index * 3 + 2] ?? 0;
    rgba[out + 3] = 255;
    x += 1;
  };
  while (at + 1 < bytes.length && row < height) {
    const count = bytes[at] ?? 0;
    const value = bytes[at + 1] ?? 0;
    at += 2;
    if (count > 0) {
      for (let i = 0; i < count; i += 1) put(four ? (i % 2 === 0 ? value >>> 4 : value & 15) : value);
    } else if (value === 0) {
      x = 0;
      row += 1;
    } else if (value === 1) {
      return;
    } else if (value === 2) {
      if (at + 1 >= bytes.length) return;
      x += bytes[at] ?? 0;
      row += bytes[at + 1] ?? 0;
      at += 2;
    } else {
      const length = four ? Math.ceil(value / 2) : value;
      if (at + length > bytes.length) throw new BmpError('its RLE data is cut off');
      for (let i = 0; i < value; i += 1) {
        const byte = bytes[at + (four ? i >>> 1 : i)] ?? 0;
        put(four ? (i % 2 === 0 ? byte >>> 4 : byte & 15) : byte);
      }
      at += length + (length % 2);
    }
  }
}

/**
 * Decodes a whole BMP file to RGBA, refusing before any allocation an image of more than `maxPixels`.
 * JPEG- and PNG-compressed BMPs are not decoded here: `embedded` returns their stream for an image decoder.
 */
export function decodeBmp(bytes: Uint8Array, maxPixels: number): BmpPixels {
  const header = readBmpHeader(bytes);
  const { width, height } = header;
  if (width === 0 || height === 0)
    throw new BmpError(`it declares an empty image (${width}x${height} pixels)`);
  if (width * height > maxPixels) throw new BmpError(`it declares ${width}x${height} pixels, over the cap`);
  if (header.compression === 'jpeg' || header.compression === 'png') {
    throw new BmpError('it holds a JPEG or PNG stream: decode embeddedImage() instead');
  }
  if (header.dataOffset >= bytes.length) throw new BmpError('its pixel data is missing');
  const rgba = new Uint8Array(width * height * 4);
  if (header.compression === 'rle8' || header.compression === 'rle4') decodeRle(bytes, header, rgba);
  else decodeRows(bytes, header, rgba);
  return { width, height, rgba };
}

/** The JPEG or PNG stream of a BI_JPEG / BI_PNG bitmap, or undefined for every other kind. */
export function embeddedImage(bytes: Uint8Array): Uint8Array | undefined {
  const header = readBmpHeader(bytes);
  if (header.compression !== 'jpeg' && header.compression !== 'png') return undefined;
  if (header.dataOffset >= bytes.length) throw new BmpError('its pixel data is missing');
  return bytes.subarray(header.dataOffset);
}
