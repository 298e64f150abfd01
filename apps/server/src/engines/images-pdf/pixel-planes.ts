// A decoded page's pixels as the fewest channels that hold all of it (nothing lost): grey when every
// pixel's red, green and blue are equal, no alpha when every pixel is opaque, one bit a pixel when a grey
// page is only black and white. A BMP decodes to RGBA whatever it held, a TIFF or WebP to RGB even when
// grey: stored as decoded, a 1-bit scan would take 24 times its room in the PDF.

export interface Planes {
  width: number;
  height: number;
  /** 8 or 16. */
  bits: 8 | 16;
  colours: 1 | 3;
  /** Interleaved colour samples, native-endian (little) when 16-bit, as sharp reads raw input. */
  colour: Buffer;
  /** One sample a pixel, same depth; absent when every pixel is opaque. */
  alpha?: Buffer | undefined;
}

/**
 * Splits `channels`-channel (3 or 4) samples of `bits` (native-endian 16-bit from sharp) into planes,
 * dropping what carries nothing.
 */
export function toPlanes(
  data: Buffer,
  width: number,
  height: number,
  channels: 3 | 4,
  bits: 8 | 16,
  /** False when an RGB colour profile comes with the samples: grey ones would lose it. */
  mayBeGrey = true,
): Planes {
  const pixels = width * height;
  const size = bits / 8;
  const sample = bits === 8 ? (i: number) => data[i] ?? 0 : (i: number) => data.readUInt16LE(i * 2);
  const opaqueValue = bits === 8 ? 0xff : 0xffff;
  let grey = mayBeGrey;
  for (let p = 0; p < pixels && grey; p += 1) {
    const at = p * channels;
    if (sample(at) !== sample(at + 1) || sample(at) !== sample(at + 2)) grey = false;
  }
  const keepAlpha = channels === 4 && !isAllOpaque(pixels, channels, sample, opaqueValue);
  const colours = grey ? 1 : 3;
  const colour = Buffer.alloc(pixels * colours * size);
  const alpha = keepAlpha ? Buffer.alloc(pixels * size) : undefined;
  const put = (buffer: Buffer, index: number, value: number) => {
    if (bits === 8) buffer[index] = value;
    else buffer.writeUInt16LE(value, index * 2);
  };
  for (let p = 0; p < pixels; p += 1) {
    const at = p * channels;
    for (let c = 0; c < colours; c += 1) put(colour, p * colours + c, sample(at + c));
    if (alpha !== undefined) put(alpha, p, sample(at + 3));
  }
  return { width, height, bits, colours, colour, alpha };
}

function isAllOpaque(
  pixels: number,
  channels: number,
  sample: (i: number) => number,
  opaqueValue: number,
): boolean {
  for (let p = 0; p < pixels; p += 1) if (sample(p * channels + 3) !== opaqueValue) return false;
  return true;
}

/** An 8-bit grey plane holding only black and white, packed one bit a pixel (rows padded to a byte); else undefined. */
export function asBilevel(plane: Buffer, width: number, height: number): Buffer | undefined {
  for (const value of plane) if (value !== 0 && value !== 0xff) return undefined;
  const rowBytes = Math.ceil(width / 8);
  const packed = Buffer.alloc(rowBytes * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      if (plane[y * width + x] === 0xff) {
        const index = y * rowBytes + (x >> 3);
        packed[index] = (packed[index] ?? 0) | (0x80 >> (x & 7));
      }
    }
  }
  return packed;
}
