import { describe, expect, it } from 'vitest';
import { isJp2, Jp2Error, readJp2Header } from './jp2-header.js';

function box(type: string, content: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + content.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, content]);
}

/** SOC and a SIZ segment for a `width` x `height` image of `components` components (ISO/IEC 15444-1 A.5.1). */
function codestream(width: number, height: number, components = 3): Buffer {
  const siz = Buffer.alloc(38 + 3 * components);
  siz.writeUInt16BE(0xff51, 0);
  siz.writeUInt16BE(36 + 3 * components, 2);
  siz.writeUInt32BE(width, 6);
  siz.writeUInt32BE(height, 10);
  siz.writeUInt16BE(components, 38);
  return Buffer.concat([Buffer.from([0xff, 0x4f]), siz]);
}

function jp2(o: { ihdr: [number, number]; coded: [number, number]; res?: Buffer; cdef?: Buffer }): Buffer {
  const ihdr = Buffer.alloc(14);
  ihdr.writeUInt32BE(o.ihdr[1], 0);
  ihdr.writeUInt32BE(o.ihdr[0], 4);
  ihdr.writeUInt16BE(3, 8);
  const header = Buffer.concat([
    box('ihdr', ihdr),
    ...(o.res === undefined ? [] : [box('res ', box('resc', o.res))]),
    ...(o.cdef === undefined ? [] : [box('cdef', o.cdef)]),
  ]);
  return Buffer.concat([
    Buffer.from([0, 0, 0, 12, 0x6a, 0x50, 0x20, 0x20, 0x0d, 0x0a, 0x87, 0x0a]),
    box('ftyp', Buffer.from('jp2 \0\0\0\0jp2 ', 'latin1')),
    box('jp2h', header),
    box('jp2c', codestream(...o.coded)),
  ]);
}

/** 300 dpi both ways: 11811 pixels per metre, as 11811/1 x 10^0. */
const RES_300 = Buffer.from([0x2e, 0x23, 0, 1, 0x2e, 0x23, 0, 1, 0, 0]);

describe('readJp2Header', () => {
  it('reads a JP2 file and its resolution', () => {
    const file = jp2({ ihdr: [640, 480], coded: [640, 480], res: RES_300 });
    expect(isJp2(file)).toBe(true);
    const header = readJp2Header(file);
    expect({ ...header, dpi: Math.round(header.dpi ?? 0) }).toEqual({
      width: 640,
      height: 480,
      dpi: 300,
      alpha: false,
    });
  });

  it('reads a bare codestream, four components as colour with opacity', () => {
    expect(readJp2Header(codestream(32, 16, 4))).toEqual({ width: 32, height: 16, alpha: true });
  });

  it('tells an opacity channel from its cdef box', () => {
    // Two channel definitions: channel 0 colour (type 0), channel 1 opacity (type 1).
    const cdef = Buffer.from([0, 2, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0]);
    expect(readJp2Header(jp2({ ihdr: [8, 8], coded: [8, 8], cdef })).alpha).toBe(true);
  });

  it.each([
    ['an ihdr disagreeing with the codestream', jp2({ ihdr: [100, 100], coded: [30_000, 30_000] }), true],
    ['a file cut inside a box', jp2({ ihdr: [8, 8], coded: [8, 8] }).subarray(0, 60), false],
  ])('refuses %s', (_, bytes, ambiguous) => {
    let caught: unknown;
    try {
      readJp2Header(bytes);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Jp2Error);
    expect((caught as Jp2Error).ambiguous).toBe(ambiguous);
  });
});
